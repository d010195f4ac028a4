package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/stats"
)

func TestLowestEquivalentMatchesHistogram(t *testing.T) {
	t.Parallel()
	h := newLatencyHistogram()
	rng := rand.New(rand.NewPCG(3, 3))
	for range 20000 {
		v := int64(math.Exp(rng.Float64()*math.Log(float64(infMicros)))) + 1
		lo := lowestEquivalent(v)
		if !h.ValuesAreEquivalent(lo, v) {
			t.Fatalf("lowestEquivalent(%d) = %d is not in its bucket", v, lo)
		}
		if lo > 0 && h.ValuesAreEquivalent(lo-1, v) {
			t.Fatalf("lowestEquivalent(%d) = %d, but %d is in the same bucket", v, lo, lo-1)
		}
	}
}

// TestQuantileIntervalCoverage is the acceptance test of the percentile
// intervals: for lognormal and exponential samples of 100, 1,000 and
// 10,000 values, read through the HDR histogram as every Distribution is,
// the 95 % interval of p50, p95 and p99 (where bounded) contains the true
// quantile in 93–97 % of 2,000 seeded trials.
func TestQuantileIntervalCoverage(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	const trials = 2000
	type dist struct {
		name   string
		draw   func(*rand.Rand) float64 // ms
		quant  func(p float64) float64  // ms
		minimN int64
	}
	dists := []dist{
		{"lognormal", func(r *rand.Rand) float64 { return 50 * math.Exp(0.8*r.NormFloat64()) },
			func(p float64) float64 { return 50 * math.Exp(0.8*math.Sqrt2*math.Erfinv(2*p-1)) }, 0},
		{"exponential", func(r *rand.Rand) float64 { return 40 * r.ExpFloat64() },
			func(p float64) float64 { return -40 * math.Log1p(-p) }, 0},
	}
	for _, d := range dists {
		for _, n := range []int64{100, 1000, 10_000} {
			t.Run(fmt.Sprintf("%s/n=%d", d.name, n), func(t *testing.T) {
				t.Parallel()
				h := newLatencyHistogram()
				rng := rand.New(rand.NewPCG(uint64(n), 11))
				qs := []quantileQuery{{p: 50}, {p: 95}, {p: 99}}
				hits := make([]int, len(qs))
				bounded := make([]bool, len(qs))
				for range trials {
					h.Reset()
					for range n {
						recordLatency(h, time.Duration(d.draw(rng)*float64(time.Millisecond)))
					}
					for i, a := range answerQuantiles(h, qs, nil) {
						_, ci := convertAnswer(h, UnitMS, a)
						if !ci.Bounded() {
							continue
						}
						bounded[i] = true
						if ci.Contains(d.quant(qs[i].p / 100)) {
							hits[i]++
						}
					}
				}
				for i, q := range qs {
					if !bounded[i] {
						if _, hi := stats.QuantileRanks(n, q.p/100, stats.Confidence); hi <= n {
							t.Errorf("%s n=%d p%g: never bounded, though its ranks are", d.name, n, q.p)
						}
						continue
					}
					if c := float64(hits[i]) / trials; c < 0.93 || c > 0.97 {
						t.Errorf("%s n=%d p%g: the interval held the true quantile in %.1f %% of %d trials, want 93-97 %%",
							d.name, n, q.p, 100*c, trials)
					}
				}
			})
		}
	}
}

// TestQuantileWithFailures checks the error-adjusted reading: failures
// are +Inf samples above every recorded one.
func TestQuantileWithFailures(t *testing.T) {
	t.Parallel()
	d := latencies(0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100)
	v, _, err := d.Quantile(50, 0)
	if err != nil || !near(v, 50) {
		t.Fatalf("p50 = %v, %v; want 50", v, err)
	}
	// 10 samples plus 10 failures: the median lands on a failure.
	v, ci, err := d.Quantile(60, 10)
	if err != nil || !math.IsInf(v, 1) {
		t.Errorf("p60 with 10 of 20 failed = %v, %v; want +Inf", v, err)
	}
	if ci.HiBounded() {
		t.Errorf("p60 with failures: upper bound %v, want +Inf", ci.Hi)
	}
	if f := d.FractionAtOrBelowWithFailures(50, 10); math.Abs(f-0.25) > 1e-9 {
		t.Errorf("fraction at or below 50 ms with 10 failures = %v, want 0.25", f)
	}
	// The stored figures are Quantile's with no failures.
	many := latencies(0, func() []float64 {
		var v []float64
		for i := range 500 {
			v = append(v, float64(i%97)+1)
		}
		return v
	}()...)
	v, ci, _ = many.Quantile(99, 0)
	if v != many.P99 || ci != many.P99CI {
		t.Errorf("Quantile(99) = %v %v, stored %v %v", v, ci, many.P99, many.P99CI)
	}
}

