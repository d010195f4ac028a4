package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gollm-bench/gollm-bench/stats"
)

// Units of a Distribution.
const (
	UnitMS     = "ms"     // latencies: recorded in µs, reported in ms
	UnitTokens = "tokens" // token counts: recorded and reported as integers
)

// Histogram geometry (docs/metrics.md#distributions: 3 significant digits,
// latencies in µs). Every histogram of a unit has the same geometry, so
// merges are exact.
const (
	sigFigs = 3
	// maxFiniteMicros is the largest finite latency recorded, 1 h; longer
	// latencies are clamped to it.
	maxFiniteMicros = int64(time.Hour / time.Microsecond)
	// infMicros stands for +Inf (a failed request in an error-adjusted
	// distribution). It is the latency histograms' highest trackable value,
	// two hours, which no finite latency reaches after clamping.
	infMicros = 2 * maxFiniteMicros
	// maxTokens is the largest token count recorded; larger ones are clamped.
	maxTokens = int64(1) << 30
)

func newLatencyHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, infMicros, sigFigs)
}

func newTokenHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, maxTokens, sigFigs)
}

func newHistogram(unit string) (*hdrhistogram.Histogram, error) {
	switch unit {
	case UnitMS:
		return newLatencyHistogram(), nil
	case UnitTokens:
		return newTokenHistogram(), nil
	}
	return nil, fmt.Errorf("metrics: unknown distribution unit %q (want %q or %q)", unit, UnitMS, UnitTokens)
}

// micros converts a duration to whole µs (rounded), clamped to [0, 1 h].
func micros(d time.Duration) int64 {
	us := int64((d + time.Microsecond/2) / time.Microsecond)
	return min(max(us, 0), maxFiniteMicros)
}

// recordLatency records d, clamped to [0, 1 h], in µs.
func recordLatency(h *hdrhistogram.Histogram, d time.Duration) {
	_ = h.RecordValue(micros(d)) // in range by construction
}

// recordInf records one +Inf value (a failure) in a latency histogram.
func recordInf(h *hdrhistogram.Histogram) {
	_ = h.RecordValue(infMicros)
}

// recordTokens records n tokens, clamped to [0, 2^30].
func recordTokens(h *hdrhistogram.Histogram, n int64) {
	_ = h.RecordValue(min(max(n, 0), maxTokens))
}

// divisor converts recorded values to reported ones (µs to ms for latencies).
// Dividing, rather than multiplying by 1e-3, keeps 9527 µs at 9.527 ms exactly.
func divisor(unit string) float64 {
	if unit == UnitMS {
		return 1e3
	}
	return 1
}

// isInf reports whether v, read from a histogram of unit, stands for +Inf.
func isInf(h *hdrhistogram.Histogram, unit string, v int64) bool {
	return unit == UnitMS && h.ValuesAreEquivalent(v, infMicros)
}

// distributionOf summarises h. Every figure comes from the histogram, so
// the summary of merged histograms equals the merge of summaries exactly.
// memo, which may be nil, is shared by the distributions of one summary.
func distributionOf(h *hdrhistogram.Histogram, unit string, memo rankMemo) Distribution {
	d := Distribution{Unit: unit, Count: h.TotalCount()}
	if d.Count == 0 {
		return d
	}
	f := divisor(unit)
	conv := func(v int64) float64 {
		if isInf(h, unit, v) {
			return math.Inf(1)
		}
		return float64(v) / f
	}
	d.Min = conv(h.Min())
	d.Max = conv(h.Max())
	if math.IsInf(d.Max, 1) { // count the failures: only then is the scan needed
		for _, b := range h.Distribution() {
			if b.Count > 0 && b.To >= infMicros {
				d.Inf += b.Count
			}
		}
	}
	if d.Inf > 0 {
		// The mean of a set holding +Inf is +Inf; its deviation is
		// undefined, reported as +Inf so it is never mistaken for a number.
		d.Mean, d.Std = math.Inf(1), math.Inf(1)
	} else {
		d.Mean = h.Mean() / f
		d.Std = h.StdDev() / f
	}
	d.MeanCI = meanInterval(h, d.Mean, d.Std, d.Inf > 0)
	as := answerQuantiles(h, []quantileQuery{{p: 50}, {p: 90}, {p: 95}, {p: 99}, {p: 99.9}}, memo)
	d.P50, d.P50CI = convertAnswer(h, unit, as[0])
	d.P90, d.P90CI = convertAnswer(h, unit, as[1])
	d.P95, d.P95CI = convertAnswer(h, unit, as[2])
	d.P99, d.P99CI = convertAnswer(h, unit, as[3])
	d.P999, d.P999CI = convertAnswer(h, unit, as[4])
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err == nil {
		d.Histogram = string(enc)
	}
	return d
}

