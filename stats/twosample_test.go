package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMannWhitneyKnownValues(t *testing.T) {
	// Complete separation, 5 against 5: U = 25, mean 12.5, variance
	// 25/12 × 11; z = (12.5 − 0.5)/√22.917 = 2.5067, p = 0.01219.
	u, p := MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if u != 25 || math.Abs(p-0.012186) > 2e-5 {
		t.Errorf("separated: U=%v p=%v, want 25 and 0.01219", u, p)
	}
	// The other direction: U = 0, the same p.
	u, p2 := MannWhitney([]float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5})
	if u != 0 || math.Abs(p2-p) > 1e-12 {
		t.Errorf("reversed: U=%v p=%v", u, p2)
	}
	// Identical samples: U at its mean, p = 1.
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	if u, p := MannWhitney(x, x); u != 32 || p != 1 {
		t.Errorf("identical: U=%v p=%v, want 32 and 1", u, p)
	}
	// Ties: a = {1, 2, 2}, b = {2, 3}: ranks 1, 3, 3, 3, 5; R_b = 8,
	// U = 8 − 3 = 5; variance 6/12 × (6 − 24/20) = 2.4; z = (5 − 3 −
	// 0.5)/√2.4 = 0.9682, p = 0.3329.
	u, p = MannWhitney([]float64{1, 2, 2}, []float64{2, 3})
	if u != 5 || math.Abs(p-0.33294) > 1e-4 {
		t.Errorf("ties: U=%v p=%v, want 5 and 0.3329", u, p)
	}
	if _, p := MannWhitney(nil, x); !math.IsNaN(p) {
		t.Errorf("empty side: p=%v, want NaN", p)
	}
	if _, p := MannWhitney([]float64{2, 2}, []float64{2, 2, 2}); !math.IsNaN(p) {
		t.Errorf("all values equal: p=%v, want NaN", p)
	}
}

func TestWelchInterval(t *testing.T) {
	// Welch's test's textbook example (two samples of 15; t = −2.46,
	// 24.99 degrees of freedom): means 20.82 and 22.99, se 0.8824.
	a := []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4}
	b := []float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4}
	ci := WelchIntervalOf(a, b, 0.95)
	d, se, df := 2.1666667, 0.88242451, 24.988529
	h := T(df, 0.95) * se
	if math.Abs(ci.Lo-(d-h)) > 1e-6 || math.Abs(ci.Hi-(d+h)) > 1e-6 {
		t.Errorf("interval %v, want %v ± %v", ci, d, h)
	}
	if !(ci.Lo > 0) {
		t.Errorf("t = 2.46 with 25 df is significant at 95 %%, but %v holds 0", ci)
	}
	if got := WelchInterval(1, 0, 5, 3, 0, 5, 0.95); got != (Interval{Lo: 2, Hi: 2}) {
		t.Errorf("no spread: %v, want [2, 2]", got)
	}
	if got := WelchInterval(1, 1, 1, 3, 1, 5, 0.95); got.Bounded() {
		t.Errorf("one value on a side: %v, want unbounded", got)
	}
}

func TestNewcombeInterval(t *testing.T) {
	// Newcombe (1998), Table II, example (a): 56/70 − 48/80, method 10:
	// [0.0524, 0.3339].
	ci := NewcombeInterval(48, 80, 56, 70, 0.95)
	if math.Abs(ci.Lo-0.0524) > 5e-5 || math.Abs(ci.Hi-0.3339) > 5e-5 {
		t.Errorf("56/70 − 48/80: %v, want [0.0524, 0.3339]", ci)
	}
	// Example (h), zeros on both sides: 0/10 − 0/20 gives [−0.1611, 0.2775].
	ci = NewcombeInterval(0, 20, 0, 10, 0.95)
	if math.Abs(ci.Lo+0.1611) > 5e-5 || math.Abs(ci.Hi-0.2775) > 5e-5 {
		t.Errorf("0/10 − 0/20: %v, want [−0.1611, 0.2775]", ci)
	}
}

func TestDiffIntervalAndSidak(t *testing.T) {
	if got := DiffInterval(Interval{Lo: 1, Hi: 2}, Interval{Lo: 5, Hi: 7}); got != (Interval{Lo: 3, Hi: 6}) {
		t.Errorf("DiffInterval = %v, want [3, 6]", got)
	}
	got := DiffInterval(Interval{Lo: 1, Hi: math.Inf(1)}, Interval{Lo: 5, Hi: 7})
	if !math.IsInf(got.Lo, -1) || got.Hi != 6 {
		t.Errorf("an unbounded side: %v, want [unbounded, 6]", got)
	}
	if c := SidakConfidence(0.95, 2); math.Abs(c*c-0.95) > 1e-12 {
		t.Errorf("SidakConfidence(0.95, 2) = %v", c)
	}
}

