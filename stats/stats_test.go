package stats

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactBinomialCDF is P(B ≤ k), B ~ Binomial(n, p), in big floats: the
// oracle for the tabulated CDF.
func exactBinomialCDF(n, k int64, p float64) float64 {
	if k < 0 {
		return 0
	}
	var sum, term big.Float
	sum.SetPrec(200)
	for i := int64(0); i <= min(k, n); i++ {
		var c big.Int
		c.Binomial(n, i)
		term.SetPrec(200).SetInt(&c)
		pi := new(big.Float).SetPrec(200).SetFloat64(math.Pow(p, float64(i)))
		qi := new(big.Float).SetPrec(200).SetFloat64(math.Pow(1-p, float64(n-i)))
		term.Mul(&term, pi)
		term.Mul(&term, qi)
		sum.Add(&sum, &term)
	}
	f, _ := sum.Float64()
	return f
}

func TestBinomialCDFMatchesExactSums(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	for _, n := range []int64{1, 2, 7, 30, 100, 299} {
		for _, p := range []float64{0.01, 0.5, 0.9, 0.99, 0.999} {
			f := newBinomialCDF(n, p)
			for k := int64(-1); k <= n; k++ {
				got, want := f.at(k), exactBinomialCDF(n, k, p)
				if math.Abs(got-want) > 1e-12 {
					t.Fatalf("n=%d p=%g: F(%d) = %.15g, want %.15g", n, p, k, got, want)
				}
			}
		}
	}
}

func TestQuantileRanksCoverAtLeastConfidence(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{1, 5, 20, 50, 100, 298, 299, 300, 366, 367, 1000, 10_000, 1_000_000} {
		for _, p := range []float64{0.5, 0.9, 0.95, 0.99, 0.999} {
			lo, hi := QuantileRanks(n, p, Confidence)
			if lo < 0 || hi > n+1 || lo >= hi {
				t.Fatalf("n=%d p=%g: ranks (%d, %d) out of order or range", n, p, lo, hi)
			}
			if lo == 0 && hi == n+1 {
				continue // nothing bounded: coverage 1, trivially
			}
			if c := QuantileCoverage(n, lo, hi, p); c < Confidence-1e-9 {
				t.Errorf("n=%d p=%g: ranks (%d, %d) cover %.4f < %.2f", n, p, lo, hi, c, Confidence)
			}
		}
	}
}

func TestQuantileRanksP99NeedsAtLeast299Samples(t *testing.T) {
	t.Parallel()
	if got := MinSamplesForUpperBound(0.99, Confidence); got != 299 {
		t.Fatalf("MinSamplesForUpperBound(0.99) = %d, want 299", got)
	}
	for _, n := range []int64{16, 100, 148, 298} {
		if _, hi := QuantileRanks(n, 0.99, Confidence); hi != n+1 {
			t.Errorf("n=%d: p99 upper rank %d, want unbounded (%d)", n, hi, n+1)
		}
	}
	lo, hi := QuantileRanks(299, 0.99, Confidence)
	if hi != 299 {
		t.Errorf("n=299: p99 upper rank %d, want the maximum (299)", hi)
	}
	if lo < 1 {
		t.Errorf("n=299: p99 lower rank %d, want a bound: the top rank leaves a sliver of the 5 %% for the bottom", lo)
	}
	if lo, hi := QuantileRanks(1000, 0.99, Confidence); lo < 1 || hi > 1000 {
		t.Errorf("n=1000: p99 ranks (%d, %d), want both bounded", lo, hi)
	}
}

func TestQuantileRanksCoverageIsCloseToNominal(t *testing.T) {
	t.Parallel()
	// The discreteness of the binomial makes coverage step; the chosen pair
	// keeps it near 95 %, which the coverage test of the metrics package
	// relies on (93–97 % over 2,000 trials).
	for _, n := range []int64{100, 1000, 10_000} {
		for _, p := range []float64{0.5, 0.95, 0.99} {
			lo, hi := QuantileRanks(n, p, Confidence)
			if lo == 0 || hi == n+1 {
				continue
			}
			if c := QuantileCoverage(n, lo, hi, p); c > 0.965 {
				t.Errorf("n=%d p=%g: ranks (%d, %d) cover %.4f, want within 1.5 points of 95 %%", n, p, lo, hi, c)
			}
		}
	}
}

