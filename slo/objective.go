package slo

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// Metric names a quantity an SLO term constrains (docs/metrics.md#the-slo).
type Metric string

// Metrics an SLO term may name. Latency metrics are compared in ms.
const (
	// MetricTTFT is time to first token, first_token_at − start (Record.LatencyStart). For the
	// level verdict and for goodput it is read as the larger of TTFT and
	// TTFT corrected (see Objective.Evaluate).
	MetricTTFT Metric = "ttft"
	// MetricTTFTCorrected is first_token_at − scheduled_at (wrk2's
	// coordinated-omission correction).
	MetricTTFTCorrected Metric = "ttft_corrected"
	// MetricITL is the per-request inter-token latency (E2E − TTFT) / (OSL − 1),
	// as AIPerf and GenAI-Perf define it (= TPOT).
	MetricITL Metric = "itl"
	// MetricICL is the inter-chunk latency: every gap between consecutive
	// token-carrying chunks (what vLLM calls ITL).
	MetricICL Metric = "icl"
	// MetricE2E is the end-to-end latency, last_token_at − start (Record.LatencyStart).
	MetricE2E Metric = "e2e"
	// MetricTTFOT is time to first output (non-reasoning) token, first_content_at − start (Record.LatencyStart).
	MetricTTFOT Metric = "ttfot"
	// MetricErrorRate is failed / (failed + ok) among requests sent in the window.
	MetricErrorRate Metric = "error_rate"
	// MetricOutputTPS is the level's output throughput, tokens/s.
	MetricOutputTPS Metric = "output_tps"
)

// Latency reports whether m is a latency metric (threshold in ms, with a
// percentile or mean statistic).
func (m Metric) Latency() bool {
	switch m {
	case MetricTTFT, MetricTTFTCorrected, MetricITL, MetricICL, MetricE2E, MetricTTFOT:
		return true
	}
	return false
}

// Op is a comparison operator of an SLO term.
type Op string

// Comparison operators. Latency and error_rate terms take an upper bound
// (<=, <); output_tps takes a lower bound (>=, >).
const (
	OpLE Op = "<="
	OpLT Op = "<"
	OpGE Op = ">="
	OpGT Op = ">"
)

// Holds reports whether "measured op threshold" is true. NaN never holds.
func (o Op) Holds(measured, threshold float64) bool {
	switch o {
	case OpLE:
		return measured <= threshold
	case OpLT:
		return measured < threshold
	case OpGE:
		return measured >= threshold
	case OpGT:
		return measured > threshold
	}
	return false
}

// upper reports whether o bounds the value from above.
func (o Op) upper() bool { return o == OpLE || o == OpLT }

// Term is one comparison of an Objective, e.g. ttft_p99<=500ms.
type Term struct {
	Metric Metric `json:"metric"`
	// Percentile is the statistic of a latency term, in (0, 100] (99.9 for
	// p99.9); 0 when Mean is set or the metric takes no statistic.
	Percentile float64 `json:"percentile,omitempty"`
	// Mean selects the arithmetic mean instead of a percentile.
	Mean bool `json:"mean,omitempty"`
	Op   Op   `json:"op"`
	// Threshold is in ms for latency metrics, a fraction in [0, 1] for
	// error_rate, and tokens/s for output_tps.
	Threshold float64 `json:"threshold"`
	// Text is the term as the user wrote it, trimmed; Column is its 1-based
	// byte column in the expression. Both are informational: String and
	// equality of meaning ignore them.
	Text   string `json:"text,omitempty"`
	Column int    `json:"column,omitempty"`
}

// Name is the term's left-hand side in canonical form: "ttft_p99",
// "itl_mean", "error_rate".
func (t Term) Name() string {
	switch {
	case !t.Metric.Latency():
		return string(t.Metric)
	case t.Mean:
		return string(t.Metric) + "_mean"
	default:
		return string(t.Metric) + "_p" + formatNumber(t.Percentile)
	}
}

// String returns the term in canonical form, which Parse reads back to an
// equal term: latency in ms, error_rate in % when that is exact (else a bare
// fraction), output_tps as a bare number of tokens/s.
func (t Term) String() string {
	return t.Name() + string(t.Op) + t.ValueString()
}

