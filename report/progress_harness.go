package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
	"golang.org/x/term"
)

// TerminalProgress is the live progress of a command writing to w: a
// line updated in place when w is a terminal, plain lines otherwise,
// nothing when quiet.
func TerminalProgress(w io.Writer, quiet bool) *Progress {
	isTTY := false
	if f, ok := w.(*os.File); ok {
		isTTY = term.IsTerminal(int(f.Fd()))
	}
	return NewProgress(w, isTTY, quiet)
}

// Harness shows a level runner's progress (harness.Config.Progress): the
// level's line while it runs. Its last line is printed with the verdict
// when the sweep reports the level's end (Sweep); without Sweep events,
// when the runner reports it final.
func (g *Progress) Harness(p harness.Progress) {
	line := ProgressLine{
		Level:     p.Level,
		Label:     cmpOr(p.Label, profileLabel(p.Profile)),
		Elapsed:   p.Elapsed,
		Requests:  p.Live.Done,
		Errors:    p.Live.Failed,
		TTFTP99Ms: p.Live.TTFTP99,
	}
	switch {
	case p.Expected > p.Elapsed:
		line.ETA = p.Expected - p.Elapsed
	case p.Expected > 0 && p.Drain > 0:
		// Past its planned length the level lets what is in flight
		// finish, for at most the drain timeout.
		line.Draining = true
		line.ETA = max(p.Expected+p.Drain-p.Elapsed, 0)
	}
	if p.Repeats > 1 {
		line.Run = fmt.Sprintf("run %d/%d", p.Repeat+1, p.Repeats)
	}
	if pp := p.Precision; pp != nil {
		line.Precision = precisionText(*pp)
		if pp.ETA > 0 && (line.ETA == 0 || pp.ETA < line.ETA) {
			line.ETA = pp.ETA // the level ends when precise enough
		}
	}
	if s := p.Elapsed.Seconds(); s > 0 {
		line.TokPerSec = float64(p.Live.OutputTokens) / s
	}
	if p.Final {
		g.mu.Lock()
		inSweep := g.sw.on
		g.mu.Unlock()
		if !inSweep {
			g.Done(line, "")
			return
		}
		line.ETA, line.Draining = 0, false
	}
	g.Update(line)
}

// liveVerdict is a finished level's verdict for the live view, with the
// deciding terms and what they measured: "PASS", "FAIL ttft_p99<=500ms
// (812 ms [790, 840])", "INCONCLUSIVE error_rate<=0.5% (0.4 % [0.1, 1.2])",
// "INCONCLUSIVE client-limited"; "" for a level without an SLO.
func liveVerdict(l sweep.LevelOutcome) string {
	v := l.Verdict
	if len(v.Terms) == 0 && v.Outcome == slo.OutcomePass && !v.ClientLimited && !v.NoSuccess && !v.TooShort {
		return "" // no SLO: nothing judged
	}
	deciding := func(outcome slo.Outcome) []string {
		var out []string
		for _, t := range v.Terms {
			if t.Outcome != outcome {
				continue
			}
			got := "not measured"
			switch {
			case math.IsNaN(t.Measured):
			case t.Term.Metric.Latency() && math.IsInf(t.Measured, 1):
				// The statistic lands on failed requests, which count as
				// +∞ (docs/statistics.md, "Failures count").
				got = fmt.Sprintf("%s ms: failures count as +∞, %d of %d requests failed", fmtEstimate(t.Measured, t.Interval),
					l.Summary.Requests.Failed, l.Summary.Requests.Failed+l.Summary.Requests.OK)
			case t.Term.Metric.Latency():
				got = fmtEstimate(t.Measured, t.Interval) + " ms"
			case t.Term.Metric == slo.MetricErrorRate:
				got = fmtEstimate(100*t.Measured, t.Interval.Scale(100)) + " %"
			default:
				got = fmtEstimate(t.Measured, t.Interval) + " tok/s"
			}
			out = append(out, t.Term.String()+" ("+got+")")
		}
		return out
	}
	switch v.Outcome {
	case slo.OutcomePass:
		return "PASS"
	case slo.OutcomeFail:
		why := deciding(slo.OutcomeFail)
		if v.NoSuccess {
			why = append(why, "no successful request")
		}
		return strings.TrimSpace("FAIL " + strings.Join(why, ", "))
	}
	if v.TooShort {
		return "INCONCLUSIVE too short (no request finished in the measured window)"
	}
	if v.ClientLimited {
		return "INCONCLUSIVE client-limited (the load generator fell behind)"
	}
	return strings.TrimSpace("INCONCLUSIVE " + strings.Join(deciding(slo.OutcomeInconclusive), ", "))
}

// precisionText is a precision-driven level's progress for the live line:
// each target's current relative half-width against its goal, and the SLO
// terms still undecided.
func precisionText(p harness.PrecisionProgress) string {
	var parts []string
	for _, st := range p.Targets {
		hw := "unbounded"
		if !math.IsInf(st.RelativeHalfWidth, 0) && !math.IsNaN(st.RelativeHalfWidth) {
			hw = fmt.Sprintf("±%.0f%%", 100*st.RelativeHalfWidth)
		}
		mark := ""
		if st.Met {
			mark = " ok"
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s%s", st.Target.Term.Name(), hw, strconv.FormatFloat(100*st.Target.Fraction, 'g', 3, 64)+"%", mark))
	}
	if len(p.Undecided) > 0 {
		parts = append(parts, "undecided "+strings.Join(p.Undecided, ","))
	}
	if p.Failing {
		parts = append(parts, "a term fails")
	}
	return strings.Join(parts, ", ")
}

func profileLabel(p loadgen.Profile) string {
	switch p.Mode {
	case loadgen.ModeConstant, loadgen.ModePoisson:
		return fmt.Sprintf("%s %.4g req/s", p.Mode, p.Rate)
	case loadgen.ModeConcurrent:
		return fmt.Sprintf("concurrent %d", p.Concurrency)
	case loadgen.ModeThroughput:
		return fmt.Sprintf("throughput (max %d in flight)", max(p.MaxConcurrency, loadgen.DefaultThroughputConcurrency))
	}
	return string(p.Mode)
}
