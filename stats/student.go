package stats

import (
	"math"
	"sync"
)

// T returns the two-sided critical value of Student's t distribution with
// df degrees of freedom at confidence conf: the t with P(|T| ≤ t) = conf,
// e.g. 2.262 for df = 9 and conf = 0.95. df = +Inf gives Z(conf); df < 1
// gives +Inf (no interval from a single value).
func T(df, conf float64) float64 {
	switch {
	case math.IsInf(df, 1):
		return Z(conf)
	case !(df >= 1) || !(conf > 0 && conf < 1):
		return math.Inf(1)
	}
	// A summary asks for the same few (df, conf) pairs again and again
	// (batch means over 20, 10 or 5 batches); each answer costs about a
	// hundred incomplete-beta evaluations.
	key := [2]float64{df, conf}
	if v, ok := tQuantiles.Load(key); ok {
		return v.(float64)
	}
	v := tQuantile(df, conf)
	tQuantiles.Store(key, v)
	return v
}

// tQuantiles memoises T: a pure function of its two arguments.
var tQuantiles sync.Map // [2]float64{df, conf} → float64

// tQuantile is T, computed.
func tQuantile(df, conf float64) float64 {
	target := (1 + conf) / 2
	// Bracket the root of cdf(t) = target, then bisect: the CDF is
	// monotone, and 200 halvings of a double interval reach its precision.
	lo, hi := 0.0, 1.0
	for studentCDF(hi, df) < target {
		lo, hi = hi, hi*2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if studentCDF(mid, df) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// studentCDF is P(T ≤ t) for t ≥ 0 and df > 0:
// 1 − I_{df/(df+t²)}(df/2, 1/2) / 2.
func studentCDF(t, df float64) float64 {
	x := df / (df + t*t)
	return 1 - 0.5*regIncBeta(x, df/2, 0.5)
}

// regIncBeta is the regularised incomplete beta function I_x(a, b), by its
// continued fraction (evaluated with the modified Lentz method), using
// I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges slowly.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	case x > (a+1)/(a+b+2):
		return 1 - regIncBeta(1-x, b, a)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(a*math.Log(x) + b*math.Log1p(-x) - (la + lb - lab))
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 10000; m++ {
		mf := float64(m)
		// Even step: m(b−m)x / ((a+2m−1)(a+2m)).
		num := mf * (b - mf) * x / ((a + 2*mf - 1) * (a + 2*mf))
		d = 1 + num*d
		c = 1 + num/c
		d, c = clampTiny(d, tiny), clampTiny(c, tiny)
		d = 1 / d
		h *= d * c
		// Odd step: −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)).
		num = -(a + mf) * (a + b + mf) * x / ((a + 2*mf) * (a + 2*mf + 1))
		d = 1 + num*d
		c = 1 + num/c
		d, c = clampTiny(d, tiny), clampTiny(c, tiny)
		d = 1 / d
		step := d * c
		h *= step
		if math.Abs(step-1) < 1e-15 {
			break
		}
	}
	return front * h / a
}

func clampTiny(v, tiny float64) float64 {
	if math.Abs(v) < tiny {
		return tiny
	}
	return v
}

// MeanInterval is the Student-t interval for the mean of values, treated
// as independent draws of a roughly normal quantity: mean ± t(n−1) × s/√n
// with s the sample standard deviation. It serves batch means (each value
// the rate over one equal sub-window of a level) and the spread between
// repeated runs (each value one run's figure). Fewer than two values give
// Unbounded: one value says nothing about its spread.
func MeanInterval(values []float64, conf float64) Interval {
	n := len(values)
	if n < 2 {
		return Unbounded()
	}
	mean, sd := MeanSD(values)
	return MomentsInterval(mean, sd, int64(n), conf)
}

// MomentsInterval is mean ± t(n−1) × sd/√n from a sample's mean and sample
// standard deviation sd (n − 1 denominator). n < 2 gives Unbounded; an
// infinite mean gives [mean, mean].
func MomentsInterval(mean, sd float64, n int64, conf float64) Interval {
	if math.IsInf(mean, 0) {
		return Interval{Lo: mean, Hi: mean}
	}
	if n < 2 || math.IsNaN(mean) || math.IsNaN(sd) {
		return Unbounded()
	}
	h := T(float64(n-1), conf) * sd / math.Sqrt(float64(n))
	return Interval{Lo: mean - h, Hi: mean + h}
}

// MeanSD returns the mean and the sample standard deviation (n − 1
// denominator) of values; the deviation is 0 for fewer than two values.
func MeanSD(values []float64) (mean, sd float64) {
	n := len(values)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range values {
		mean += v
	}
	mean /= float64(n)
	if n < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(n-1))
}

// MeanSamplesToDecide estimates the sample size at which a Student-t (or
// batch-means) interval of half-width half from n samples would exclude a
// threshold at distance dist from the estimate, with half-widths shrinking
// as 1/√n: n × (half/dist)², rounded up. −1 when dist is 0.
func MeanSamplesToDecide(n int64, half, dist float64) int64 {
	dist = math.Abs(dist)
	if !(dist > 0) || math.IsNaN(half) {
		return -1
	}
	if math.IsInf(half, 0) {
		return -1
	}
	need := float64(n) * (half / dist) * (half / dist)
	if need > 1e12 {
		return -1
	}
	return max(int64(math.Ceil(need)), n)
}
