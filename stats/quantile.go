package stats

import "math"

// QuantileRanks returns the ranks of the order statistics that bound the
// p-quantile (0 < p < 1) of a sample of n independent draws from any
// continuous distribution with confidence at least conf: with X(1) ≤ … ≤
// X(n) the sorted sample and ξ the true quantile,
//
//	P(X(lo) ≤ ξ ≤ X(hi)) ≥ P(lo ≤ B < hi) ≥ conf,   B ~ Binomial(n, p),
//
// the classical distribution-free interval (Thompson 1936; Hahn & Meeker,
// Statistical Intervals, 1991, §5.2). Ranks are 1-based; lo = 0 means no
// lower bound exists at this confidence (the interval is open below) and
// hi = n+1 means no upper bound exists: the p99 of fewer than 299 samples
// has none, because even the sample maximum exceeds the true p99 with
// probability 1 − 0.99^n < 0.95.
//
// Among the rank pairs whose coverage reaches conf, QuantileRanks prefers
// pairs bounded on both sides, then an upper bound alone (latency
// objectives are upper bounds), then a lower bound alone; within the
// preferred kind it takes, among the pairs whose coverage is within half a
// point (coverTolerance) of the least coverage reached, the one with the
// most even tails, P(B < lo) against P(B ≥ hi): at large n the
// equal-tailed interval, about 1.96 standard deviations of B either side
// of np; at small n, where the binomial's steps are coarse, a pair that
// does not over-cover for the sake of symmetry. n ≤ 0 gives (0, 1):
// nothing is known.
func QuantileRanks(n int64, p, conf float64) (lo, hi int64) {
	if n <= 0 {
		return 0, 1
	}
	switch {
	case !(p > 0):
		// The minimum: X(1) bounds it from above, nothing from below.
		return 0, 1
	case !(p < 1):
		// The maximum: X(n) bounds it from below only.
		return n, n + 1
	}
	const eps = 1e-12
	f := newBinomialCDF(n, p)
	defer f.release()
	cov := func(l, u int64) float64 { return f.at(u-1) - f.at(l-1) }

	// Both sides bounded: 1 ≤ l < u ≤ n. For each l the smallest u that
	// reaches conf is found by a pointer that only moves up (pairs calls
	// visit for each). A first pass finds the least coverage reached; the
	// second takes, among the pairs within coverTolerance of it, the one
	// with the most even tails.
	pairs := func(from int64, visit func(l, u int64, c, lowTail, highTail float64) bool) {
		u := int64(2)
		for l := max(int64(1), f.lo, from); l <= n-1; l++ {
			lowTail := f.at(l - 1)
			if 1-lowTail < conf-eps {
				return // no u reaches conf, for this l or any larger one
			}
			u = max(u, l+1)
			for cov(l, u) < conf-eps {
				u++ // ends by u−1 = the table's last k, where F is 1
			}
			if u > n {
				return // a larger l only needs a larger u
			}
			if !visit(l, u, cov(l, u), lowTail, 1-f.at(u-1)) {
				return
			}
		}
	}
	minCov, from := math.Inf(1), int64(1)
	if alpha := 1 - conf; f.top <= min(coverTolerance, alpha/8) {
		// Fine steps (large n): the minimal u of each l makes its coverage
		// less than conf plus one term, so every pair lies within
		// coverTolerance of the least, and below the l whose tail is
		// alpha/4 the tails are too uneven to be the most even pair.
		minCov = conf
		from = f.search(alpha/4) + 1
	} else {
		pairs(1, func(_, _ int64, c, _, _ float64) bool { minCov = min(minCov, c); return true })
	}
	bestL, bestU := int64(-1), int64(-1)
	bestCov, bestSkew := math.Inf(1), math.Inf(1)
	pairs(from, func(l, u int64, c, lowTail, highTail float64) bool {
		if c > minCov+coverTolerance {
			// Past the even point no pair is more even than the best so
			// far; without one, look on.
			return bestL < 0 || lowTail <= highTail
		}
		skew := math.Abs(lowTail - highTail)
		if skew < bestSkew-eps || (math.Abs(skew-bestSkew) <= eps && c < bestCov) {
			bestL, bestU, bestCov, bestSkew = l, u, c, skew
			return true
		}
		// As l grows its tail grows and the other shrinks: past the even
		// point the tails only part further.
		return lowTail <= highTail
	})
	if bestL >= 0 {
		return bestL, bestU
	}
	// An upper bound alone: the smallest u ≤ n with P(B ≤ u−1) ≥ conf.
	if f.at(n-1) >= conf-eps {
		for u := max(int64(1), f.lo); u <= n; u++ {
			if f.at(u-1) >= conf-eps {
				return 0, u
			}
		}
	}
	// A lower bound alone: the largest l ≥ 1 with P(B ≥ l) ≥ conf.
	if 1-f.at(0) >= conf-eps {
		for l := min(n, f.hi()+1); l >= 1; l-- {
			if 1-f.at(l-1) >= conf-eps {
				return l, n + 1
			}
		}
	}
	return 0, n + 1
}

