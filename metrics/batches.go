package metrics

import (
	"math"
	"slices"

	"github.com/gollm-bench/gollm-bench/stats"
)

// SubWindows is the number of equal sub-windows a level's window is cut
// into for the batch-means intervals of its rates.
const SubWindows = 20

// Batches holds, for each of the SubWindows equal sub-windows of a level's
// window, the counts behind its rates, so that their intervals can be
// computed by the method of batch means (docs/statistics.md) and
// recomputed exactly after shards are merged (their counts add). Each
// slice has SubWindows entries, or none for an empty window.
type Batches struct {
	// OutputTokens: output tokens whose chunk arrived in the sub-window
	// (scaled to each request's OutputTokens, as OutputTokensPerSecond).
	OutputTokens []float64 `json:"output_tokens,omitempty"`
	// GoodputTokens: the same, from good requests only.
	GoodputTokens []float64 `json:"goodput_tokens,omitempty"`
	// Completed: ok requests whose DoneAt fell in the sub-window.
	Completed []float64 `json:"completed,omitempty"`
	// GoodRequests: good requests sent in the sub-window.
	GoodRequests []float64 `json:"good_requests,omitempty"`
	// Used is the number of batches the intervals used: the sub-windows
	// are grouped into 20, 10 or 5 equal batches, the most whose length is
	// at least the median E2E latency of the level (a batch shorter than
	// a request is strongly correlated with its neighbours), and never
	// fewer than 5. 0 when there were no intervals.
	Used int `json:"used,omitempty"`
}

func newBatches() Batches {
	return Batches{
		OutputTokens:  make([]float64, SubWindows),
		GoodputTokens: make([]float64, SubWindows),
		Completed:     make([]float64, SubWindows),
		GoodRequests:  make([]float64, SubWindows),
	}
}

func (b Batches) clone() Batches {
	return Batches{
		OutputTokens: slices.Clone(b.OutputTokens), GoodputTokens: slices.Clone(b.GoodputTokens),
		Completed: slices.Clone(b.Completed), GoodRequests: slices.Clone(b.GoodRequests), Used: b.Used,
	}
}

// add adds q's counts to b's, sub-window by sub-window (shards of one
// level measured the same window).
func (b *Batches) add(q Batches) {
	for _, p := range []struct {
		dst *[]float64
		src []float64
	}{
		{&b.OutputTokens, q.OutputTokens}, {&b.GoodputTokens, q.GoodputTokens},
		{&b.Completed, q.Completed}, {&b.GoodRequests, q.GoodRequests},
	} {
		if len(p.src) == 0 {
			continue
		}
		if len(*p.dst) == 0 {
			*p.dst = make([]float64, len(p.src))
		}
		for i := range min(len(*p.dst), len(p.src)) {
			(*p.dst)[i] += p.src[i]
		}
	}
}

// batchCount picks the number of batches for a window of windowS seconds
// whose requests take e2eMedianS seconds (median E2E): the largest of 20,
// 10 and 5 whose batches are at least that long, else 5.
func batchCount(windowS, e2eMedianS float64) int {
	for _, n := range [...]int{20, 10} { // each divides SubWindows
		if math.IsNaN(e2eMedianS) || windowS/float64(n) >= e2eMedianS {
			return n
		}
	}
	return 5
}

// rateInterval is the batch-means interval of a rate over a window of
// windowS seconds whose sub-window counts are counts, grouped into n
// batches: mean ± t(n−1) × s/√n of the n batch rates, the lower bound
// clamped at 0 (a rate is not negative). The mean of the batch rates
// equals the rate over the whole window.
func rateInterval(counts []float64, n int, windowS float64) stats.Interval {
	if n < 2 || !(windowS > 0) {
		return stats.Interval{}
	}
	return pooledRateInterval(batchRates(counts, n, windowS))
}

// setIntervals fills the intervals of s's rates and fractions from its
// counts and batches: Wilson for the error rate and the good fraction,
// batch means for output tokens/s, req/s and the goodput rates. It
// assumes the distributions already carry theirs.
func setIntervals(s *Summary) {
	r := s.Requests
	s.Confidence = stats.Confidence
	s.ErrorRateCI = stats.Wilson(r.Failed, r.OK+r.Failed, stats.Confidence)
	s.Goodput.Fraction, s.Goodput.FractionCI = 0, stats.Interval{}
	if n := r.OK + r.Failed; n > 0 {
		s.Goodput.Fraction = float64(s.Goodput.Requests) / float64(n)
		s.Goodput.FractionCI = stats.Wilson(s.Goodput.Requests, n, stats.Confidence)
	}
	s.OutputTokensPerSecondCI, s.RequestsPerSecondCI = stats.Interval{}, stats.Interval{}
	s.Goodput.OutputTokensPerSecondCI, s.Goodput.RequestsPerSecondCI = stats.Interval{}, stats.Interval{}
	b := &s.Batches
	b.Used = 0
	if !(s.WindowSeconds > 0) || len(b.OutputTokens) != SubWindows {
		return
	}
	e2e := math.NaN()
	if s.E2E.Count > 0 {
		e2e = s.E2E.P50 / 1000
	}
	b.Used = batchCount(s.WindowSeconds, e2e)
	s.OutputTokensPerSecondCI = rateInterval(b.OutputTokens, b.Used, s.WindowSeconds)
	s.RequestsPerSecondCI = rateInterval(b.Completed, b.Used, s.WindowSeconds)
	s.Goodput.OutputTokensPerSecondCI = rateInterval(b.GoodputTokens, b.Used, s.WindowSeconds)
	s.Goodput.RequestsPerSecondCI = rateInterval(b.GoodRequests, b.Used, s.WindowSeconds)
}