// DecodeHistogram returns the HDR histogram held in d (values in µs for
// latencies, tokens for token counts). An empty distribution decodes to an
// empty histogram of its unit's geometry. The result is the caller's.
func DecodeHistogram(d Distribution) (*hdrhistogram.Histogram, error) {
	if d.Histogram == "" {
		if d.Count != 0 {
			return nil, fmt.Errorf("metrics: distribution has count %d but no histogram", d.Count)
		}
		return newHistogram(d.Unit)
	}
	h, err := hdrhistogram.Decode([]byte(d.Histogram))
	if err != nil {
		return nil, fmt.Errorf("metrics: decode %s histogram: %w", d.Unit, err)
	}
	if h.TotalCount() != d.Count {
		return nil, fmt.Errorf("metrics: histogram holds %d values but count is %d", h.TotalCount(), d.Count)
	}
	return h, nil
}

// Merge returns the distribution of the union of the samples of a and b,
// computed from the merged HDR histograms: exact, and independent of the
// order of merging. Both must have the same unit (an empty Unit is taken
// as the other's).
func Merge(a, b Distribution) (Distribution, error) {
	unit := a.Unit
	if unit == "" {
		unit = b.Unit
	}
	if unit == "" && a.Count == 0 && b.Count == 0 {
		return Distribution{}, nil // two zero distributions (an absent figure)
	}
	if b.Unit != "" && b.Unit != unit {
		return Distribution{}, fmt.Errorf("metrics: cannot merge a %s distribution with a %s one", a.Unit, b.Unit)
	}
	h, err := newHistogram(unit)
	if err != nil {
		return Distribution{}, err
	}
	for _, d := range []Distribution{a, b} {
		if d.Count == 0 && d.Histogram == "" {
			continue
		}
		x, err := DecodeHistogram(d)
		if err != nil {
			return Distribution{}, err
		}
		if dropped := h.Merge(x); dropped != 0 {
			return Distribution{}, fmt.Errorf("metrics: merge dropped %d out-of-range values", dropped)
		}
	}
	return distributionOf(h, unit, nil), nil
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100, e.g. 75 or 99.9) of
// d, in d's unit (ms or tokens), read from its histogram: +Inf when it lands
// on a failure of an error-adjusted distribution, NaN when d is empty or its
// histogram cannot be decoded.
func (d Distribution) Percentile(p float64) float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	h, err := DecodeHistogram(d)
	if err != nil {
		return math.NaN()
	}
	v := h.ValueAtPercentile(p)
	if isInf(h, d.Unit, v) {
		return math.Inf(1)
	}
	return float64(v) / divisor(d.Unit)
}

// FractionAtOrBelow returns the fraction (0..1) of d's samples at or below x,
// in d's unit (ms for latencies): the empirical CDF, read from the histogram.
// Samples indistinguishable from x at 3 significant digits count as at or
// below it; +Inf samples never do. It is NaN when d is empty or its histogram
// cannot be decoded. The SLO package uses it for the seed formula, goodput ≈
// throughput × P[TTFT ≤ x] × P[ITL ≤ y] (docs/metrics.md#the-seed-formula).
func (d Distribution) FractionAtOrBelow(x float64) float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	h, err := DecodeHistogram(d)
	if err != nil {
		return math.NaN()
	}
	if x < 0 {
		return 0
	}
	lim := x * divisor(d.Unit)
	var n int64
	for _, b := range h.Distribution() {
		if float64(b.From) > lim {
			break
		}
		if isInf(h, d.Unit, b.From) {
			continue
		}
		n += b.Count
	}
	return float64(n) / float64(h.TotalCount())
}

// jsonFloat is a float64 that encodes ±Inf as the strings "inf" and
// "-inf" and NaN as null, which encoding/json refuses to do.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsInf(v, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-inf"`), nil
	case math.IsNaN(v):
		return []byte(`null`), nil
	}
	return json.Marshal(v)
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	switch strings.ToLower(s) {
	case `"inf"`, `"+inf"`, `"infinity"`:
		*f = jsonFloat(math.Inf(1))
		return nil
	case `"-inf"`, `"-infinity"`:
		*f = jsonFloat(math.Inf(-1))
		return nil
	case `null`, `"nan"`:
		*f = jsonFloat(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return errors.New(`want a number, "inf", "-inf" or null`)
	}
	*f = jsonFloat(v)
	return nil
}