func TestQuantileSamplesToDecide(t *testing.T) {
	t.Parallel()
	// 16 samples all below a p99 threshold: 299 would bound p99 from above.
	if got := QuantileSamplesToDecide(0.99, 1, Confidence, 16); got != 299 {
		t.Errorf("all below: %d samples, want 299", got)
	}
	// Half the samples above a p99 threshold: decided to fail almost at once.
	if got := QuantileSamplesToDecide(0.99, 0.5, Confidence, 10); got < 1 || got > 20 {
		t.Errorf("half above: %d samples, want a handful", got)
	}
	if got := QuantileSamplesToDecide(0.99, 0.99, Confidence, 10); got != -1 {
		t.Errorf("on the threshold: %d, want -1", got)
	}
	// The estimate is consistent with QuantileRanks.
	n := QuantileSamplesToDecide(0.95, 0.97, Confidence, 10)
	if lo, hi := QuantileRanks(n, 0.95, Confidence); hi > int64(math.Floor(0.97*float64(n))) {
		t.Errorf("at n=%d the upper rank %d is above the %d samples under the threshold (lo %d)", n, hi, int64(0.97*float64(n)), lo)
	}
}

func TestWilsonKnownValues(t *testing.T) {
	t.Parallel()
	i := Wilson(0, 100, Confidence)
	if i.Lo != 0 || math.Abs(i.Hi-0.03699) > 1e-4 {
		t.Errorf("Wilson(0, 100) = %v, want [0, 0.0370]", i)
	}
	i = Wilson(50, 100, Confidence)
	if math.Abs(i.Lo-0.4038) > 1e-4 || math.Abs(i.Hi-0.5962) > 1e-4 {
		t.Errorf("Wilson(50, 100) = %v, want [0.4038, 0.5962]", i)
	}
	if i := Wilson(5, 5, Confidence); i.Hi != 1 {
		t.Errorf("Wilson(5, 5) = %v, want an upper bound of 1", i)
	}
}

func TestWilsonCoverage(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int64{100, 1000} {
		for _, p := range []float64{0.1, 0.3, 0.5} {
			hit := 0
			const trials = 2000
			for range trials {
				var k int64
				for range n {
					if rng.Float64() < p {
						k++
					}
				}
				if Wilson(k, n, Confidence).Contains(p) {
					hit++
				}
			}
			if c := float64(hit) / trials; c < 0.93 || c > 0.97 {
				t.Errorf("n=%d p=%g: Wilson covered %.3f of %d trials, want 0.93-0.97", n, p, c, trials)
			}
		}
	}
}

func TestWilsonSamplesToDecide(t *testing.T) {
	t.Parallel()
	// No failure yet: Wilson's upper bound z²/(n+z²) falls below 0.5 % at
	// about 765 requests.
	n := WilsonSamplesToDecide(0, 0.005, Confidence, 100)
	if n < 700 || n > 800 {
		t.Fatalf("samples to bound 0 failures under 0.5%%: %d, want about 765", n)
	}
	if Wilson(0, n, Confidence).Hi > 0.005 || Wilson(0, n-1, Confidence).Hi <= 0.005 {
		t.Errorf("n=%d is not the first sample size whose Wilson bound is ≤ 0.5%%", n)
	}
}

func TestStudentT(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ df, want float64 }{
		{1, 12.7062}, {2, 4.3027}, {4, 2.7764}, {9, 2.2622}, {19, 2.0930}, {30, 2.0423}, {1000, 1.9623},
	} {
		if got := T(c.df, Confidence); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("T(%g) = %.5f, want %.4f", c.df, got, c.want)
		}
	}
	if got := T(math.Inf(1), Confidence); math.Abs(got-1.959964) > 1e-6 {
		t.Errorf("T(inf) = %v, want 1.959964", got)
	}
	if !math.IsInf(T(0, Confidence), 1) {
		t.Error("T(0) should be +Inf")
	}
}

