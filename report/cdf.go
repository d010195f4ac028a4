package report

import (
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// cdfPoint is one point of an empirical CDF: Fraction of the samples are
// at or below ValueMs (ms).
type cdfPoint struct {
	ValueMs  float64
	Fraction float64
}

// finiteLimitMicros bounds what is drawn. metrics records +Inf (a failed
// request in an error-adjusted histogram) as two hours in µs, and clamps
// finite latencies to one hour; values from one hour up are not drawn.
const finiteLimitMicros = int64(time.Hour / time.Microsecond)

// cdfPoints extracts the CDF of a latency distribution from its encoded
// HDR histogram (hdrhistogram-go V2 compressed encoding, base64, values
// in µs): the value at a fixed grid of quantiles (0.5 % steps, finer in
// the tail up to 99.99 %), so the plot has at most about 220 points
// whatever the sample count. This is data extraction, not a statistic:
// each point is the histogram's own ValueAtQuantile. When package metrics
// gains a Distribution.CDF, this should call it instead.
func cdfPoints(d metrics.Distribution) ([]cdfPoint, error) {
	if d.Count == 0 || d.Histogram == "" {
		return nil, nil
	}
	if d.Unit != "" && d.Unit != "ms" {
		return nil, fmt.Errorf("CDF of a %q distribution: want ms", d.Unit)
	}
	h, err := hdrhistogram.Decode([]byte(d.Histogram))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	if h.TotalCount() == 0 {
		return nil, nil
	}
	var qs []float64
	for q := 0; q <= 990; q += 5 {
		qs = append(qs, float64(q)/10)
	}
	qs = append(qs, 99.2, 99.4, 99.6, 99.8, 99.9, 99.95, 99.99, 100)
	out := make([]cdfPoint, 0, len(qs))
	for _, q := range qs {
		v := h.ValueAtQuantile(q)
		if v >= finiteLimitMicros {
			break // +Inf (failures) and clamped values are not drawn
		}
		p := cdfPoint{ValueMs: float64(v) / 1000, Fraction: q / 100}
		if n := len(out); n > 0 && out[n-1].ValueMs == p.ValueMs {
			out[n-1] = p // keep the highest fraction at a value
			continue
		}
		out = append(out, p)
	}
	return out, nil
}
