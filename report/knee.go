package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// kneeLines states the knee verdict in words, from Result.Knee, the
// undecided levels and the sweep's warnings, e.g.
//
//	knee: 7.4 req/s (bracket 7.4–7.8; levels 12, 13 undecided), goodput 3,120 [3,050, 3,190] tok/s under ttft_p99<=500ms
//
// The goodput figure is request-level goodput at the knee (DistServe):
// the output tokens/s of the requests that met every SLO threshold, the
// scorecard's goodput_tok_s, with its batch-means interval. The second
// line gives it in req/s, the knee level's whole output throughput, and
// the seed formula's cross-check.
func kneeLines(res sweep.Result) []string {
	lines := kneeVerdictLines(res)
	if c := costLine(res); c != "" {
		lines = append(lines, c)
	}
	return lines
}

// costLine states what the decision cost: "  cost: 3,412 requests in 6 min
// 12 s over 14 levels; the knee was decided by levels 11 (pass, 765
// requests, 1 min 38 s) and 12 (fail, 96 requests, 11 s)". "" for a run
// without levels or a result written before costs were kept.
func costLine(res sweep.Result) string {
	if len(res.Levels) == 0 || res.Cost.Seconds == 0 {
		return ""
	}
	line := fmt.Sprintf("  cost: %s requests in %s over %d %s", thousands(float64(res.Cost.Requests), 0),
		fmtSpan(res.Cost.Seconds), len(res.Levels), plural(len(res.Levels), "level", "levels"))
	k := res.Knee
	if k == nil {
		return line
	}
	describe := func(index int, verdict string) string {
		for _, l := range res.Levels {
			if l.Index == index {
				return fmt.Sprintf("%d (%s, %s requests, %s)", index, verdict, thousands(float64(l.Cost.Requests), 0), fmtSpan(l.Cost.Seconds))
			}
		}
		return fmt.Sprint(index)
	}
	if k.Reached && k.FailLevel >= 0 {
		return line + fmt.Sprintf("; the knee was decided by levels %s and %s", describe(k.Level, "pass"), describe(k.FailLevel, "fail"))
	}
	return line + "; the highest pass is level " + describe(k.Level, "pass")
}

// fmtSpan formats seconds for people: "48 s", "6 min 12 s", "1 h 02 min".
func fmtSpan(sec float64) string {
	s := int64(math.Round(sec))
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %02d min", s/3600, s%3600/60)
}

// kneeVerdictLines is the knee and the goodput at it (kneeLines without
// the cost).
func kneeVerdictLines(res sweep.Result) []string {
	obj := res.Objective.String()
	k := res.Knee
	if res.Objective.IsZero() {
		return []string{"knee: no SLO given, so no verdicts and no knee"}
	}
	undecided := ""
	if len(res.Undecided) > 0 {
		undecided = fmt.Sprintf("%s %s undecided", plural(len(res.Undecided), "level", "levels"), levelList(res.Undecided))
	}
	if k == nil {
		if w, ok := findWarning(res.Warnings, sweep.WarnKneeBelowRange); ok {
			return []string{"knee: below the tested range: " + w.Message}
		}
		if res.Kind == sweep.KindLevels {
			return []string{"knee: not searched (gollm-bench run judges each level; gollm-bench sweep finds the knee); see the verdicts"}
		}
		if passed := completePasses(res); res.Partial && len(passed) > 0 {
			// Not "no level passed": some did, and the sweep stopped
			// before it could bracket a knee above them.
			also := ""
			if undecided != "" {
				also = "; " + undecided
			}
			return []string{fmt.Sprintf("knee: none found: the sweep stopped early (partial) before it could bracket one; %s %s passed %s%s", plural(len(passed), "level", "levels"), levelList(passed), obj, also)}
		}
		if undecided != "" {
			return []string{fmt.Sprintf("knee: undecided: no complete level passed %s%s, and %s: their intervals straddle a threshold; longer levels (a longer level length, or a precision target) would decide them", obj, partialPasses(res), undecided)}
		}
		return []string{"knee: none: no complete level passed " + obj + partialPasses(res)}
	}
	bracket := ""
	if undecided != "" {
		bracket = "; " + undecided
	}
	goodput := fmtEstimate(k.Goodput.OutputTokensPerSecond, k.Goodput.OutputTokensPerSecondCI)
	var first string
	if k.Reached {
		first = fmt.Sprintf("knee: %s (bracket %s–%s%s), goodput %s tok/s under %s",
			fmtLoad(k.OfferedLoad, k.Unit), fmtRate(k.BracketLo), fmtRate(k.BracketHi), bracket, goodput, obj)
	} else {
		also := ""
		if undecided != "" {
			also = " (" + undecided + ")"
		}
		first = fmt.Sprintf("knee not reached: safe capacity unknown; every level decided passed up to %s%s, goodput %s tok/s under %s",
			fmtLoad(k.OfferedLoad, k.Unit), also, goodput, obj)
	}
	where := "at the knee"
	if !k.Reached {
		where = "at the highest passing level" // a lower bound on capacity, not a knee
	}
	out := fmtRate(k.OutputTokPerSec)
	for _, l := range res.Levels {
		if l.Index == k.Level {
			out = fmtEstimate(k.OutputTokPerSec, l.Summary.OutputTokensPerSecondCI)
		}
	}
	second := fmt.Sprintf("  %s (level %d): goodput %s req/s (%s requests met every SLO threshold); output %s tok/s in all",
		where, k.Level, fmtEstimate(k.Goodput.RequestsPerSecond, k.Goodput.RequestsPerSecondCI),
		thousands(float64(k.Goodput.Requests), 0), out)
	if k.SeedGoodputTokPerSec > 0 {
		// A cross-check, printed to the precision of the goodput it checks.
		second += fmt.Sprintf("; seed formula %s tok/s", fmtRounded(k.SeedGoodputTokPerSec,
			shifted(k.Goodput.OutputTokensPerSecondCI, k.SeedGoodputTokPerSec-k.Goodput.OutputTokensPerSecond)))
	}
	return []string{first, second}
}

