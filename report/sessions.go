package report

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// writeSessions writes, for each multi-turn level, a line of per-session
// figures and a table by turn index: requests, mean ISL and cached prompt
// tokens, TTFT p50 and p99 (with its interval) and E2E p50. Nothing for a
// run without sessions.
func writeSessions(b *strings.Builder, res sweep.Result) {
	for _, l := range res.Levels {
		ss := l.Summary.Sessions
		if ss == nil {
			continue
		}
		fmt.Fprintf(b, "\nsessions, level %d: %s\n", l.Index, sessionLine(ss))
		t := &table{cols: []column{
			{name: "turn", right: true},
			{group: "requests", name: "sent", right: true}, {group: "requests", name: "ok", right: true},
			{group: "tokens (mean)", name: "ISL", right: true}, {group: "tokens (mean)", name: "cached", right: true}, {group: "tokens (mean)", name: "OSL", right: true},
			{group: "TTFT ms", name: "p50", right: true}, {group: "TTFT ms", name: "p99 [95% CI]", right: true},
			{group: "E2E ms", name: "p50", right: true},
		}}
		for _, tr := range ss.Turns {
			t.add(fmt.Sprint(tr.Turn),
				thousands(float64(tr.Sent), 0), thousands(float64(tr.OK), 0),
				fmtTokens(tr.PromptTokens, tr.PromptTokens.Mean), fmtTokens(tr.CachedTokens, tr.CachedTokens.Mean), fmtTokens(tr.OutputTokens, tr.OutputTokens.Mean),
				fmtDistRounded(tr.TTFT, tr.TTFT.P50, tr.TTFT.P50CI), fmtDistCI(tr.TTFT, tr.TTFT.P99, tr.TTFT.P99CI),
				fmtDistRounded(tr.E2E, tr.E2E.P50, tr.E2E.P50CI))
		}
		_ = t.write(b) // a strings.Builder does not fail
	}
}

// sessionLine is the per-session summary of a level: "12 sessions (10
// completed, 1 failed, 1 cut by the level's end); turns completed 2.8 of
// 3 planned (mean); duration of completed sessions p50 7,100 ms, p99
// 9,020 ms".
func sessionLine(ss *metrics.SessionStats) string {
	s := fmt.Sprintf("%s sessions (%s completed, %s failed, %s cut by the level's end); turns completed %s of %s planned (mean)",
		thousands(float64(ss.Sessions), 0), thousands(float64(ss.Completed), 0), thousands(float64(ss.Failed), 0), thousands(float64(ss.Cut), 0),
		fmtRate(ss.TurnsCompleted), fmtRate(ss.TurnsPlanned))
	if d := ss.Duration; d.Count > 0 {
		s += fmt.Sprintf("; duration of completed sessions p50 %s ms, p99 %s ms", fmtMs(d.P50), fmtMs(d.P99))
	}
	return s
}