// distributionJSON mirrors Distribution with Inf-safe floats.
type distributionJSON struct {
	Unit      string          `json:"unit"`
	Count     int64           `json:"count"`
	Mean      jsonFloat       `json:"mean"`
	Std       jsonFloat       `json:"std"`
	Min       jsonFloat       `json:"min"`
	Max       jsonFloat       `json:"max"`
	P50       jsonFloat       `json:"p50"`
	P90       jsonFloat       `json:"p90"`
	P95       jsonFloat       `json:"p95"`
	P99       jsonFloat       `json:"p99"`
	P999      jsonFloat       `json:"p99_9"`
	MeanCI    *stats.Interval `json:"mean_ci,omitempty"`
	P50CI     *stats.Interval `json:"p50_ci,omitempty"`
	P90CI     *stats.Interval `json:"p90_ci,omitempty"`
	P95CI     *stats.Interval `json:"p95_ci,omitempty"`
	P99CI     *stats.Interval `json:"p99_ci,omitempty"`
	P999CI    *stats.Interval `json:"p99_9_ci,omitempty"`
	Inf       int64           `json:"inf,omitempty"`
	Histogram string          `json:"histogram,omitempty"`
}

// MarshalJSON encodes d with the keys of its struct tags; a +Inf figure
// (error-adjusted distributions) is written as the string "inf", a NaN as
// null. The intervals are written when d has samples, an unbounded side
// as null.
func (d Distribution) MarshalJSON() ([]byte, error) {
	j := distributionJSON{
		Unit: d.Unit, Count: d.Count,
		Mean: jsonFloat(d.Mean), Std: jsonFloat(d.Std), Min: jsonFloat(d.Min), Max: jsonFloat(d.Max),
		P50: jsonFloat(d.P50), P90: jsonFloat(d.P90), P95: jsonFloat(d.P95), P99: jsonFloat(d.P99), P999: jsonFloat(d.P999),
		Inf: d.Inf, Histogram: d.Histogram,
	}
	if d.Count > 0 {
		j.MeanCI, j.P50CI, j.P90CI, j.P95CI, j.P99CI, j.P999CI = &d.MeanCI, &d.P50CI, &d.P90CI, &d.P95CI, &d.P99CI, &d.P999CI
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes what MarshalJSON writes ("inf" back to +Inf).
func (d *Distribution) UnmarshalJSON(b []byte) error {
	var j distributionJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("metrics: distribution: %w", err)
	}
	*d = Distribution{
		Unit: j.Unit, Count: j.Count,
		Mean: float64(j.Mean), Std: float64(j.Std), Min: float64(j.Min), Max: float64(j.Max),
		P50: float64(j.P50), P90: float64(j.P90), P95: float64(j.P95), P99: float64(j.P99), P999: float64(j.P999),
		Inf: j.Inf, Histogram: j.Histogram,
	}
	for _, c := range []struct {
		dst *stats.Interval
		src *stats.Interval
	}{{&d.MeanCI, j.MeanCI}, {&d.P50CI, j.P50CI}, {&d.P90CI, j.P90CI}, {&d.P95CI, j.P95CI}, {&d.P99CI, j.P99CI}, {&d.P999CI, j.P999CI}} {
		if c.src != nil {
			*c.dst = *c.src
		}
	}
	return nil
}

// LatencyDistribution summarises latencies into a Distribution exactly as
// the Accumulator does (an HDR histogram in µs, 3 significant digits, with
// every figure and interval read from it). Latencies are clamped to
// [0, 1 h].
func LatencyDistribution(latencies []time.Duration) Distribution {
	return ErrorAdjustedDistribution(latencies, 0)
}

// ErrorAdjustedDistribution is LatencyDistribution with failures more
// samples at +Inf, as the Accumulator builds TTFTErrorAdjusted and
// E2EErrorAdjusted.
func ErrorAdjustedDistribution(latencies []time.Duration, failures int64) Distribution {
	h := newLatencyHistogram()
	for _, d := range latencies {
		recordLatency(h, d)
	}
	for range failures {
		recordInf(h)
	}
	return distributionOf(h, UnitMS, nil)
}
