package slo

import (
	"errors"
	"fmt"
	"math"
)

// Validate reports every problem of o at once (errors.Join): a term that
// Parse would not have produced (an unknown metric, a latency term
// without one statistic, a percentile outside (0, 100], a missing or
// misdirected operator, a threshold that is negative, NaN or infinite, an
// error_rate above 1), which matters for an Objective built by hand; and
// a statistic constrained by more than one term, such as
// "ttft_p99<=1s,ttft_p99<=2s", whose verdict would hang on the tightest
// term while the others only mislead a reader. Parse keeps repeated
// terms; a CLI calls Validate to refuse them. Each message names the
// term by its position (1-based) and says the fix.
func (o Objective) Validate() error {
	var errs []error
	first := map[string]Term{}
	for i, t := range o.Terms {
		if err := t.check(); err != nil {
			errs = append(errs, fmt.Errorf("slo: term %d (%s): %w", i+1, termText(t), err))
			continue
		}
		name := t.Name()
		if prev, ok := first[name]; ok {
			errs = append(errs, fmt.Errorf("slo: %s is constrained twice (%s and %s): give each statistic once, with the threshold you mean",
				name, termText(prev), termText(t)))
			continue
		}
		first[name] = t
	}
	return errors.Join(errs...)
}

// check applies the rules of the grammar (docs/metrics.md#the-slo) to a
// term however it was built; parseTerm ends with it, so that Parse and
// Validate agree. Its message says the fix, with no position.
func (t Term) check() error {
	lower := t.Metric == MetricOutputTPS
	switch {
	case t.Metric.Latency():
		if t.Mean && t.Percentile != 0 {
			return fmt.Errorf("both Mean and Percentile %v are set: a latency term takes one statistic; keep Percentile (e.g. 99) or Mean", t.Percentile)
		}
		if !t.Mean && !(t.Percentile > 0 && t.Percentile <= 100) {
			return fmt.Errorf("percentile %v is out of range: set Percentile in (0, 100], e.g. 99 for %s_p99, or Mean", t.Percentile, t.Metric)
		}
	case t.Metric == MetricErrorRate || lower:
		if t.Mean || t.Percentile != 0 {
			return fmt.Errorf("%s takes no statistic: leave Percentile 0 and Mean false", t.Metric)
		}
	default:
		return fmt.Errorf("unknown metric %q: valid metrics are %s", t.Metric, validMetrics)
	}
	switch {
	case t.Op != OpLE && t.Op != OpLT && t.Op != OpGE && t.Op != OpGT:
		return fmt.Errorf("operator %q: want %q or %q (upper bound) or %q or %q (lower bound)", t.Op, OpLE, OpLT, OpGE, OpGT)
	case lower && t.Op.upper():
		return fmt.Errorf("%s is a lower bound: use %q or %q, e.g. output_tps>=1000", t.Metric, OpGE, OpGT)
	case !lower && !t.Op.upper():
		return fmt.Errorf("%s is an upper bound: use %q or %q, e.g. %s<=%s", t.Name(), OpLE, OpLT, t.Name(), example(t.Metric))
	}
	switch {
	case math.IsNaN(t.Threshold) || math.IsInf(t.Threshold, 0) || t.Threshold < 0:
		return fmt.Errorf("threshold %v: want a finite number >= 0 (%s)", t.Threshold, thresholdUnit(t.Metric))
	case t.Metric == MetricErrorRate && t.Threshold > 1:
		return fmt.Errorf("threshold %v: error_rate is a fraction in [0, 1], e.g. 0.005 for 0.5 %%", t.Threshold)
	}
	return nil
}

// thresholdUnit says what a threshold of m is in.
func thresholdUnit(m Metric) string {
	switch m {
	case MetricErrorRate:
		return "a fraction in [0, 1]"
	case MetricOutputTPS:
		return "tokens/s"
	default:
		return "ms"
	}
}

// termText is t as the user wrote it, or its canonical form.
func termText(t Term) string {
	if t.Text != "" {
		return t.Text
	}
	return t.String()
}

// Streamed reports whether m is measured only on a streamed response:
// every latency but e2e needs the arrival times of the first token and of
// the chunks, which a non-streaming (--no-stream) response does not give.
func (m Metric) Streamed() bool { return m.Latency() && m != MetricE2E }