func lognormal(r *rand.Rand, n int, mu float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Exp(mu + 0.5*r.NormFloat64())
	}
	return out
}

// TestQuantileDiffIntervalCoverage: the distribution-free interval of a
// difference of quantiles holds the true difference in at least 95 % of
// seeded trials (it is conservative), for B shifted by a known amount.
func TestQuantileDiffIntervalCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	const trials = 400
	for _, p := range []float64{0.5, 0.95} {
		// B = A × e^0.2: the true p-quantiles are e^(0.5 z_p) and e^(0.2 + 0.5 z_p).
		z := math.Sqrt2 * math.Erfinv(2*p-1)
		want := math.Exp(0.2+0.5*z) - math.Exp(0.5*z)
		held := 0
		for range trials {
			a, b := NewSorted(lognormal(r, 300, 0)), NewSorted(lognormal(r, 300, 0.2))
			if QuantileDiffInterval(a, b, p, 0.95).Contains(want) {
				held++
			}
		}
		if held < trials*95/100 {
			t.Errorf("p%v: held the true difference in %d of %d trials, want ≥ 95 %%", 100*p, held, trials)
		}
	}
}

// TestBootstrapQuantileDiff: the bootstrap interval is reproducible from
// its seed, says "no difference" about 95 % of the time for two samples
// of one distribution, and detects a clear shift.
func TestBootstrapQuantileDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a, b := NewSorted(lognormal(r, 500, 0)), NewSorted(lognormal(r, 500, 0))
	if x, y := BootstrapQuantileDiff(a, b, 0.99, 0.95, 2000, 3), BootstrapQuantileDiff(a, b, 0.99, 0.95, 2000, 3); x != y {
		t.Errorf("same seed, different intervals: %v and %v", x, y)
	}
	trials := 300
	if testing.Short() {
		trials = 100
	}
	for _, p := range []float64{0.5, 0.99} {
		same, shifted := 0, 0
		for i := range trials {
			a, b := NewSorted(lognormal(r, 400, 0)), NewSorted(lognormal(r, 400, 0))
			if BootstrapQuantileDiff(a, b, p, 0.95, 1000, uint64(i)).Contains(0) {
				same++
			}
			c := NewSorted(lognormal(r, 400, 0.5))
			if ci := BootstrapQuantileDiff(a, c, p, 0.95, 1000, uint64(i)); ci.Lo > 0 {
				shifted++
			}
		}
		if same < trials*90/100 || same > trials*99/100 {
			t.Errorf("p%v: two samples of one distribution held 0 in %d of %d trials, want about 95 %%", 100*p, same, trials)
		}
		if shifted < trials*80/100 {
			t.Errorf("p%v: a 65 %% shift detected in %d of %d trials", 100*p, shifted, trials)
		}
	}
	if got := BootstrapQuantileDiff(Sorted{1}, b, 0.5, 0.95, 100, 1); got.Bounded() {
		t.Errorf("one value: %v, want unbounded", got)
	}
}

func TestBetaVariateMean(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, ab := range [][2]float64{{1, 1}, {5, 2}, {990, 11}} {
		var sum float64
		const n = 20000
		for range n {
			sum += betaVariate(r, ab[0], ab[1])
		}
		want := ab[0] / (ab[0] + ab[1])
		if got := sum / n; math.Abs(got-want) > 0.01 {
			t.Errorf("Beta(%v, %v): mean %v, want %v", ab[0], ab[1], got, want)
		}
	}
}

func TestQuantileOfSorted(t *testing.T) {
	s := NewSorted([]float64{5, math.NaN(), 1, 3, 2, 4})
	if s.Len() != 5 || Quantile(s, 0.5) != 3 || Quantile(s, 0.99) != 5 {
		t.Errorf("NewSorted/Quantile: %v, p50 %v, p99 %v", s, Quantile(s, 0.5), Quantile(s, 0.99))
	}
	if !math.IsNaN(Quantile(Sorted{}, 0.5)) {
		t.Error("empty sample: want NaN")
	}
	ci := QuantileInterval(s, 0.99, 0.95)
	if !math.IsInf(ci.Hi, 1) {
		t.Errorf("p99 of 5 values: %v, want no upper bound", ci)
	}
}