// ValueString returns the threshold with its canonical unit: "500ms",
// "0.5%", "1200".
func (t Term) ValueString() string {
	switch {
	case t.Metric.Latency():
		return formatNumber(t.Threshold) + "ms"
	case t.Metric == MetricErrorRate:
		pct := t.Threshold * 100
		if pct/100 == t.Threshold && !math.IsInf(pct, 0) {
			return formatNumber(pct) + "%"
		}
		return formatNumber(t.Threshold)
	default:
		return formatNumber(t.Threshold)
	}
}

// equal reports whether t and u mean the same (Text and Column ignored).
func (t Term) equal(u Term) bool {
	return t.Metric == u.Metric && t.Percentile == u.Percentile && t.Mean == u.Mean &&
		t.Op == u.Op && t.Threshold == u.Threshold
}

// Objective is a parsed SLO: every term must hold (docs/metrics.md#the-slo).
// The zero value is the empty objective, which has no terms. An Objective is
// immutable after Parse and safe for concurrent use.
type Objective struct {
	Terms []Term `json:"terms"`
}

// IsZero reports whether o has no terms (no SLO was given).
func (o Objective) IsZero() bool { return len(o.Terms) == 0 }

// String returns the canonical expression: terms in their original order,
// joined by commas, no spaces. Parse(o.String()) yields an Objective equal
// to o up to Text and Column.
func (o Objective) String() string {
	parts := make([]string, len(o.Terms))
	for i, t := range o.Terms {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// Equal reports whether o and p have the same terms in the same order,
// ignoring Text and Column.
func (o Objective) Equal(p Objective) bool {
	if len(o.Terms) != len(p.Terms) {
		return false
	}
	for i := range o.Terms {
		if !o.Terms[i].equal(p.Terms[i]) {
			return false
		}
	}
	return true
}

// MaxLag returns the default --max-lag (docs/metrics.md#client-health): 5 %
// of the tightest threshold among the terms that a late start can change,
// or metrics.DefaultMaxLag (10 ms) when o has none. A level whose
// scheduling-lag p99 exceeds it is client-limited.
//
// Scheduling lag (sent_at − scheduled_at) delays a request's start; it
// enters only the latencies measured from the intended send time: TTFT
// (judged as the larger of TTFT and TTFT corrected under an open loop),
// TTFT corrected, TTFOT and E2E (LagSensitive). ITL, ICL, error_rate and
// output_tps do not set it: an itl_p95<=50ms term alone would otherwise
// call a 2.5 ms lag client-limited, although no lag changes an ITL.
func (o Objective) MaxLag() time.Duration {
	tightest := math.Inf(1)
	for _, t := range o.Terms {
		if t.Metric.LagSensitive() && t.Threshold < tightest {
			tightest = t.Threshold
		}
	}
	if math.IsInf(tightest, 1) {
		return metrics.DefaultMaxLag
	}
	return time.Duration(tightest * 0.05 * float64(time.Millisecond))
}

// LagSensitive reports whether a late start of the client can change m: the
// latencies that include, or may be judged by a form that includes, the
// time from the intended send to the actual one (TTFT, TTFT corrected,
// TTFOT, E2E). The gaps between tokens (ITL, ICL) and the error rate do not
// include it.
func (m Metric) LagSensitive() bool {
	switch m {
	case MetricTTFT, MetricTTFTCorrected, MetricTTFOT, MetricE2E:
		return true
	}
	return false
}

// SeedThresholds returns the tightest ttft and itl thresholds of o, in ms,
// for SeedGoodput; ok is false unless o has both a ttft and an itl term.
func (o Objective) SeedThresholds() (ttftMs, itlMs float64, ok bool) {
	ttftMs, itlMs = math.Inf(1), math.Inf(1)
	for _, t := range o.Terms {
		switch t.Metric {
		case MetricTTFT:
			ttftMs = min(ttftMs, t.Threshold)
		case MetricITL:
			itlMs = min(itlMs, t.Threshold)
		}
	}
	if math.IsInf(ttftMs, 1) || math.IsInf(itlMs, 1) {
		return 0, 0, false
	}
	return ttftMs, itlMs, true
}

// formatNumber prints v in the shortest decimal form that parses back to v,
// without an exponent (the grammar has none).
func formatNumber(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