// TestGoodputWindow is the observation of the uncertainty issue: a short
// closed-loop level whose every request meets the SLO must report goodput
// tok/s equal to its output tok/s. Before the fix goodput counted only
// requests sent in the window, so the tokens that the warmup's requests
// delivered into the window were output but not goodput (0.38 of it).
func TestGoodputWindow(t *testing.T) {
	t.Parallel()
	// Concurrency 4, each request streams 100 tokens over 2 s; the level
	// runs 8 s with a window of [0.8 s, 7.2 s]; requests in flight at the
	// end drain.
	w := loadgen.Window{Start: ms(800), End: ms(7200)}
	var recs []*loadgen.Record
	seq := int64(0)
	for slot := range 4 {
		for at := float64(slot) * 100; at < 8000; at += 2100 {
			tokens := make([]int32, 100)
			for i := range tokens {
				tokens[i] = 1
			}
			recs = append(recs, stream(seq, at, 50, 20, tokens...))
			seq++
		}
	}
	s := summarize(Config{Window: w, Profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4},
		Good: func(*loadgen.Record) bool { return true }}, recs...)
	if s.Goodput.OutputTokensPerSecond != s.OutputTokensPerSecond {
		t.Errorf("every request good: goodput %.1f tok/s, output %.1f tok/s; want equal",
			s.Goodput.OutputTokensPerSecond, s.OutputTokensPerSecond)
	}
	// Half the requests bad: goodput is what the good half delivered.
	half := summarize(Config{Window: w, Good: func(r *loadgen.Record) bool { return r.Seq%2 == 0 }}, recs...)
	if g, o := half.Goodput.OutputTokensPerSecond, half.OutputTokensPerSecond; !(g > 0.3*o && g < 0.7*o) {
		t.Errorf("half good: goodput %.1f of output %.1f tok/s", g, o)
	}
	if half.Goodput.OutputTokensPerSecondCI.IsZero() || !half.Goodput.OutputTokensPerSecondCI.Contains(half.Goodput.OutputTokensPerSecond) {
		t.Errorf("goodput interval %v does not hold its estimate %v", half.Goodput.OutputTokensPerSecondCI, half.Goodput.OutputTokensPerSecond)
	}
}

func TestRateIntervalsAndBatches(t *testing.T) {
	t.Parallel()
	recs := paced(200, 0, ms(50)) // 200 requests every 50 ms over 10 s
	s := summarize(Config{Window: tenSeconds}, recs...)
	if s.Batches.Used != 20 {
		t.Errorf("batches used = %d, want 20 (requests far shorter than a batch)", s.Batches.Used)
	}
	for name, c := range map[string]struct {
		est float64
		ci  stats.Interval
	}{
		"output tok/s": {s.OutputTokensPerSecond, s.OutputTokensPerSecondCI},
		"req/s":        {s.RequestsPerSecond, s.RequestsPerSecondCI},
	} {
		if !c.ci.Bounded() || !c.ci.Contains(c.est) {
			t.Errorf("%s: interval %v does not hold %v", name, c.ci, c.est)
		}
	}
	var sum float64
	for _, v := range s.Batches.OutputTokens {
		sum += v
	}
	if math.Abs(sum/s.WindowSeconds-s.OutputTokensPerSecond) > 1e-9 {
		t.Errorf("sub-windows hold %v tokens, the rate says %v", sum, s.OutputTokensPerSecond*s.WindowSeconds)
	}
	if w := s.ErrorRateCI; w.Lo != 0 || !(w.Hi > 0 && w.Hi < 0.02) {
		t.Errorf("error rate 0 of 200: Wilson %v, want [0, ~1.9 %%]", w)
	}
}

func TestBatchCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		window, e2e float64
		want        int
	}{{60, 1, 20}, {60, 5, 10}, {60, 8, 5}, {6.4, 3, 5}, {10, math.NaN(), 20}} {
		if got := batchCount(c.window, c.e2e); got != c.want {
			t.Errorf("batchCount(%v s, E2E %v s) = %d, want %d", c.window, c.e2e, got, c.want)
		}
	}
}
