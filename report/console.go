package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gollm-bench/gollm-bench/internal/termtext"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// WriteConsole writes the end-of-run text report: a header naming the
// run, one table row per level (load, request counts, TTFT, ITL and E2E
// percentiles in ms with the 95 % intervals of TTFT p99 and ITL p95,
// output and goodput tokens/s with theirs, req/s, scheduling-lag p99,
// client flags and the SLO verdict with its deciding terms), the knee
// line, the energy, cost and carbon of the scorecard's level (telemetryLines),
// the receive clock of the latencies and the client's receive
// queueing, the warnings grouped by code, and "PARTIAL: interrupted" for an
// interrupted run.
// An error-adjusted TTFT p99 column (docs/metrics.md#error-rate-and-error-adjusted-percentiles: each failure counts as +Inf,
// shown as "inf") appears when some level has failures. Output is
// deterministic: it depends on run only. Safe for concurrent use (it only
// reads run).
func WriteConsole(w io.Writer, run results.Run) error {
	var b strings.Builder
	b.WriteString(headerLine(run) + "\n")
	if !run.Result.Objective.IsZero() {
		b.WriteString("slo: " + run.Result.Objective.String() + "\n")
	}
	b.WriteString("\n")
	if len(run.Result.Levels) == 0 {
		b.WriteString("no levels ran\n")
	} else {
		t := levelTable(run.Result, run.Config.Arrivals)
		if err := t.write(&b); err != nil {
			return err
		}
		writeSessions(&b, run.Result) // multi-turn levels: sessions.go
	}
	b.WriteString("\n")
	if l := warmupLine(run); l != "" {
		b.WriteString(l + "\n")
	}
	for _, l := range kneeLines(run.Result) {
		b.WriteString(l + "\n")
	}
	sc := run.Scorecard()
	for _, l := range telemetryLines(run, sc) {
		b.WriteString(l + "\n")
	}
	for _, l := range clockLines(run.Result) {
		b.WriteString(l + "\n")
	}
	for _, l := range repeatLines(run.Result) {
		b.WriteString(l + "\n")
	}
	if ws := withScorecardWarnings(run.Result.Warnings, sc); len(ws) > 0 {
		fmt.Fprintf(&b, "\nwarnings (%d):\n", len(ws))
		for _, line := range groupedWarningLines(ws) {
			b.WriteString("  " + line + "\n")
		}
	}
	if p := partialLine(run); p != "" {
		b.WriteString("\n" + p + "\n")
	}
	// Model names, error texts and warnings quote what servers sent:
	// nothing in them may act on the terminal.
	_, err := io.WriteString(w, termtext.EscapeLines(b.String()))
	return err
}

// headerLine names the run: "gollm-bench sweep: run R, model M at URL, 7 levels".
func headerLine(run results.Run) string {
	cmd := run.Config.Command
	if cmd == "" {
		cmd = "run"
	}
	s := "gollm-bench " + cmd
	var parts []string
	if run.RunID != "" {
		parts = append(parts, "run "+run.RunID)
	}
	if m := run.Config.Model; m != "" {
		p := "model " + m
		if run.Config.Target != "" {
			p += " at " + run.Config.Target
		}
		parts = append(parts, p)
	}
	parts = append(parts, fmt.Sprintf("%d level(s)", len(run.Result.Levels)))
	return s + ": " + strings.Join(parts, ", ")
}

// judgedTTFT formats the TTFT tail the SLO judges: in open loop the
// larger of TTFT and TTFT corrected for coordinated omission (slo's ttft
// term), marked "(c)" when the corrected one is shown.
func judgedTTFT(s metrics.Summary, p float64) string {
	if s.Censored.Requests > 0 {
		// Requests cut off count as censored observations: show the
		// figure the verdict judges (docs/statistics.md#censored-requests).
		m := slo.Term{Metric: slo.MetricTTFT, Percentile: p, Op: slo.OpLE, Threshold: math.Inf(1)}.Measure(s)
		if m.Err == nil && !math.IsNaN(m.Value) {
			return fmtEstimate(m.Value, m.Interval) + " (cens)"
		}
	}
	if s.Profile.Mode.OpenLoop() && s.TTFTCorrected.Count > 0 {
		c, u := percentile(s.TTFTCorrected, p), percentile(s.TTFT, p)
		if c.ok && (!u.ok || c.v > u.v) {
			return fmtPercentileCI(s.TTFTCorrected, p) + " (c)"
		}
	}
	return fmtPercentileCI(s.TTFT, p)
}

