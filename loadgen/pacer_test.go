package loadgen

import (
	"math"
	"testing"
	"time"
)

func TestConstantPacer(t *testing.T) {
	tests := []struct {
		rate float64
		i    int64
		want time.Duration
	}{
		{rate: 1, i: 0, want: 0},
		{rate: 1, i: 1, want: time.Second},
		{rate: 10, i: 7, want: 700 * time.Millisecond},
		{rate: 3, i: 1, want: 333333333},
		{rate: 3, i: 3, want: time.Second}, // computed from i: no accumulated rounding
		{rate: 3, i: 3000, want: 1000 * time.Second},
		{rate: 0.5, i: 2, want: 4 * time.Second},
		{rate: 3000, i: 1, want: 333333},
		{rate: 3000, i: 9_000_000, want: 3000 * time.Second},
	}
	for _, tt := range tests {
		got := ConstantPacer{Rate: tt.rate}.Arrival(tt.i, -1)
		if got != tt.want {
			t.Errorf("ConstantPacer{%v}.Arrival(%d) = %v, want %v", tt.rate, tt.i, got, tt.want)
		}
	}
}

func TestPoissonPacer(t *testing.T) {
	p := PoissonPacer{Rate: 50, Seed: 42}
	if got := p.Arrival(0, 123); got != 0 {
		t.Errorf("Arrival(0) = %v, want 0", got)
	}
	a, b := Plan(p, 1000), Plan(p, 1000)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("plan not reproducible at %d: %v vs %v", i, a[i], b[i])
		}
		if i > 0 && a[i] < a[i-1] {
			t.Fatalf("arrival %d at %v before arrival %d at %v", i, a[i], i-1, a[i-1])
		}
	}
	other := Plan(PoissonPacer{Rate: 50, Seed: 43}, 1000)
	same := 0
	for i := 1; i < len(a); i++ {
		if a[i] == other[i] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 42 and 43 share %d arrival times", same)
	}

	// The gaps are exponential with mean 1/rate: check the mean, the
	// standard deviation (= mean) and P[gap <= mean] = 1 − 1/e.
	const n = 200_000
	var sum, sumSq float64
	below := 0
	for i := int64(1); i <= n; i++ {
		g := p.Gap(i).Seconds()
		sum += g
		sumSq += g * g
		if g <= 1.0/50 {
			below++
		}
	}
	mean := sum / n
	std := math.Sqrt(sumSq/n - mean*mean)
	if math.Abs(mean-0.02)/0.02 > 0.01 {
		t.Errorf("mean gap %v s, want 0.02 ± 1%%", mean)
	}
	if math.Abs(std-0.02)/0.02 > 0.02 {
		t.Errorf("gap std %v s, want 0.02 ± 2%%", std)
	}
	if frac, want := float64(below)/n, 1-1/math.E; math.Abs(frac-want) > 0.005 {
		t.Errorf("P[gap <= mean] = %v, want %v", frac, want)
	}
	// Adjacent gaps are uncorrelated.
	var cov float64
	for i := int64(1); i < n; i++ {
		cov += (p.Gap(i).Seconds() - mean) * (p.Gap(i+1).Seconds() - mean)
	}
	if r := cov / n / (std * std); math.Abs(r) > 0.01 {
		t.Errorf("lag-1 autocorrelation %v, want ~0", r)
	}
}

func TestPacerFor(t *testing.T) {
	tests := []struct {
		p    Profile
		want Pacer
	}{
		{Profile{Mode: ModeConstant, Rate: 5}, ConstantPacer{Rate: 5}},
		{Profile{Mode: ModePoisson, Rate: 5, Seed: 9}, PoissonPacer{Rate: 5, Seed: 9}},
		{Profile{Mode: ModeConcurrent, Concurrency: 4}, nil},
		{Profile{Mode: ModeSynchronous}, nil},
	}
	for _, tt := range tests {
		if got := PacerFor(tt.p); got != tt.want {
			t.Errorf("PacerFor(%+v) = %#v, want %#v", tt.p, got, tt.want)
		}
	}
}

func BenchmarkConstantPacer(b *testing.B) {
	b.ReportAllocs()
	p := ConstantPacer{Rate: 1000}
	var prev time.Duration
	for i := range b.N {
		prev = p.Arrival(int64(i), prev)
	}
}

func BenchmarkPoissonPacer(b *testing.B) {
	b.ReportAllocs()
	p := PoissonPacer{Rate: 1000, Seed: 1}
	var prev time.Duration
	for i := range b.N {
		prev = p.Arrival(int64(i), prev)
	}
}
