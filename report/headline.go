package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// headline is the top of report.html: the verdict in one line and the
// cards of the figures that decide.
type headline struct {
	Verdict string
	Class   string // "pass", "fail", "inconclusive" or "none": the verdict's colour
	Cards   []card
	// Where says which level the cards describe.
	Where string
}

// card is one headline figure: value and unit, its 95 % interval (or the
// knee's bracket) below, and a note; a card without a value says why.
type card struct {
	Name     string
	Value    string
	Unit     string
	Interval string
	Note     string
	Missing  bool
	Absent   string // the value shown when Missing: "not measured", "none"
}

// headlineOf builds the headline from the run and its scorecard.
func headlineOf(run results.Run, sc scorecard.Scorecard) headline {
	res := run.Result
	h := headline{}
	h.Verdict, h.Class = verdictLine(run)
	perf := sc.Performance
	if lv, why, ok := run.ReferenceLevel(); ok && perf.KneeLevel != nil {
		h.Where = fmt.Sprintf("level %d, %s", lv.Index, why)
		if kneeReached(res) {
			h.Where = fmt.Sprintf("the knee (level %d)", lv.Index)
		}
	}
	h.Cards = append(h.Cards, kneeCard(res))
	h.Cards = append(h.Cards, figureCard("Goodput", perf.GoodputTokS, perf.GoodputTokSCI, 1, "tokens/s",
		goodputNote(res, perf), "no level to describe"))
	cur := sc.Cost.Currency
	if cur == "" {
		cur = "EUR"
	}
	h.Cards = append(h.Cards, figureCard("Cost per 1M output tokens", sc.Cost.CPMEUR1M, sc.Cost.CPMEUR1MCI, 1, cur,
		"at goodput, from "+costSource(sc.Cost), "give the deployment's cost ("+cliFlag("gpu-cost-eur-h")+" or "+cliFlag("opencost")+")"))
	whNote := "GPU energy"
	if e := sc.Energy; e.Source != "" {
		whNote = "GPU energy from " + e.Source
		if e.WhPerTokenBasis == "pod" {
			whNote = "pod energy (Kepler)"
		}
	}
	whNote += energyNotes(sc.Energy)
	h.Cards = append(h.Cards, figureCard("Energy per output token", sc.Energy.WhPerToken, sc.Energy.WhPerTokenCI, 1000, "mWh",
		whNote, "no GPU energy source ("+cliFlag("energy")+")"+energyNotes(sc.Energy)))
	h.Cards = append(h.Cards, figureCard("TTFT p99", perf.TTFTP99Ms, perf.TTFTP99MsCI, 1, "ms", "time to first token", "no TTFT samples"))
	h.Cards = append(h.Cards, figureCard("ITL p95", perf.ITLP95Ms, perf.ITLP95MsCI, 1, "ms", "per token, per request", "no ITL samples"))
	return h
}

