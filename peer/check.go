package peer

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// Bounds beyond which a figure is not a measurement but a damaged file:
// a latency of more than a day (ms), a rate of more than a million
// requests per second.
const (
	maxLatencyMs = 24 * 3600 * 1000
	maxRate      = 1e6
)

// FieldError is a value of a result file that cannot be what its field
// names: a string where a number is expected, a negative latency or
// count, a rate beyond any server's. Field is the file's key (dotted
// path), or the metric and the key it was read from.
type FieldError struct {
	Field string
	Msg   string
}

// Error implements error: "successes.count: is -4; a count ...".
func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// fieldCheck collects FieldErrors while a strict reader walks a file
// (strictNode); the reader refuses the file with err() when any is found.
// Not safe for concurrent use: one per Read.
type fieldCheck struct{ errs []error }

func (c *fieldCheck) add(field, msg string) {
	c.errs = append(c.errs, &FieldError{Field: field, Msg: msg})
}

// err joins the problems found, nil when none.
func (c *fieldCheck) err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return fmt.Errorf("impossible values, so the file is damaged or not what it claims to be: %w", errors.Join(c.errs...))
}

// quoteValue spells a non-number the way the file wrote it.
func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return "the string " + strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// checkLevels is the check every Reader's result passes (Read applies
// it): latencies, lengths, throughputs and rates must be finite and not
// negative after unit conversion, latencies below a day, rates positive
// and below a million req/s. Those make the error, naming each field.
// (Speculative decoding's figures are checked by the reader, which knows
// their unit.) A percentile set that decreases (p99 below p50) is a
// warning naming the field.
func checkLevels(res *Result) error {
	var c fieldCheck
	for i, lv := range res.Levels {
		at := fmt.Sprintf("level %q", lv.Label)
		for _, m := range []struct {
			name, unit string
			st         Stats
			def        Definition
			limit      float64
		}{
			{"TTFT", "ms", lv.TTFT, lv.Definitions.TTFT, maxLatencyMs},
			{"ITL", "ms", lv.ITL, lv.Definitions.ITL, maxLatencyMs},
			{"ICL", "ms", lv.ICL, lv.Definitions.ICL, maxLatencyMs},
			{"TPOT", "ms", lv.TPOT, lv.Definitions.TPOT, maxLatencyMs},
			{"E2E", "ms", lv.E2E, lv.Definitions.E2E, maxLatencyMs},
			{"ISL", "tokens", lv.ISL, Definition{}, math.MaxFloat64},
			{"OSL", "tokens", lv.OSL, Definition{}, math.MaxFloat64},
		} {
			field := func(stat string) string {
				f := at + " " + m.name + " " + stat
				if src := m.def.Source; src != "" {
					if strings.HasPrefix(src, "*") { // vLLM's "*_ttft_ms": name the key
						key := stat
						if stat == "p50" {
							key = "median"
						}
						src = key + src[1:]
					}
					f += " (from " + src + ")"
				}
				return f
			}
			for _, s := range []struct {
				stat string
				v    Value
			}{{"mean", m.st.Mean}, {"p50", m.st.P50}, {"p90", m.st.P90}, {"p95", m.st.P95}, {"p99", m.st.P99}, {"std", m.st.Std}} {
				if msg := badFigure(s.v, m.unit, m.limit); msg != "" {
					c.add(field(s.stat), msg)
				}
			}
			prev, prevName := Value{}, ""
			for _, s := range []struct {
				stat string
				v    Value
			}{{"p50", m.st.P50}, {"p90", m.st.P90}, {"p95", m.st.P95}, {"p99", m.st.P99}} {
				if !s.v.OK {
					continue
				}
				if prev.OK && s.v.V < prev.V {
					res.Warnings = append(res.Warnings, metrics.Warning{Code: WarnPercentilesDecrease, Level: i,
						Message: fmt.Sprintf("%s is %s %s, below %s %s %s: percentiles cannot decrease, so the file's figures are suspect", field(s.stat), s.v, m.unit, prevName, prev, m.unit)})
				}
				prev, prevName = s.v, s.stat
			}
		}
		for _, f := range []struct {
			name, unit string
			v          Value
			def        Definition
		}{
			{"output throughput", "tokens/s", lv.OutputTokPerSec, lv.Definitions.OutputTokPerSec},
			{"request throughput", "req/s", lv.ReqPerSec, lv.Definitions.ReqPerSec},
			{"goodput", "req/s", lv.GoodputReqPerSec, Definition{}},
			{"goodput", "tokens/s", lv.GoodputTokPerSec, Definition{}},
		} {
			name := at + " " + f.name
			if f.def.Source != "" {
				name += " (from " + f.def.Source + ")"
			}
			if msg := badFigure(f.v, f.unit, math.MaxFloat64); msg != "" {
				c.add(name, msg)
			}
		}
		if lv.SpecDecode == nil { // else it is the acceptance length, checked by the reader
			if msg := badFigure(lv.TokensPerChunk, "tokens", math.MaxFloat64); msg != "" {
				c.add(at+" tokens per chunk", msg)
			}
		}
		if r := lv.Rate; r.OK && (r.V <= 0 || r.V > maxRate || math.IsInf(r.V, 0) || math.IsNaN(r.V)) {
			c.add(at+" rate", fmt.Sprintf("is %g req/s; a rate is positive and below %g req/s", r.V, float64(maxRate)))
		}
	}
	return c.err()
}

// badFigure says what is wrong with a present figure in unit: not
// finite, negative, or beyond limit; "" when nothing is (or it is missing).
func badFigure(v Value, unit string, limit float64) string {
	switch {
	case !v.OK:
		return ""
	case math.IsNaN(v.V) || math.IsInf(v.V, 0):
		return fmt.Sprintf("is %v %s after conversion; a measurement is finite", v.V, unit)
	case v.V < 0:
		return fmt.Sprintf("is %g %s; it cannot be negative", v.V, unit)
	case v.V > limit:
		return fmt.Sprintf("is %g %s, more than a day; not a latency", v.V, unit)
	}
	return ""
}
