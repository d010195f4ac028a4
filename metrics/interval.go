package metrics

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gollm-bench/gollm-bench/stats"
)

// Intervals (docs/statistics.md). Every percentile a Distribution reports
// carries a distribution-free confidence interval from order statistics
// (stats.QuantileRanks), read from the HDR histogram, so that merged
// shards give exactly the intervals one process would; the mean carries a
// Student-t interval. Rates carry batch-means intervals (see Batches), and
// fractions Wilson intervals.

// subBucketBits is log2 of the histograms' sub-bucket count: 3 significant
// digits with a lowest discernible value of 1 give 2048 sub-buckets.
const subBucketBits = 11

// lowestEquivalent is the lowest value that the histograms (3 significant
// digits, lowest discernible value 1) record in the same bucket as v: the
// lower edge of v's bucket. hdrhistogram-go reports a percentile as the
// bucket's highest equivalent value; a lower confidence bound must use the
// lowest one, or it would claim more than the histogram knows.
func lowestEquivalent(v int64) int64 {
	if v < 1<<subBucketBits {
		return v
	}
	shift := uint(bits.Len64(uint64(v)) - subBucketBits)
	return v >> shift << shift
}

// rankPercentile is the percentile argument under which hdrhistogram-go
// returns the value of 1-based rank r among n: its rank rule is
// round(p/100 × n), clamped to [1, n].
func rankPercentile(r, n int64) float64 { return 100 * float64(r) / float64(n) }

// valuesAtRanks returns the histogram's values (highest equivalent) at the
// 1-based ranks, in one pass. Every rank must be in [1, h.TotalCount()].
func valuesAtRanks(h *hdrhistogram.Histogram, ranks []int64) []int64 {
	n := h.TotalCount()
	ps := make([]float64, len(ranks))
	for i, r := range ranks {
		ps[i] = rankPercentile(r, n)
	}
	return h.ValueAtPercentilesSlice(ps)
}

// hdrRank is hdrhistogram-go's rank for the p-th percentile (0 < p ≤ 100)
// of n values: round(p/100 × n), clamped to [1, n]. Every percentile we
// report is the value at this rank.
func hdrRank(p float64, n int64) int64 {
	r := int64(p/100*float64(n) + 0.5)
	return min(max(r, 1), n)
}

// quantileQuery asks for the p-th percentile of a histogram holding n
// values, with failures more values counted as +Inf above them (the
// error-adjusted view: the population is N = n + failures).
type quantileQuery struct {
	p        float64 // 0 < p < 100
	failures int64
}

// quantileAnswer is a percentile and its interval, in recorded units (µs
// or tokens) before conversion; ±Inf marks an unbounded side or a failure.
type quantileAnswer struct {
	value  float64
	lo, hi float64
}

// rankMemo remembers stats.QuantileRanks by sample size and percentile:
// the distributions of one summary mostly share a few sample sizes (every
// ok request has a TTFT, an E2E, an ISL and an OSL). A nil rankMemo
// remembers nothing.
type rankMemo map[rankKey][2]int64

type rankKey struct {
	n int64
	p float64
}

func (m rankMemo) ranks(n int64, p float64) (lo, hi int64) {
	if r, ok := m[rankKey{n, p}]; ok {
		return r[0], r[1]
	}
	lo, hi = stats.QuantileRanks(n, p/100, stats.Confidence)
	if m != nil {
		m[rankKey{n, p}] = [2]int64{lo, hi}
	}
	return lo, hi
}

