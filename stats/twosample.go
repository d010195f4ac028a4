package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Two-sample estimators: the interval of a difference B − A between two
// independent samples, for `gollm-bench compare`. docs/statistics.md
// ("Comparing two runs") states when each is used.

// OrderStats gives the order statistics of a sample of Len() values,
// ranks 1-based. Lower and Upper bound the rank-th smallest value: they
// are equal for exact values (Sorted) and are the edges of its bucket for
// values read from a histogram, so that interval bounds built from them
// never claim more than the data hold. Implementations must accept every
// rank in [1, Len()].
type OrderStats interface {
	Len() int64
	Lower(rank int64) float64
	Upper(rank int64) float64
}

// Sorted is a sample sorted in ascending order, as OrderStats with exact
// values. Build one with NewSorted.
type Sorted []float64

// NewSorted returns a sorted copy of values without NaNs.
func NewSorted(values []float64) Sorted {
	s := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) {
			s = append(s, v)
		}
	}
	slices.Sort(s)
	return s
}

// Len is the number of values.
func (s Sorted) Len() int64 { return int64(len(s)) }

// Lower is the rank-th smallest value (1-based).
func (s Sorted) Lower(rank int64) float64 { return s[rank-1] }

// Upper is the rank-th smallest value (1-based), as Lower.
func (s Sorted) Upper(rank int64) float64 { return s[rank-1] }

// QuantileRank is the 1-based rank whose value is reported as the
// p-quantile (0 < p < 1) of n values: round(p × n), clamped to [1, n], the
// rule of hdrhistogram-go, so that a quantile read from records equals the
// one gollm-bench reads from its histograms up to their resolution. 0 when
// n ≤ 0.
func QuantileRank(n int64, p float64) int64 {
	if n <= 0 {
		return 0
	}
	r := int64(p*float64(n) + 0.5)
	return min(max(r, 1), n)
}

// Quantile is the p-quantile (0 < p < 1) of s at QuantileRank, its upper
// value (the histogram convention); NaN for an empty sample.
func Quantile(s OrderStats, p float64) float64 {
	n := s.Len()
	if n <= 0 {
		return math.NaN()
	}
	return s.Upper(QuantileRank(n, p))
}

// QuantileInterval is the distribution-free confidence interval of the
// p-quantile at confidence conf from the order statistics of s:
// [Lower(lo), Upper(hi)] with the ranks of QuantileRanks; a side no rank
// bounds is −Inf or +Inf.
func QuantileInterval(s OrderStats, p, conf float64) Interval {
	n := s.Len()
	lo, hi := QuantileRanks(n, p, conf)
	out := Unbounded()
	if lo >= 1 && lo <= n {
		out.Lo = s.Lower(lo)
	}
	if hi >= 1 && hi <= n {
		out.Hi = s.Upper(hi)
	}
	return out
}

// DiffInterval is the interval of y − x from an interval of x and one of
// y: [y.Lo − x.Hi, y.Hi − x.Lo]. When x and y are independent and each
// covers its quantity with probability c, the result covers the
// difference with probability at least c², so for a joint confidence conf
// give each side SidakConfidence(conf, 2). An infinite or undefined side
// gives an unbounded side.
func DiffInterval(x, y Interval) Interval {
	return openSides(Interval{Lo: y.Lo - x.Hi, Hi: y.Hi - x.Lo})
}

// SidakConfidence is the confidence each of k independent intervals needs
// for all k to hold together with probability conf: conf^(1/k) (Šidák
// 1967), 0.9747 for two intervals at 0.95.
func SidakConfidence(conf float64, k int) float64 {
	if k <= 1 {
		return conf
	}
	return math.Pow(conf, 1/float64(k))
}

// QuantileDiffInterval is a distribution-free interval, at confidence at
// least conf, of ξ_B − ξ_A, the difference between the p-quantiles of the
// distributions two independent samples a and b were drawn from. Each
// side's order-statistic interval is taken at SidakConfidence(conf, 2) and
// the two are combined by DiffInterval. It assumes nothing about the
// distributions and is conservative: its coverage is at least conf, often
// well above it, so a difference it calls significant is one.
func QuantileDiffInterval(a, b OrderStats, p, conf float64) Interval {
	c := SidakConfidence(conf, 2)
	return DiffInterval(QuantileInterval(a, p, c), QuantileInterval(b, p, c))
}