// levelTable builds the per-level table shared by the console and HTML.
// The figures that decide (TTFT p99, ITL p95, or the percentiles the SLO
// judges; output and goodput tokens/s) carry their 95 % intervals, and
// every estimate with an interval (req/s and lag p99 too) is rounded to
// the precision its interval supports; the rest of each distribution, and
// every interval, is in run.json and levels.csv.
func levelTable(res sweep.Result, arr *results.Arrivals) *table {
	// The tail columns show the percentile the SLO judges (ttft_p95 shows
	// TTFT p95, with the interval being judged), else p99 and p95.
	ttftP, itlP := sloPercentile(res.Objective, slo.MetricTTFT, 99), sloPercentile(res.Objective, slo.MetricITL, 95)
	errAdj := false
	for _, l := range res.Levels {
		errAdj = errAdj || l.Summary.Requests.Failed > 0
	}
	cols := []column{
		{name: "lvl", right: true}, {name: "phase"}, {name: "profile"}, {name: "load", right: true},
		{group: "requests", name: "ok", right: true}, {group: "requests", name: "fail", right: true}, {group: "requests", name: "censored", right: true},
		{group: "TTFT ms", name: "p50", right: true}, {group: "TTFT ms", name: pctName(ttftP) + " [95% CI]", right: true},
	}
	if errAdj {
		cols = append(cols, column{group: "TTFT ms", name: "p99 (err-adj)", right: true})
	}
	cols = append(cols,
		column{group: "ITL ms", name: "p50", right: true}, column{group: "ITL ms", name: pctName(itlP) + " [95% CI]", right: true},
		column{group: "E2E ms", name: "p50", right: true}, column{group: "E2E ms", name: "p99", right: true},
		column{group: "output", name: "tok/s [95% CI]", right: true}, column{group: "output", name: "req/s", right: true},
		column{name: "goodput tok/s", right: true},
		column{group: "lag ms", name: "p99", right: true},
	)
	withCost := res.Cost.Seconds > 0 // not in results written before costs were kept
	if withCost {
		cols = append(cols, column{group: "cost", name: "req", right: true}, column{group: "cost", name: "s", right: true})
	}
	cols = append(cols, column{name: "flags"}, column{name: "verdict"})
	withSLO := !res.Objective.IsZero()
	t := &table{cols: cols}
	for _, l := range res.Levels {
		s := l.Summary
		row := []string{
			fmt.Sprint(l.Index), string(l.Phase), cmpOr(arr.Label(l.Profile), describeProfile(l.Profile)), fmtLoad(l.OfferedLoad, l.Unit),
			thousands(float64(s.Requests.OK), 0), thousands(float64(s.Requests.Failed), 0), thousands(float64(s.Requests.Incomplete), 0),
			fmtDistRounded(s.TTFT, s.TTFT.P50, s.TTFT.P50CI), judgedTTFT(s, ttftP),
		}
		if errAdj {
			cell := ""
			if s.Requests.Failed > 0 {
				cell = fmtDistRounded(s.TTFTErrorAdjusted, s.TTFTErrorAdjusted.P99, s.TTFTErrorAdjusted.P99CI)
			}
			row = append(row, cell)
		}
		lag := fmtDist(s.Lag, s.Lag.P99) // a run.json without intervals
		if !s.Lag.P99CI.IsZero() {
			lag = fmtDistRounded(s.Lag, s.Lag.P99, s.Lag.P99CI)
		}
		goodput := "-"
		if withSLO {
			goodput = fmtEstimate(s.Goodput.OutputTokensPerSecond, s.Goodput.OutputTokensPerSecondCI)
		}
		row = append(row,
			fmtDistRounded(s.ITL, s.ITL.P50, s.ITL.P50CI), fmtPercentileCI(s.ITL, itlP),
			fmtDistRounded(s.E2E, s.E2E.P50, s.E2E.P50CI), fmtDistRounded(s.E2E, s.E2E.P99, s.E2E.P99CI),
			fmtEstimate(s.OutputTokensPerSecond, s.OutputTokensPerSecondCI), fmtRateRounded(s.RequestsPerSecond, s.RequestsPerSecondCI),
			goodput,
			lag,
		)
		if withCost {
			row = append(row, thousands(float64(l.Cost.Requests), 0), fmtCostSeconds(l.Cost.Seconds))
		}
		row = append(row, levelFlags(l), verdictText(res, l))
		t.add(row...)
	}
	return t
}

// warmupLine describes the run-level warm-up phase, "" without one:
// "warm-up phase concurrent:4:60s ran 62.3 s, thermal gate ... passed
// (first held after 41.0 s); 412 requests, 0 failed; TTFT p50 812 ms at
// its start, 95 ms at its end (not in any level)".
func warmupLine(run results.Run) string {
	w := run.WarmupPhase
	if w == nil {
		return ""
	}
	line := fmt.Sprintf("warm-up phase %s; %d requests, %d failed", w.Describe(), w.Scheduled, w.Failed)
	if w.FirstTTFTMs != nil && w.LastTTFTMs != nil {
		line += fmt.Sprintf("; TTFT p50 %s ms at its start, %s ms at its end", fmtMs(*w.FirstTTFTMs), fmtMs(*w.LastTTFTMs))
	}
	return line + " (counted in no level)"
}

// fmtCostSeconds is a level's wall time for the table: whole seconds, or
// "-" for a result written before costs were kept.
func fmtCostSeconds(sec float64) string {
	if sec == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", sec)
}
