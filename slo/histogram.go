package slo

import (
	"errors"
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// errNoHistogram means a Distribution has samples but no encoded histogram.
var errNoHistogram = errors.New("no encoded histogram")

// decode returns the distribution's HDR histogram (values in µs for latency).
func decode(d metrics.Distribution) (*hdrhistogram.Histogram, error) {
	if d.Histogram == "" {
		return nil, errNoHistogram
	}
	h, err := hdrhistogram.Decode([]byte(d.Histogram))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// statistic returns the term's statistic of a latency distribution, in ms.
// The stored fields (Mean, P50, P90, P95, P99, P999, Max) are used when they
// match, so verdicts agree with the reported numbers; any other percentile
// is read from the encoded histogram (µs, hdrhistogram-go ValueAtPercentile).
func statistic(d metrics.Distribution, t Term) (float64, error) {
	if d.Count == 0 {
		return math.NaN(), errors.New("no samples")
	}
	if t.Mean {
		return d.Mean, nil
	}
	switch t.Percentile {
	case 50:
		return d.P50, nil
	case 90:
		return d.P90, nil
	case 95:
		return d.P95, nil
	case 99:
		return d.P99, nil
	case 99.9:
		return d.P999, nil
	case 100:
		return d.Max, nil
	}
	h, err := decode(d)
	if err != nil {
		return math.NaN(), fmt.Errorf("p%s needs the histogram: %w", formatNumber(t.Percentile), err)
	}
	return float64(h.ValueAtPercentile(t.Percentile)) / 1000, nil
}

// cdf returns P[X <= xMs] for a latency distribution from its encoded
// histogram (values in µs). A value counts when the lowest value of its HDR
// bucket is <= x, which errs by at most the histogram's resolution (3
// significant digits, 0.1 %).
func cdf(d metrics.Distribution, xMs float64) (float64, error) {
	if d.Count == 0 {
		return 0, errors.New("no samples")
	}
	h, err := decode(d)
	if err != nil {
		return 0, err
	}
	total := h.TotalCount()
	if total == 0 {
		return 0, errors.New("empty histogram")
	}
	xUs := xMs * 1000
	var below int64
	for _, b := range h.Distribution() {
		if float64(b.From) > xUs {
			break
		}
		below += b.Count
	}
	return float64(below) / float64(total), nil
}