// DefaultBootstrapResamples is the number of resamples compare draws for
// a bootstrap interval.
const DefaultBootstrapResamples = 4000

// BootstrapQuantileDiff is the percentile bootstrap interval (Efron 1979;
// Efron & Tibshirani, An Introduction to the Bootstrap, 1993, ch. 13), at
// confidence conf, of the difference between the p-quantiles of b and a:
// resamples draws of Quantile(b*) − Quantile(a*), where a* and b* are
// resamples with replacement of a and b, and the interval between the
// draws' (1 − conf)/2 and (1 + conf)/2 quantiles.
//
// A resample's quantile is drawn exactly, without building the resample:
// the k-th smallest of n values drawn from a sample is its value at rank
// ⌈U × n⌉, where U is the k-th smallest of n uniform variates, which is
// Beta(k, n + 1 − k) distributed. So a draw costs O(1), whatever n. The
// generator is seeded by seed (PCG), so the interval is reproducible.
// Either sample with fewer than 2 values gives Unbounded.
func BootstrapQuantileDiff(a, b OrderStats, p, conf float64, resamples int, seed uint64) Interval {
	na, nb := a.Len(), b.Len()
	if na < 2 || nb < 2 || resamples < 2 {
		return Unbounded()
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	d := make([]float64, resamples)
	for i := range d {
		d[i] = bootstrapQuantile(r, b, p) - bootstrapQuantile(r, a, p)
	}
	slices.Sort(d)
	alpha := (1 - conf) / 2
	lo := d[max(0, int(math.Floor(alpha*float64(resamples))))]
	hi := d[min(resamples-1, int(math.Ceil((1-alpha)*float64(resamples)))-1)]
	return openSides(Interval{Lo: lo, Hi: hi})
}

// openSides turns an infinite or undefined side of i into an unbounded one.
func openSides(i Interval) Interval {
	if math.IsNaN(i.Lo) || math.IsInf(i.Lo, 0) {
		i.Lo = math.Inf(-1)
	}
	if math.IsNaN(i.Hi) || math.IsInf(i.Hi, 0) {
		i.Hi = math.Inf(1)
	}
	return i
}

// bootstrapQuantile draws the p-quantile of one resample of s.
func bootstrapQuantile(r *rand.Rand, s OrderStats, p float64) float64 {
	n := s.Len()
	k := QuantileRank(n, p)
	u := betaVariate(r, float64(k), float64(n+1-k))
	i := min(max(int64(math.Ceil(u*float64(n))), 1), n)
	return s.Upper(i)
}

// betaVariate draws from Beta(a, b), a, b ≥ 1, as X/(X+Y) with X ~
// Gamma(a) and Y ~ Gamma(b).
func betaVariate(r *rand.Rand, a, b float64) float64 {
	x := gammaVariate(r, a)
	y := gammaVariate(r, b)
	return x / (x + y)
}

// gammaVariate draws from Gamma(k, 1), k ≥ 1, by Marsaglia and Tsang's
// squeeze method ("A simple method for generating gamma variables", ACM
// TOMS 26, 2000).
func gammaVariate(r *rand.Rand, k float64) float64 {
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// MannWhitney is the Mann–Whitney U test (Mann & Whitney 1947; Wilcoxon's
// rank-sum test) of the hypothesis that a and b are drawn from one
// distribution, against the alternative that one tends to give larger
// values than the other. It returns U for b (the number of pairs in which
// b's value exceeds a's, ties counting one half) and the two-sided
// p-value from the normal approximation with the tie and continuity
// corrections (Hollander & Wolfe, Nonparametric Statistical Methods, 2nd
// ed., 1999, §4.1), adequate from about 10 values a side. U/(len(a) ×
// len(b)) estimates P(B > A) + P(B = A)/2. NaNs are ignored; an empty
// side gives p = NaN, and so does a sample in which every value is equal.
func MannWhitney(a, b []float64) (u, p float64) {
	type obs struct {
		v     float64
		fromB bool
	}
	all := make([]obs, 0, len(a)+len(b))
	for _, v := range a {
		if !math.IsNaN(v) {
			all = append(all, obs{v, false})
		}
	}
	na := len(all)
	for _, v := range b {
		if !math.IsNaN(v) {
			all = append(all, obs{v, true})
		}
	}
	nb := len(all) - na
	if na == 0 || nb == 0 {
		return math.NaN(), math.NaN()
	}
	slices.SortFunc(all, func(x, y obs) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	n := float64(len(all))
	var rankSumB, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of the 1-based ranks i+1 .. j
		t := float64(j - i)
		ties += t*t*t - t
		for k := i; k < j; k++ {
			if all[k].fromB {
				rankSumB += rank
			}
		}
		i = j
	}
	fa, fb := float64(na), float64(nb)
	u = rankSumB - fb*(fb+1)/2
	mean := fa * fb / 2
	variance := fa * fb / 12 * ((n + 1) - ties/(n*(n-1)))
	if !(variance > 0) {
		return u, math.NaN()
	}
	z := math.Max(math.Abs(u-mean)-0.5, 0) / math.Sqrt(variance)
	return u, math.Erfc(z / math.Sqrt2)
}

// WelchInterval is the interval, at confidence conf, of μB − μA from two
// independent samples' means, sample standard deviations (n − 1
// denominator) and sizes: (meanB − meanA) ± t(ν) × √(sdA²/nA + sdB²/nB),
// with ν the Welch–Satterthwaite degrees of freedom (Welch, "The
// generalization of 'Student's' problem when several different population
// variances are involved", Biometrika 34, 1947). It does not assume equal
// variances. A side with fewer than 2 values gives Unbounded; two
// samples without spread give the point difference.
func WelchInterval(meanA, sdA float64, nA int64, meanB, sdB float64, nB int64, conf float64) Interval {
	if nA < 2 || nB < 2 || math.IsNaN(meanA+meanB+sdA+sdB) || math.IsInf(meanA, 0) || math.IsInf(meanB, 0) {
		return Unbounded()
	}
	d := meanB - meanA
	va, vb := sdA*sdA/float64(nA), sdB*sdB/float64(nB)
	se := math.Sqrt(va + vb)
	if se == 0 {
		return Interval{Lo: d, Hi: d}
	}
	df := (va + vb) * (va + vb) / (va*va/float64(nA-1) + vb*vb/float64(nB-1))
	h := T(df, conf) * se
	return Interval{Lo: d - h, Hi: d + h}
}

// WelchIntervalOf is WelchInterval of two samples' values (batch rates,
// say).
func WelchIntervalOf(a, b []float64, conf float64) Interval {
	ma, sa := MeanSD(a)
	mb, sb := MeanSD(b)
	return WelchInterval(ma, sa, int64(len(a)), mb, sb, int64(len(b)), conf)
}

// NewcombeInterval is the interval, at confidence conf, of pB − pA for two
// independent binomial proportions kA/nA and kB/nB, by Newcombe's hybrid
// score method ("Interval estimation for the difference between
// independent proportions", Statistics in Medicine 17, 1998, method 10),
// which combines each proportion's Wilson interval [l, u]:
//
//	[d − √((pB − lB)² + (uA − pA)²),  d + √((uB − pB)² + (pA − lA)²)],  d = pB − pA.
//
// Like Wilson's it stays within [−1, 1] and keeps near its nominal
// coverage when a proportion is 0 (no request failed). An empty side
// gives [−1, 1].
func NewcombeInterval(kA, nA, kB, nB int64, conf float64) Interval {
	if nA <= 0 || nB <= 0 {
		return Interval{Lo: -1, Hi: 1}
	}
	pa, pb := float64(kA)/float64(nA), float64(kB)/float64(nB)
	wa, wb := Wilson(kA, nA, conf), Wilson(kB, nB, conf)
	d := pb - pa
	lo := d - math.Hypot(pb-wb.Lo, wa.Hi-pa)
	hi := d + math.Hypot(wb.Hi-pb, pa-wa.Lo)
	return Interval{Lo: max(lo, -1), Hi: min(hi, 1)}
}