// verdictLine states the run's verdict in one line, with its class.
func verdictLine(run results.Run) (string, string) {
	res := run.Result
	obj := res.Objective.String()
	k := res.Knee
	switch {
	case res.Objective.IsZero():
		return "No SLO given: the levels were measured, not judged, so there is no knee (give " + cliFlag("slo") + ").", "none"
	case res.Kind == sweep.KindLevels:
		var pass, fail, inc int
		for _, l := range res.Levels {
			switch l.Verdict.Outcome {
			case slo.OutcomePass:
				pass++
			case slo.OutcomeFail:
				fail++
			default:
				inc++
			}
		}
		class := "pass"
		switch {
		case fail > 0:
			class = "fail"
		case inc > 0:
			class = "inconclusive"
		}
		return fmt.Sprintf("%d of %d levels PASS, %d FAIL, %d INCONCLUSIVE under %s.", pass, len(res.Levels), fail, inc, obj), class
	case k != nil && k.Reached:
		return fmt.Sprintf("PASS up to %s: the knee, bracketed %s–%s, under %s.",
			fmtLoad(k.OfferedLoad, k.Unit), fmtRate(k.BracketLo), fmtLoad(k.BracketHi, k.Unit), obj), "pass"
	case k != nil:
		return fmt.Sprintf("Knee not reached: every level passed up to %s under %s; safe capacity unknown (raise the load).",
			fmtLoad(k.OfferedLoad, k.Unit), obj), "inconclusive"
	case res.Partial && len(completePasses(res)) > 0:
		passed := completePasses(res)
		return fmt.Sprintf("INCONCLUSIVE: the sweep stopped early, before it could bracket a knee; %s %s passed %s.",
			plural(len(passed), "level", "levels"), levelList(passed), obj), "inconclusive"
	case len(res.Undecided) > 0:
		return fmt.Sprintf("INCONCLUSIVE: no complete level passed %s%s and %s %s undecided; longer levels would decide.", obj, partialPasses(res),
			plural(len(res.Undecided), "level", "levels"), levelList(res.Undecided)), "inconclusive"
	}
	if w, ok := findWarning(res.Warnings, sweep.WarnKneeBelowRange); ok {
		return "FAIL: the knee lies below the tested range: " + w.Message, "fail"
	}
	return "FAIL: no complete level passed " + obj + partialPasses(res) + ".", "fail"
}

// kneeCard is the knee with its bracket.
func kneeCard(res sweep.Result) card {
	c := card{Name: "Knee"}
	k := res.Knee
	switch {
	case res.Objective.IsZero():
		c.Missing, c.Absent, c.Note = true, "no SLO", "give "+cliFlag("slo")+" to judge levels and find the knee"
	case k == nil && res.Kind == sweep.KindLevels:
		c.Missing, c.Absent, c.Note = true, "not searched", "run judges fixed levels; sweep finds the knee"
	case k == nil:
		c.Missing, c.Absent, c.Note = true, "none", "no level passed the SLO"
	default:
		c.Value, c.Unit = fmtRate(k.OfferedLoad), k.Unit
		if k.Unit == sweep.UnitConcurrency {
			c.Unit = "concurrent"
		}
		if k.Reached {
			c.Interval = fmt.Sprintf("bracket %s–%s", fmtRate(k.BracketLo), fmtRate(k.BracketHi))
			c.Note = fmt.Sprintf("highest passing load; level %d", k.Level)
		} else {
			c.Value = "≥ " + c.Value
			c.Interval = "not reached"
			c.Note = "every level passed: a lower bound"
		}
	}
	return c
}

// goodputNote adds the goodput in req/s.
func goodputNote(res sweep.Result, p scorecard.Performance) string {
	if res.Objective.IsZero() {
		return "no SLO: all successful output"
	}
	if p.GoodputReqS != nil {
		return fmt.Sprintf("%s req/s met every SLO threshold", fmtRate(*p.GoodputReqS))
	}
	return "requests that met every SLO threshold"
}