// shifted moves an interval by d (to print another figure at its precision).
func shifted(ci stats.Interval, d float64) stats.Interval {
	if ci.IsZero() {
		return ci
	}
	return stats.Interval{Lo: ci.Lo + d, Hi: ci.Hi + d}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// levelList formats level indexes compactly, runs of consecutive indexes
// as ranges, in the order given: "12, 13", "0–9, 12".
func levelList(levels []int) string {
	var parts []string
	for i := 0; i < len(levels); {
		j := i
		for j+1 < len(levels) && levels[j+1] == levels[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, fmt.Sprintf("%d–%d", levels[i], levels[j]))
		case j > i:
			parts = append(parts, fmt.Sprint(levels[i]), fmt.Sprint(levels[j]))
		default:
			parts = append(parts, fmt.Sprint(levels[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// findWarning returns the first warning with code.
func findWarning(ws []metrics.Warning, code metrics.WarningCode) (metrics.Warning, bool) {
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
		return string(w.Code) + ": " + w.Message
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
// ttft_p99<=500ms", "INCONCLUSIVE error_rate<=0.5%", "INCONCLUSIVE
// client-limited", or "-" without an SLO.
func verdictText(res sweep.Result, l sweep.LevelOutcome) string {
	v := l.Verdict
	switch v.Outcome {
	case slo.OutcomePass:
		if res.Objective.IsZero() {
			return "-"
		}
		return "PASS"
	case slo.OutcomeFail:
		why := append([]string(nil), v.Failing...)
		if v.NoSuccess {
			why = append(why, "no-success")
		}
		if len(why) == 0 {
			return "FAIL"
		}
		return "FAIL " + strings.Join(why, ",")
	}
	why := append([]string(nil), v.Undecided...)
	switch {
	case v.TooShort:
		why = []string{"too-short"}
	case v.ClientLimited:
		why = []string{"client-limited"}
	}
	if len(why) == 0 {
		return "INCONCLUSIVE"
	}
	return "INCONCLUSIVE " + strings.Join(why, ",")
}

// groupedWarningLines formats warnings one line per code, in order of
// first appearance: a code seen once is printed as it is; a code seen on
// several levels names them and shows the message of the last (the
// highest load seen, usually the one nearest the knee). run.json keeps
// every warning.
func groupedWarningLines(ws []metrics.Warning) []string {
	var order []metrics.WarningCode
	groups := map[metrics.WarningCode][]metrics.Warning{}
	for _, w := range ws {
		if _, ok := groups[w.Code]; !ok {
			order = append(order, w.Code)
		}
		groups[w.Code] = append(groups[w.Code], w)
	}
	var lines []string
	for _, code := range order {
		g := groups[code]
		if len(g) == 1 {
			lines = append(lines, warningLine(g[0]))
			continue
		}
		var levels []int
		seen := map[int]bool{}
		for _, w := range g {
			if w.Level >= 0 && !seen[w.Level] {
				seen[w.Level] = true
				levels = append(levels, w.Level)
			}
		}
		slices.Sort(levels)
		where := fmt.Sprintf("%d warnings", len(g))
		if len(levels) > 0 {
			where = fmt.Sprintf("%d warnings, %s %s", len(g), plural(len(levels), "level", "levels"), levelList(levels))
		}
		lines = append(lines, fmt.Sprintf("%s (%s); last: %s", code, where, g[len(g)-1].Message))
	}
	return lines
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
	if c := l.Summary.Continues; c != nil {
		f = append(f, fmt.Sprintf("continues %d", c.Level))
	}
	return strings.Join(f, ",")
}

// partialPasses names the levels that passed but were cut short (partial),
// which cannot be a knee: ", though level 3 passed before it was cut
// short (partial), so it cannot be the knee"; "" when none did.
func partialPasses(res sweep.Result) string {
	var idx []int
	for _, l := range res.Levels {
		if l.Partial && l.Verdict.Pass {
			idx = append(idx, l.Index)
		}
	}
	if len(idx) == 0 {
		return ""
	}
	what, verb := "level", "it"
	if len(idx) > 1 {
		what, verb = "levels", "they"
	}
	return fmt.Sprintf(" (%s %s passed but %s cut short, partial, so %s cannot be the knee)", what, levelList(idx), map[bool]string{true: "were", false: "was"}[len(idx) > 1], verb)
}

// completePasses lists the levels that passed and were not cut short.
func completePasses(res sweep.Result) []int {
	var idx []int
	for _, l := range res.Levels {
		if !l.Partial && l.Verdict.Pass {
			idx = append(idx, l.Index)
		}
	}
	return idx
}
