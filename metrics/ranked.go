package metrics

import (
	"math"
	"sort"
)

// Ranked is the sorted sample held in a Distribution's histogram, as
// stats.OrderStats in the distribution's unit (ms or tokens): the rank-th
// smallest value lies between Lower(rank), the low edge of its histogram
// bucket, and Upper(rank), the high edge, which is what the
// distribution's percentiles report. A value recorded as +Inf (a failure
// in an error-adjusted distribution) is +Inf on both sides. The zero
// Ranked is empty. Safe for concurrent reads.
type Ranked struct {
	cum    []int64   // cumulative counts of the non-empty buckets
	lo, hi []float64 // their edges, in the unit
}

// Ranked reads d's histogram into its order statistics. An empty
// distribution gives an empty Ranked; the error is non-nil when d has
// samples but no decodable histogram.
func (d Distribution) Ranked() (Ranked, error) {
	var r Ranked
	if d.Count == 0 {
		return r, nil
	}
	h, err := DecodeHistogram(d)
	if err != nil {
		return r, err
	}
	f := divisor(d.Unit)
	var n int64
	for _, b := range h.Distribution() {
		if b.Count <= 0 {
			continue
		}
		n += b.Count
		lo, hi := float64(b.From)/f, float64(b.To)/f
		if isInf(h, d.Unit, b.From) {
			lo, hi = math.Inf(1), math.Inf(1)
		}
		r.cum = append(r.cum, n)
		r.lo = append(r.lo, lo)
		r.hi = append(r.hi, hi)
	}
	return r, nil
}

// Len is the number of values.
func (r Ranked) Len() int64 {
	if len(r.cum) == 0 {
		return 0
	}
	return r.cum[len(r.cum)-1]
}

// bucket is the index of the bucket holding the rank-th value.
func (r Ranked) bucket(rank int64) int {
	i := sort.Search(len(r.cum), func(i int) bool { return r.cum[i] >= rank })
	return min(i, len(r.cum)-1)
}

// Lower is the low edge of the bucket of the rank-th smallest value
// (1-based, in [1, Len()]).
func (r Ranked) Lower(rank int64) float64 { return r.lo[r.bucket(rank)] }

// Upper is the high edge of the bucket of the rank-th smallest value
// (1-based, in [1, Len()]): the value the distribution's percentiles
// report.
func (r Ranked) Upper(rank int64) float64 { return r.hi[r.bucket(rank)] }

// BatchRates returns the rates of a level's batches: the SubWindows
// sub-window counts (a Batches field) grouped into n equal batches, each
// batch's total over its length, windowS/n seconds. These are the values
// behind the batch-means interval of the rate (docs/statistics.md). Nil
// when n < 2, the counts are not SubWindows long, or the window is empty.
func BatchRates(counts []float64, n int, windowS float64) []float64 {
	if n < 2 || len(counts) != SubWindows || SubWindows%n != 0 || !(windowS > 0) {
		return nil
	}
	return batchRates(counts, n, windowS)
}