// costSource names where the cost rate came from.
func costSource(c scorecard.Cost) string {
	rate := ""
	if c.EURPerHour != nil {
		rate = fmtRate(*c.EURPerHour) + " " + cmpOr(c.Currency, "EUR") + "/h"
	}
	switch c.Source {
	case "opencost":
		return strings.TrimSpace("OpenCost " + rate)
	case "":
		return strings.TrimSpace(rate)
	}
	return strings.TrimSpace(rate + " (" + c.Source + ")")
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// figureCard formats a scorecard figure, scaled by scale into unit, with
// its interval.
func figureCard(name string, v *float64, ci *stats.Interval, scale float64, unit, note, missing string) card {
	c := card{Name: name, Unit: unit, Note: note}
	if v == nil || !isFinite(*v) {
		c.Missing, c.Absent, c.Note, c.Unit = true, "not measured", missing, ""
		return c
	}
	c.Value, c.Interval = splitEstimate(estimateText(*v, ci, scale))
	if c.Interval != "" {
		c.Interval = "95% CI " + c.Interval
	}
	return c
}

// splitEstimate splits an estimate formatted by estimateText into the
// figure and its interval: "459", "[446, 559]" ("" without an interval).
func splitEstimate(s string) (string, string) {
	if i := strings.Index(s, " ["); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// scoreRow is one row of the readable scorecard table.
type scoreRow struct {
	Section, Name, Value, Unit, Note string
	Missing                          bool
}

// scorecardRows lists the scorecard's figures with units, rounded to
// their intervals, section by section; absent optional figures are left
// out, absent headline ones say "not measured".
func scorecardRows(sc scorecard.Scorecard) []scoreRow {
	var rows []scoreRow
	sec := ""
	add := func(name string, v *float64, ci *stats.Interval, scale float64, unit string, always bool) {
		if v == nil || !isFinite(*v) {
			if always {
				rows = append(rows, scoreRow{Section: sec, Name: name, Value: "not measured", Missing: true})
			}
			return
		}
		rows = append(rows, scoreRow{Section: sec, Name: name, Value: estimateText(*v, ci, scale), Unit: unit})
	}
	text := func(name, v, unit string) {
		if v != "" {
			rows = append(rows, scoreRow{Section: sec, Name: name, Value: v, Unit: unit})
		}
	}
	sec = "Status"
	status := string(sc.Status)
	if len(sc.Missing) > 0 {
		status += " (missing " + strings.Join(sc.Missing, ", ") + ")"
	}
	rows = append(rows, scoreRow{Section: sec, Name: "status", Value: status, Missing: sc.Status != scorecard.StatusAuditable})
	p := sc.Performance
	sec = "Performance"
	if p.KneeLevel != nil {
		text("level described", fmt.Sprint(*p.KneeLevel), "")
	}
	switch {
	case p.KneeRateReqS != nil:
		text("knee", fmtRate(*p.KneeRateReqS), "req/s")
	case p.KneeConcurrency != nil:
		text("knee", fmt.Sprint(*p.KneeConcurrency), "concurrent requests")
	}
	if b := p.KneeBracket; b != nil {
		hi := "not reached"
		if b.High != nil {
			hi = fmtRate(*b.High)
		}
		unit := b.Unit
		if unit == "req_s" {
			unit = "req/s"
		}
		text("knee bracket", fmtRate(b.Low)+" – "+hi, unit)
	}
	if p.SLOOutcome != "" {
		text("SLO at that level", strings.ToUpper(p.SLOOutcome), "")
	}
	add("goodput", p.GoodputTokS, p.GoodputTokSCI, 1, "tokens/s", true)
	add("goodput", p.GoodputReqS, nil, 1, "req/s", false)
	add("output throughput", p.OutputTokS, p.OutputTokSCI, 1, "tokens/s", false)
	add("peak output throughput", p.PeakOutputTokS, nil, 1, "tokens/s", false)
	add("TTFT p99", p.TTFTP99Ms, p.TTFTP99MsCI, 1, "ms", true)
	add("ITL p95", p.ITLP95Ms, p.ITLP95MsCI, 1, "ms per token", true)
	add("E2E p99", p.E2EP99Ms, nil, 1, "ms", false)
	add("error rate", p.ErrorRate, p.ErrorRateCI, 100, "%", false)
	add("measured window", p.WindowS, nil, 1, "s", false)
	if p.OutputTokens != nil {
		text("output tokens in the window", thousands(float64(*p.OutputTokens), 0), "tokens")
	}
	c := sc.Cost
	sec = "Cost"
	cur := cmpOr(c.Currency, "EUR")
	add("deployment cost", c.EURPerHour, nil, 1, cur+"/h", false)
	add("cost per 1M output tokens (CPM)", c.CPMEUR1M, c.CPMEUR1MCI, 1, cur, true)
	add("cost per good request", c.CostPerRequestEUR, nil, 1, cur, false)
	add("cost of the window", c.CostWindowEUR, nil, 1, cur, false)
	text("cost source", c.Source, "")
	if t := c.Tokens; t != nil {
		add("CPM at token prices", t.CPMEUR1M, nil, 1, cur, false)
		add("blended price per 1M tokens", t.BlendedEUR1M, nil, 1, cur, false)
	}
	if l := c.LiteLLM; l != nil {
		add("CPM from LiteLLM's spend", l.CPM1M, nil, 1, "", false)
	}
	e := sc.Energy
	sec = "Energy"
	text("source", e.Source, "")
	if e.GPUName != "" {
		text("GPUs", fmt.Sprintf("%d × %s", e.GPUCount, e.GPUName), "")
	}
	add("energy in the window", e.EnergyJ, nil, 1/3600.0, "Wh", false)
	add("mean power", e.MeanW, nil, 1, "W", false)
	add("energy per output token", e.WhPerToken, e.WhPerTokenCI, 1000, "mWh", true)
	add("energy per output token", e.JPerToken, nil, 1, "J", false)
	add("PUE", e.PUE, nil, 1, "", false)
	add("energy per output token × PUE", e.WhPerTokenPUE, e.WhPerTokenPUECI, 1000, "mWh", false)
	add("idle baseline subtracted", e.IdleBaselineW, nil, 1, "W", false)
	if e.Source != "" && e.Source != "none" && !e.Valid {
		rows = append(rows, scoreRow{Section: sec, Name: "reading", Value: "not valid (counter reset or no counter): per-token figures withheld", Missing: true})
	}
	if pe := e.Pod; pe != nil {
		sec = "Pod energy (Kepler)"
		text("pods", strings.TrimSpace(pe.Selector+" "+parens(pe.Generation)), "")
		if !pe.Valid {
			rows = append(rows, scoreRow{Section: sec, Name: "reading", Value: "no valid reading (no matching series or a counter reset): not measured", Missing: true})
		}
		add("pod energy in the window", pe.EnergyJ, nil, 1/3600.0, "Wh", false)
		add("CPU part", pe.CPUJ, nil, 1/3600.0, "Wh", false)
		add("GPU part", pe.GPUJ, nil, 1/3600.0, "Wh", false)
		add("pod energy per output token", pe.WhPerToken, pe.WhPerTokenCI, 1000, "mWh", false)
		add("GPU counters − pod GPU (gap)", pe.GPUGapJ, nil, 1/3600.0, "Wh", false)
		add("gap, share of the GPU counters", pe.GPUGapFraction, nil, 100, "%", false)
		add("Kepler's node GPU idle energy", pe.KeplerIdleJ, nil, 1/3600.0, "Wh", false)
		if pe.GapReason != "" {
			rows = append(rows, scoreRow{Section: sec, Name: "why they differ", Value: pe.GapReason})
		}
	}
	if pl := e.Plausibility; pl != nil {
		sec = "Plausibility"
		ref := pl.ReferenceWhPerToken
		add("reference energy per output token", &ref, nil, 1000, "mWh", false)
		text("reference source", pl.Source, "")
		ratio := pl.Ratio
		add("measured ÷ reference", &ratio, pl.RatioCI, 1, "×", false)
		rows = append(rows, scoreRow{Section: sec, Name: "verdict", Value: pl.Verdict,
			Note: fmt.Sprintf("plausible within a factor of %g of the reference", pl.Factor), Missing: pl.Verdict != scorecard.VerdictPlausible})
	}
	k := sc.Carbon
	sec = "Carbon"
	add("grid intensity", k.GridGCO2KWh, nil, 1, "gCO2/kWh", false)
	add("emissions per 1M output tokens", k.GCO2Per1MTokens, k.GCO2Per1MTokensCI, 1, "gCO2", false)
	return rows
}

// warnGroup is the warnings of one code: the levels they concern and
// their messages.
type warnGroup struct {
	Code     string
	Count    int
	Levels   string // "levels 0–9, 12", "run-wide"
	Message  string // the last message
	Messages []string
}

// groupWarnings groups warnings by code, in order of first appearance.
func groupWarnings(ws []metrics.Warning) []warnGroup {
	var order []metrics.WarningCode
	by := map[metrics.WarningCode][]metrics.Warning{}
	for _, w := range ws {
		if _, ok := by[w.Code]; !ok {
			order = append(order, w.Code)
		}
		by[w.Code] = append(by[w.Code], w)
	}
	var out []warnGroup
	for _, code := range order {
		g := by[code]
		var levels []int
		runWide := false
		for _, w := range g {
			if w.Level < 0 {
				runWide = true
			} else if !slices.Contains(levels, w.Level) {
				levels = append(levels, w.Level)
			}
		}
		slices.Sort(levels)
		var where []string
		if len(levels) > 0 {
			where = append(where, plural(len(levels), "level ", "levels ")+levelList(levels))
		}
		if runWide {
			where = append(where, "run-wide")
		}
		wg := warnGroup{Code: string(code), Count: len(g), Levels: strings.Join(where, "; "), Message: g[len(g)-1].Message}
		if len(g) > 1 {
			for _, w := range g {
				wg.Messages = append(wg.Messages, warningLine(w))
			}
		}
		out = append(out, wg)
	}
	return out
}

// energyNotes is what the energy card adds to its note: Kepler's pod
// energy per token and its gap to the GPU counters, and the plausibility
// verdict against the reference ("; pod (Kepler) 0.61 mWh/token, GPU gap
// 3.3 %; 1.2× the reference (MLPerf ...): plausible").
func energyNotes(e scorecard.Energy) string {
	var b strings.Builder
	if pe := e.Pod; pe != nil && e.WhPerTokenBasis != scorecard.BasisPod {
		switch {
		case !pe.Valid:
			b.WriteString("; pod energy (Kepler): not measured")
		case pe.WhPerToken != nil:
			b.WriteString("; pod (Kepler) " + fmtSig(*pe.WhPerToken*1000) + " mWh/token")
		}
		if pe.Valid && pe.GPUGapFraction != nil {
			b.WriteString(", GPU gap " + fmtPercent(*pe.GPUGapFraction))
		}
	}
	if pl := e.Plausibility; pl != nil {
		fmt.Fprintf(&b, "; %s× the reference (%s): %s", fmtSig(pl.Ratio), pl.Source, pl.Verdict)
	}
	return b.String()
}

// parens is "(s)", or "" for an empty s.
func parens(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// fmtSig formats v with 3 significant figures: "0.612", "1.2".
func fmtSig(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// scorecardWarnings are the scorecard's own warnings about its telemetry
// figures, which run.json's warnings do not hold: the plausibility
// verdict against --reference, a reference with nothing to check, Wh/token
// from pod energy, and token prices with no tokens.
var scorecardWarnings = []metrics.WarningCode{scorecard.WarnImplausibleEnergy, scorecard.WarnPlausibilityOpen,
	scorecard.WarnReferenceUnchecked, scorecard.WarnEnergyFromPod, scorecard.WarnNoTokenCost}

// withScorecardWarnings returns ws followed by sc's scorecardWarnings that
// ws does not already hold, so that the console and report.html list them
// beside the run's.
func withScorecardWarnings(ws []metrics.Warning, sc scorecard.Scorecard) []metrics.Warning {
	out := slices.Clip(ws)
	for _, w := range sc.Warnings {
		if slices.Contains(scorecardWarnings, w.Code) && !slices.Contains(ws, w) {
			out = append(out, w)
		}
	}
	return out
}
