package report

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// kneeLines states the knee verdict in words (SPEC §6), from Result.Knee
// and the sweep's warnings, e.g.
//
//	knee: 7.4 req/s (bracket 7.4–7.8), goodput 3,120 tok/s under ttft_p99<=500ms,itl_p95<=50ms
//
// The goodput figure is request-level goodput at the knee (SPEC §7,
// DistServe): the output tokens/s of the requests that met every SLO
// threshold, the scorecard's goodput_tok_s. The second line gives it in
// req/s, the knee level's whole output throughput, and the seed formula's
// cross-check.
func kneeLines(res sweep.Result) []string {
	obj := res.Objective.String()
	k := res.Knee
	if res.Objective.IsZero() {
		return []string{"knee: no SLO given (--slo), so no verdicts and no knee"}
	}
	if k == nil {
		if w, ok := findWarning(res.Warnings, "knee_below_range"); ok {
			return []string{"knee: below the tested range: " + w.Message}
		}
		for _, l := range res.Levels {
			if !l.Partial && l.Verdict.Pass {
				return []string{"knee: not searched (gollm-bench run judges each level; gollm-bench sweep finds the knee); see the verdicts"}
			}
		}
		return []string{"knee: none: no complete level passed " + obj}
	}
	var first string
	if k.Reached {
		first = fmt.Sprintf("knee: %s (bracket %s–%s), goodput %s tok/s under %s",
			fmtLoad(k.OfferedLoad, k.Unit), fmtRate(k.BracketLo), fmtRate(k.BracketHi), fmtRate(k.Goodput.OutputTokensPerSecond), obj)
	} else {
		first = fmt.Sprintf("knee not reached: safe capacity unknown; every level passed up to %s, goodput %s tok/s under %s",
			fmtLoad(k.OfferedLoad, k.Unit), fmtRate(k.Goodput.OutputTokensPerSecond), obj)
	}
	where := "at the knee"
	if !k.Reached {
		where = "at the highest passing level" // a lower bound on capacity, not a knee
	}
	second := fmt.Sprintf("  %s (level %d): goodput %s req/s (%s requests met every SLO threshold); output %s tok/s in all",
		where, k.Level, fmtRate(k.Goodput.RequestsPerSecond), thousands(float64(k.Goodput.Requests), 0), fmtRate(k.OutputTokPerSec))
	if k.SeedGoodputTokPerSec > 0 {
		second += fmt.Sprintf("; seed formula %s tok/s", fmtRate(k.SeedGoodputTokPerSec))
	}
	return []string{first, second}
}

// findWarning returns the first warning with code.
func findWarning(ws []metrics.Warning, code string) (metrics.Warning, bool) {
	for _, w := range ws {
		if w.Code == code {
			return w, true
		}
	}
	return metrics.Warning{}, false
}

// warningLine formats a warning: "few_samples (level 3): message".
func warningLine(w metrics.Warning) string {
	if w.Level < 0 {
		return w.Code + ": " + w.Message
	}
	return fmt.Sprintf("%s (level %d): %s", w.Code, w.Level, w.Message)
}

// partialLine is the interruption notice, with run.json's reason when it
// has one, or "" for a complete run.
func partialLine(run results.Run) string {
	if !run.Partial && !run.Result.Partial {
		return ""
	}
	s := "PARTIAL: interrupted"
	if run.PartialReason != "" {
		s = "PARTIAL: " + run.PartialReason
	} else if r := run.Result.StopReason; r != "" && r != sweep.StopInterrupted {
		s += " (" + string(r) + ")"
	}
	return s + fmt.Sprintf("; results cover %d level(s)", len(run.Result.Levels))
}

// verdictText is a level's verdict for a table cell: "PASS", "FAIL
// ttft_p99<=500ms", "FAIL client-limited", or "-" without an SLO.
func verdictText(res sweep.Result, l sweep.LevelOutcome) string {
	v := l.Verdict
	if v.Pass {
		if res.Objective.IsZero() {
			return "-"
		}
		return "PASS"
	}
	why := append([]string(nil), v.Failing...)
	if v.ClientLimited {
		why = append(why, "client-limited")
	}
	if v.NoSuccess {
		why = append(why, "no-success")
	}
	if len(why) == 0 {
		return "FAIL"
	}
	return "FAIL " + strings.Join(why, ",")
}

// levelFlags lists a level's caveats: client-limited or capped, partial.
func levelFlags(l sweep.LevelOutcome) string {
	var f []string
	if c := clientFlag(l.Summary.Client); c != "" {
		f = append(f, c)
	}
	if l.Partial {
		f = append(f, "partial")
	}
	return strings.Join(f, ",")
}
