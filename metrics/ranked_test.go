package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/stats"
)

// TestRankedMatchesDistribution: the order statistics read from a
// distribution's histogram give back its percentiles and their intervals
// exactly, through the stats functions compare uses.
func TestRankedMatchesDistribution(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	lat := make([]time.Duration, 1500)
	for i := range lat {
		lat[i] = time.Duration(math.Exp(3+0.4*r.NormFloat64()) * float64(time.Millisecond))
	}
	d := LatencyDistribution(lat)
	rk, err := d.Ranked()
	if err != nil {
		t.Fatal(err)
	}
	if rk.Len() != d.Count {
		t.Fatalf("Len %d, count %d", rk.Len(), d.Count)
	}
	for _, c := range []struct {
		p    float64
		v    float64
		ci   stats.Interval
		name string
	}{{0.5, d.P50, d.P50CI, "p50"}, {0.95, d.P95, d.P95CI, "p95"}, {0.99, d.P99, d.P99CI, "p99"}} {
		if got := stats.Quantile(rk, c.p); got != c.v {
			t.Errorf("%s: %v from the ranks, %v in the distribution", c.name, got, c.v)
		}
		if got := stats.QuantileInterval(rk, c.p, stats.Confidence); got != c.ci {
			t.Errorf("%s interval: %v from the ranks, %v in the distribution", c.name, got, c.ci)
		}
	}
	if rk.Lower(1) > d.Min || rk.Upper(rk.Len()) < d.Max {
		t.Errorf("edges [%v, %v] do not hold min %v and max %v", rk.Lower(1), rk.Upper(rk.Len()), d.Min, d.Max)
	}
	empty, err := (Distribution{Unit: UnitMS}).Ranked()
	if err != nil || empty.Len() != 0 {
		t.Errorf("empty: %v, %v", empty.Len(), err)
	}
	withInf := ErrorAdjustedDistribution(lat[:10], 2)
	rk, _ = withInf.Ranked()
	if rk.Len() != 12 || !math.IsInf(rk.Upper(12), 1) || !math.IsInf(rk.Lower(11), 1) {
		t.Errorf("failures are not +Inf at the top: %v %v", rk.Lower(11), rk.Upper(12))
	}
}

func TestBatchRates(t *testing.T) {
	counts := make([]float64, SubWindows)
	for i := range counts {
		counts[i] = float64(i)
	}
	got := BatchRates(counts, 5, 10) // batches of 4 sub-windows, 2 s each
	want := []float64{(0 + 1 + 2 + 3) / 2.0, (4 + 5 + 6 + 7) / 2.0, 38 / 2.0, 54 / 2.0, 70 / 2.0}
	if len(got) != 5 {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("batch %d: %v, want %v", i, got[i], want[i])
		}
	}
	if BatchRates(counts, 1, 10) != nil || BatchRates(counts[:3], 5, 10) != nil || BatchRates(counts, 3, 10) != nil {
		t.Error("bad arguments should give nil")
	}
}
