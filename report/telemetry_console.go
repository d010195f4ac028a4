package report

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/stats"
)

// telemetryLines states on the console the scorecard's energy, cost and
// carbon, which are measured over the window of the level the scorecard
// describes (the knee, or Run.ReferenceLevel's choice), e.g.
//
//	energy at the knee (level 3): 0.71 [0.66, 0.76] mWh per output token; 2.31 Wh over 12.0 s, 690 W mean (nvml, 1 × NVIDIA H200)
//	cost at the knee (level 3): 1.2 [1.1, 1.3] EUR per 1M output tokens at goodput, from 3.5 EUR/h; 12 [11, 13] gCO2 per 1M output tokens
//
// Per-token figures carry the interval of the token rate they divide by
// (docs/metrics.md#energy); the window's energy is a counter difference
// and has none. A source that gave no valid reading says so. No lines
// when the run had no energy source and no cost.
func telemetryLines(run results.Run, sc scorecard.Scorecard) []string {
	where := "at the scorecard's level"
	if lv, why, ok := run.ReferenceLevel(); ok {
		where = fmt.Sprintf("at level %d (%s)", lv.Index, why)
		if kneeReached(run.Result) {
			where = fmt.Sprintf("at the knee (level %d)", lv.Index)
		}
	}
	var lines []string
	if e := sc.Energy; e.Source != "" && e.Source != "none" {
		lines = append(lines, "energy "+where+": "+energyText(e, sc.Performance.WindowS))
	}
	c, k := sc.Cost, sc.Carbon
	var parts []string
	if c.CPMEUR1M != nil && isFinite(*c.CPMEUR1M) {
		parts = append(parts, estimateText(*c.CPMEUR1M, c.CPMEUR1MCI, 1)+" "+cmpOr(c.Currency, "EUR")+" per 1M output tokens at goodput, from "+costSource(c))
	}
	if k.GCO2Per1MTokens != nil && isFinite(*k.GCO2Per1MTokens) {
		parts = append(parts, estimateText(*k.GCO2Per1MTokens, k.GCO2Per1MTokensCI, 1)+" gCO2 per 1M output tokens")
	}
	if len(parts) > 0 {
		lines = append(lines, "cost "+where+": "+strings.Join(parts, "; "))
	}
	return lines
}

// energyText is the energy line's body: per-token figure first, then the
// window's energy, mean power, source and GPUs.
func energyText(e scorecard.Energy, windowS *float64) string {
	src := e.Source
	if e.GPUName != "" {
		src += fmt.Sprintf(", %d × %s", e.GPUCount, e.GPUName)
	}
	if !e.Valid || e.EnergyJ == nil {
		return "no valid reading (" + src + "): per-token figures withheld"
	}
	var b strings.Builder
	if e.WhPerToken != nil && isFinite(*e.WhPerToken) {
		b.WriteString(estimateText(*e.WhPerToken, e.WhPerTokenCI, 1000) + " mWh per output token; ")
	}
	b.WriteString(fmtSig(*e.EnergyJ/3600) + " Wh")
	if windowS != nil {
		fmt.Fprintf(&b, " over %.1f s", *windowS)
	}
	if e.MeanW != nil {
		b.WriteString(", " + fmtSig(*e.MeanW) + " W mean")
	}
	if e.IdleBaselineW != nil {
		b.WriteString(", idle baseline " + fmtSig(*e.IdleBaselineW) + " W subtracted")
	}
	return b.String() + " (" + src + ")" + energyNotes(e)
}

// estimateText is v × scale rounded to the precision of its interval,
// which follows in brackets when there is one.
func estimateText(v float64, ci *stats.Interval, scale float64) string {
	var iv stats.Interval
	if ci != nil {
		iv = ci.Scale(scale)
	}
	return fmtEstimate(v*scale, iv)
}
