package harness

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
)

// repeatSpread computes, for the headline figures (TTFT p99, ITL p95,
// output tokens/s and, with an SLO, goodput tokens/s) and every latency
// statistic the SLO names, the value of each run and the between-run
// interval, beside the pooled summary's within-run interval.
func repeatSpread(o slo.Objective, runs []metrics.Summary, pooled metrics.Summary) *metrics.Repeats {
	rep := &metrics.Repeats{Runs: len(runs)}
	terms := []slo.Term{
		{Metric: slo.MetricTTFT, Percentile: 99, Op: slo.OpLE},
		{Metric: slo.MetricITL, Percentile: 95, Op: slo.OpLE},
	}
	for _, t := range o.Terms {
		if t.Metric.Latency() {
			terms = append(terms, t)
		}
	}
	seen := map[string]bool{}
	for _, t := range terms {
		if seen[t.Name()] {
			continue
		}
		seen[t.Name()] = true
		values := make([]float64, len(runs))
		for i, s := range runs {
			values[i] = t.Measure(s).Value
		}
		rep.Figures = append(rep.Figures, metrics.NewRepeatFigure(t.Name(), metrics.UnitMS, values, t.Measure(pooled).Interval))
	}
	rate := func(name string, of func(metrics.Summary) float64, within stats.Interval) {
		values := make([]float64, len(runs))
		for i, s := range runs {
			values[i] = of(s)
		}
		rep.Figures = append(rep.Figures, metrics.NewRepeatFigure(name, metrics.UnitTokensPerSecond, values, within))
	}
	rate(metrics.FigureOutputTokS, func(s metrics.Summary) float64 { return s.OutputTokensPerSecond }, pooled.OutputTokensPerSecondCI)
	if !o.IsZero() {
		rate(metrics.FigureGoodputTokS, func(s metrics.Summary) float64 { return s.Goodput.OutputTokensPerSecond }, pooled.Goodput.OutputTokensPerSecondCI)
	}
	return rep
}

// repeatWarnings says which figures moved more between runs than their
// within-run intervals account for.
func repeatWarnings(level int, rep *metrics.Repeats) []metrics.Warning {
	if rep == nil {
		return nil
	}
	var ws []metrics.Warning
	for _, f := range rep.Figures {
		if !f.RunToRun {
			continue
		}
		ws = append(ws, metrics.Warning{Code: WarnRunToRunVariance, Level: level, Message: fmt.Sprintf(
			"level %d: %s varied between its %d runs (sd %.4g %s, runs %v) more than its within-run interval %v accounts for; its verdict and scorecard figure use the between-run interval %v",
			level, f.Name, rep.Runs, f.SD, f.Unit, roundAll(f.Values), f.Within, f.Between)})
	}
	return ws
}

// roundAll rounds values to 4 significant digits, for messages.
func roundAll(values []float64) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprintf("%.4g", v)
	}
	return out
}
