package stats

import "math"

// Z returns the two-sided standard normal critical value for confidence
// conf: 1.959964 for 0.95.
func Z(conf float64) float64 { return math.Sqrt2 * math.Erfinv(conf) }

// Wilson is the Wilson score interval (Wilson 1927) for a binomial
// proportion with k successes in n trials, at confidence conf. Unlike the
// normal ("Wald") interval it stays inside [0, 1] and keeps close to its
// nominal coverage for small n and for proportions near 0 or 1: 0 failures
// in 100 requests give [0, 3.7 %], not [0, 0]. n ≤ 0 gives [0, 1].
func Wilson(k, n int64, conf float64) Interval {
	if n <= 0 {
		return Interval{Lo: 0, Hi: 1}
	}
	z := Z(conf)
	nf := float64(n)
	ph := float64(k) / nf
	z2 := z * z
	center := (ph + z2/(2*nf)) / (1 + z2/nf)
	half := z / (1 + z2/nf) * math.Sqrt(ph*(1-ph)/nf+z2/(4*nf*nf))
	lo, hi := max(center-half, 0), min(center+half, 1)
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return Interval{Lo: lo, Hi: hi}
}

// WilsonSamplesToDecide estimates the number of trials at which the Wilson
// interval of a proportion observed at ph would fall entirely on one side
// of threshold, assuming ph stays as observed: the smallest n ≥ from that
// decides, or −1 when ph equals the threshold or no n up to 10^9 decides.
func WilsonSamplesToDecide(ph, threshold, conf float64, from int64) int64 {
	if math.IsNaN(ph) || math.Abs(ph-threshold) < 1e-12 {
		return -1
	}
	decided := func(n int64) bool {
		k := int64(math.Round(ph * float64(n)))
		i := Wilson(k, n, conf)
		if ph < threshold {
			return i.Hi <= threshold
		}
		return i.Lo > threshold
	}
	return searchSampleSize(decided, from)
}