// coverTolerance is how much more than the least coverage QuantileRanks
// accepts for more even tails: half a percentage point.
const coverTolerance = 0.005

// QuantileCoverage is the exact coverage P(lo ≤ B < hi) of the rank pair
// (lo, hi) for the p-quantile of n samples, B ~ Binomial(n, p): the
// confidence the interval [X(lo), X(hi)] actually has. lo = 0 and
// hi = n+1 stand for the open sides.
func QuantileCoverage(n, lo, hi int64, p float64) float64 {
	if n <= 0 || !(p > 0 && p < 1) {
		return math.NaN()
	}
	f := newBinomialCDF(n, p)
	defer f.release()
	return f.at(hi-1) - f.at(lo-1)
}

// MinSamplesForUpperBound is the smallest sample size n for which
// QuantileRanks bounds the p-quantile from above at confidence conf: the
// least n with 1 − p^n ≥ conf, e.g. 299 for p = 0.99 and conf = 0.95.
func MinSamplesForUpperBound(p, conf float64) int64 {
	if !(p > 0 && p < 1) {
		return math.MaxInt64
	}
	return int64(math.Ceil(math.Log(1-conf) / math.Log(p)))
}

// QuantileSamplesToDecide estimates the sample size at which the interval
// of the p-quantile would fall entirely on one side of a threshold, given
// that a fraction q of the samples so far lie at or below it (failures
// counted as above it). With q > p the interval would eventually sit below
// the threshold, with q < p above it. It returns the smallest n ≥ from for
// which the ranks decide, assuming the empirical distribution stays as
// observed; −1 when q = p (the data sit on the threshold) or when no n up
// to 10^9 decides.
func QuantileSamplesToDecide(p, q, conf float64, from int64) int64 {
	if math.IsNaN(q) || math.Abs(q-p) < 1e-12 {
		return -1
	}
	decided := func(n int64) bool {
		lo, hi := QuantileRanks(n, p, conf)
		at := int64(math.Floor(q*float64(n) + 1e-9)) // samples at or below the threshold
		if q > p {
			return hi <= n && hi <= at
		}
		return lo >= 1 && lo > at
	}
	return searchSampleSize(decided, from)
}

// searchSampleSize returns the smallest n ≥ from with decided(n), assuming
// decided is (roughly) monotone: doubling, then bisection. −1 when even
// 10^9 samples do not decide.
func searchSampleSize(decided func(int64) bool, from int64) int64 {
	const limit = int64(1e9)
	lo := max(from, 1)
	if decided(lo) {
		return lo
	}
	hi := lo
	for {
		if hi >= limit {
			return -1
		}
		lo, hi = hi, min(hi*2, limit)
		if decided(hi) {
			break
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if decided(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