// answerQuantiles reads each query's percentile and its confidence
// interval from h in a single pass over the histogram. A rank past the
// histogram's n values lands on a failure (+Inf).
func answerQuantiles(h *hdrhistogram.Histogram, qs []quantileQuery, memo rankMemo) []quantileAnswer {
	n := h.TotalCount()
	out := make([]quantileAnswer, len(qs))
	if n == 0 && len(qs) > 0 {
		// Only failures, or nothing: every value is +Inf or unknown.
		for i, q := range qs {
			if q.failures == 0 {
				out[i] = quantileAnswer{value: math.NaN(), lo: math.Inf(-1), hi: math.Inf(1)}
				continue
			}
			lo, _ := memo.ranks(q.failures, q.p)
			l := math.Inf(1)
			if lo == 0 {
				l = math.Inf(-1)
			}
			out[i] = quantileAnswer{value: math.Inf(1), lo: l, hi: math.Inf(1)}
		}
		return out
	}
	type need struct {
		rank    int64
		i, kind int // kind 0 value, 1 lo, 2 hi
	}
	var needs []need
	for i, q := range qs {
		total := n + q.failures
		lo, hi := memo.ranks(total, q.p)
		out[i] = quantileAnswer{value: math.Inf(1), lo: math.Inf(1), hi: math.Inf(1)}
		if lo == 0 {
			out[i].lo = math.Inf(-1)
		}
		for kind, r := range [3]int64{hdrRank(q.p, total), lo, hi} {
			if r >= 1 && r <= n {
				needs = append(needs, need{rank: r, i: i, kind: kind})
			}
		}
	}
	slices.SortFunc(needs, func(a, b need) int { return int(a.rank - b.rank) })
	ranks := make([]int64, len(needs))
	for k, nd := range needs {
		ranks[k] = nd.rank
	}
	vals := valuesAtRanks(h, ranks)
	for k, nd := range needs {
		v := vals[k]
		switch nd.kind {
		case 0:
			out[nd.i].value = float64(v)
		case 1:
			out[nd.i].lo = float64(lowestEquivalent(v))
		case 2:
			out[nd.i].hi = float64(v)
		}
	}
	return out
}

// convertAnswer turns an answer in recorded units into the distribution's
// unit, mapping the latency histograms' +Inf marker to +Inf.
func convertAnswer(h *hdrhistogram.Histogram, unit string, a quantileAnswer) (float64, stats.Interval) {
	conv := func(v float64) float64 {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return v
		}
		if isInf(h, unit, int64(v)) {
			return math.Inf(1)
		}
		return v / divisor(unit)
	}
	return conv(a.value), stats.Interval{Lo: conv(a.lo), Hi: conv(a.hi)}
}

// meanInterval is the Student-t interval of a histogram's mean, in the
// unit's reporting scale; [+Inf, +Inf] when it holds a failure.
func meanInterval(h *hdrhistogram.Histogram, mean, std float64, hasInf bool) stats.Interval {
	if hasInf {
		return stats.Interval{Lo: math.Inf(1), Hi: math.Inf(1)}
	}
	n := h.TotalCount()
	sd := std
	if n > 1 {
		sd = std * math.Sqrt(float64(n)/float64(n-1)) // sample, not population, deviation
	}
	return stats.MomentsInterval(mean, sd, n, stats.Confidence)
}

// Quantile returns the p-th percentile of d (0 < p < 100) with its
// confidence interval, in d's unit, counting failures additional samples
// as +Inf above every recorded one: the error-adjusted percentile that SLO
// verdicts judge (a failed request never met a latency objective). With
// failures = 0 it is the plain percentile, and for p in {50, 90, 95, 99,
// 99.9} it equals the stored figure and interval. The value is +Inf when
// the rank lands on a failure; a side of the interval is ±Inf when no
// order statistic bounds it. The error is non-nil when d has no encoded
// histogram.
func (d Distribution) Quantile(p float64, failures int64) (float64, stats.Interval, error) {
	if !(p > 0 && p < 100) {
		return math.NaN(), stats.Interval{}, fmt.Errorf("metrics: percentile %v outside (0, 100)", p)
	}
	h, err := DecodeHistogram(d)
	if err != nil {
		return math.NaN(), stats.Interval{}, err
	}
	a := answerQuantiles(h, []quantileQuery{{p: p, failures: max(failures, 0)}}, nil)[0]
	v, ci := convertAnswer(h, d.Unit, a)
	return v, ci, nil
}

// FractionAtOrBelowWithFailures is FractionAtOrBelow over the population
// of d's samples plus failures samples at +Inf: the share of requests that
// met a threshold x when failures count as misses. NaN when there is no
// sample and no failure.
func (d Distribution) FractionAtOrBelowWithFailures(x float64, failures int64) float64 {
	total := d.Count + max(failures, 0)
	if total == 0 {
		return math.NaN()
	}
	if d.Count == 0 {
		return 0
	}
	f := d.FractionAtOrBelow(x)
	if math.IsNaN(f) {
		return f
	}
	return f * float64(d.Count) / float64(total)
}
