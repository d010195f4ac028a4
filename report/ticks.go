package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// linearTicks marks a linear axis at a "nice" step (1, 2 or 5 × 10^k)
// giving about five labels, each printed with the decimals the step needs
// and no more: "25", "50", "75", never "25.00". With integer set the step
// is at least 1 (concurrencies, request counts).
type linearTicks struct {
	integer bool
}

// Ticks implements plot.Ticker.
func (t linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		if isFinite(lo) {
			return []plot.Tick{{Value: lo, Label: tickLabel(lo, 1)}}
		}
		return nil
	}
	step := niceStep((hi - lo) / 5)
	if (hi-lo)/step < 3.5 {
		step = smallerStep(step) // at least four labels
	}
	if t.integer {
		step = math.Max(step, 1)
	}
	var ticks []plot.Tick
	first := math.Ceil(lo/step-1e-9) * step
	for v := first; v <= hi+step*1e-9; v += step {
		v = math.Round(v/step) * step // no 0.30000000000000004
		ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v, step)})
		// Unlabelled minor ticks halfway.
		if m := v + step/2; m < hi {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	return ticks
}

// niceStep rounds x up to 1, 2 or 5 × 10^k.
func niceStep(x float64) float64 {
	if !(x > 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if x <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// smallerStep is the nice step below step: 10 → 5 → 2 → 1.
func smallerStep(step float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	switch m := math.Round(step / p); {
	case m >= 5:
		return 2 * p
	case m >= 2:
		return p
	}
	return p / 2
}

// tickLabel prints v with the decimals step needs, thousands separated.
func tickLabel(v, step float64) string {
	decimals := 0
	if step > 0 && step < 1 {
		decimals = int(math.Ceil(-math.Log10(step) - 1e-9))
		// 0.25 needs two decimals, 0.5 one.
		for decimals < 6 && math.Abs(step*math.Pow(10, float64(decimals))-math.Round(step*math.Pow(10, float64(decimals)))) > 1e-6 {
			decimals++
		}
	}
	if math.Abs(v) < step*1e-6 {
		v = 0
	}
	return thousands(v, decimals)
}

// logTicks marks a log axis with at least three labels: powers of ten
// when the range spans several decades, else 1-2-5 steps (or 1-2-3-5-7),
// else linear steps inside the range. Minor ticks are unlabelled.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return linearTicks{}.Ticks(lo, hi)
	}
	decades := math.Log10(hi / lo)
	sets := [][]float64{{1, 2, 5}, {1, 2, 3, 5, 7}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}
	if decades > 2.5 {
		sets = append([][]float64{{1}}, sets...)
	}
	for _, set := range sets {
		var ticks []plot.Tick
		labelled := 0
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			p := math.Pow(10, e)
			for m := 1; m <= 9; m++ {
				v := float64(m) * p
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				tk := plot.Tick{Value: v}
				for _, s := range set {
					if s == float64(m) {
						tk.Label = logLabel(v)
						labelled++
					}
				}
				ticks = append(ticks, tk)
			}
		}
		if labelled >= 3 {
			return ticks
		}
	}
	// Less than a decade with few round values: linear steps.
	return linearTicks{}.Ticks(lo, hi)
}

// logLabel prints a 1-9 × 10^k value without trailing zeros.
func logLabel(v float64) string {
	if v >= 1 {
		return thousands(math.Round(v), 0)
	}
	return strconv.FormatFloat(v, 'g', 1, 64)
}