func TestMeanInterval(t *testing.T) {
	t.Parallel()
	i := MeanInterval([]float64{10, 12, 11, 9, 13}, Confidence)
	// mean 11, s = 1.5811, t(4) = 2.7764: ±1.9632
	if math.Abs(i.Lo-9.0368) > 1e-3 || math.Abs(i.Hi-12.9632) > 1e-3 {
		t.Errorf("MeanInterval = %v, want [9.037, 12.963]", i)
	}
	if i := MeanInterval([]float64{5}, Confidence); i.Bounded() {
		t.Errorf("one value: %v, want unbounded", i)
	}
}

func TestIntervalJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   Interval
		want string
	}{
		{Interval{1.5, 2.5}, `[1.5,2.5]`},
		{Interval{412, math.Inf(1)}, `[412,null]`},
		{Interval{math.Inf(-1), 7}, `[null,7]`},
		{Interval{math.Inf(1), math.Inf(1)}, `["inf",null]`},
	} {
		b, err := json.Marshal(c.in)
		if err != nil || string(b) != c.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", c.in, b, err, c.want)
		}
		var back Interval
		if err := json.Unmarshal(b, &back); err != nil || back != c.in {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, c.in)
		}
	}
	var i Interval
	for _, bad := range []string{`[1]`, `{"lo":1}`, `[3,1]`, `["x",1]`} {
		if err := json.Unmarshal([]byte(bad), &i); err == nil {
			t.Errorf("Unmarshal(%s) accepted", bad)
		}
	}
}

func TestRelativeHalfWidth(t *testing.T) {
	t.Parallel()
	if got := (Interval{90, 130}).RelativeHalfWidth(100); got != 0.3 {
		t.Errorf("asymmetric: %v, want the wider side 0.3", got)
	}
	if got := (Interval{90, math.Inf(1)}).RelativeHalfWidth(100); !math.IsInf(got, 1) {
		t.Errorf("unbounded: %v, want +Inf", got)
	}
}

func TestReciprocal(t *testing.T) {
	t.Parallel()
	// CPM from goodput tok/s: k / rate swaps the bounds.
	i := Interval{Lo: 100, Hi: 200}.Reciprocal(1000)
	if i.Lo != 5 || i.Hi != 10 {
		t.Errorf("Reciprocal = %v, want [5, 10]", i)
	}
	if i := (Interval{Lo: 0, Hi: 200}).Reciprocal(1000); !math.IsInf(i.Hi, 1) {
		t.Errorf("a lower bound of 0 should leave k/x unbounded above: %v", i)
	}
}

func FuzzIntervalJSON(f *testing.F) {
	for _, s := range []string{`[1,2]`, `[null,null]`, `["inf","-inf"]`, `[1e308,1e309]`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var i Interval
		if json.Unmarshal([]byte(s), &i) != nil {
			return
		}
		b, err := json.Marshal(i)
		if err != nil {
			t.Fatalf("Marshal(%v): %v", i, err)
		}
		var back Interval
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("round trip of %s: %v", b, err)
		}
	})
}

func BenchmarkQuantileRanks(b *testing.B) {
	for b.Loop() {
		QuantileRanks(100_000, 0.99, Confidence)
	}
}

// Seen: at n = 100,000 the p99's interval ran from 3.81 standard
// deviations of B below np to 1.65 above: a one-sided bound with a far
// lower end, chosen because its coverage was 1e-6 closer to 95 %. At large
// n the interval is equal-tailed.
func TestQuantileRanksEqualTailedAtLargeN(t *testing.T) {
	for _, c := range []struct {
		n int64
		p float64
	}{{100_000, 0.5}, {100_000, 0.99}, {6_400_000, 0.5}, {5000, 0.9}} {
		lo, hi := QuantileRanks(c.n, c.p, Confidence)
		sd := math.Sqrt(float64(c.n) * c.p * (1 - c.p))
		zl, zh := (float64(c.n)*c.p-float64(lo))/sd, (float64(hi)-float64(c.n)*c.p)/sd
		if math.Abs(zl-1.96) > 0.1 || math.Abs(zh-1.96) > 0.1 {
			t.Errorf("n=%d p=%g: ranks (%d, %d) sit %.2f and %.2f sd from np, want about 1.96 each", c.n, c.p, lo, hi, zl, zh)
		}
	}
}
