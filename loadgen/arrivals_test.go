package loadgen

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// gapCV returns the mean and coefficient of variation of the first n
// gaps of pacer, in seconds.
func gapCV(pacer Pacer, n int) (mean, cv float64) {
	plan := Plan(pacer, n+1)
	var sum, sum2 float64
	for i := 1; i <= n; i++ {
		g := (plan[i] - plan[i-1]).Seconds()
		sum += g
		sum2 += g * g
	}
	mean = sum / float64(n)
	sd := math.Sqrt(sum2/float64(n) - mean*mean)
	return mean, sd / mean
}

// TestGammaPacerBurstiness: --burstiness K keeps the mean rate and gives
// gaps whose coefficient of variation is 1/√K: about 1.41 at K = 0.5 and
// 1.0 at K = 1 (Poisson), as vllm bench serve's gamma arrivals do.
func TestGammaPacerBurstiness(t *testing.T) {
	const n, rate = 100_000, 20.0
	for _, tt := range []struct{ shape, cv float64 }{{0.5, math.Sqrt2}, {1, 1}, {4, 0.5}, {0.25, 2}} {
		mean, cv := gapCV(GammaPacer{Rate: rate, Shape: tt.shape, Seed: 42}, n)
		t.Logf("shape %v: mean gap %.5f s (1/rate %.5f s), CV %.4f (1/√shape %.4f)", tt.shape, mean, 1/rate, cv, tt.cv)
		if math.Abs(mean*rate-1) > 0.03 {
			t.Errorf("shape %v: mean gap %.4f s, want %.4f s (the rate must not change)", tt.shape, mean, 1/rate)
		}
		if math.Abs(cv-tt.cv) > 0.04*tt.cv {
			t.Errorf("shape %v: gap CV %.3f, want %.3f", tt.shape, cv, tt.cv)
		}
	}
	// Seeded: the same seed gives the same plan; shape 1 is PoissonPacer's plan.
	a := Plan(GammaPacer{Rate: rate, Shape: 0.5, Seed: 7}, 500)
	b := Plan(GammaPacer{Rate: rate, Shape: 0.5, Seed: 7}, 500)
	c := Plan(GammaPacer{Rate: rate, Shape: 0.5, Seed: 8}, 500)
	same := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("shape 0.5, seed 7: arrival %d at %v then %v", i, a[i], b[i])
		}
		if i > 0 && a[i] == c[i] {
			same++
		}
		if i > 0 && a[i] < a[i-1] {
			t.Fatalf("arrival %d before arrival %d", i, i-1)
		}
	}
	if same > 0 {
		t.Errorf("seeds 7 and 8 share %d arrival times", same)
	}
	poisson := Plan(PoissonPacer{Rate: rate, Seed: 3}, 1000)
	for i, at := range Plan(GammaPacer{Rate: rate, Shape: 1, Seed: 3}, 1000) {
		if at != poisson[i] {
			t.Fatalf("shape 1, arrival %d at %v; PoissonPacer has %v", i, at, poisson[i])
		}
	}
}

func TestParseRamp(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Ramp
	}{
		{"linear:1->50:60s", Ramp{Shape: RampLinear, From: 1, To: 50, Over: time.Minute}},
		{"linear:0->10:30", Ramp{Shape: RampLinear, From: 0, To: 10, Over: 30 * time.Second}},
		{" exponential:2->64:2m ", Ramp{Shape: RampExponential, From: 2, To: 64, Over: 2 * time.Minute}},
		{"linear:0.5->2.5:1m30s", Ramp{Shape: RampLinear, From: 0.5, To: 2.5, Over: 90 * time.Second}},
	} {
		got, err := ParseRamp(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseRamp(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if back, err := ParseRamp(got.String()); err != nil || back != got {
			t.Errorf("ParseRamp(%q.String() = %q) = %+v, %v", tt.in, got.String(), back, err)
		}
	}
	for _, tt := range []struct{ in, msg string }{
		{"linear:50->1:60s", "end rate (Ramp.To) 1 req/s is below the start rate (Ramp.From) 50"},
		{"linear:5->5:60s", "equals the start rate"},
		{"exponential:0->8:10s", "must be > 0 req/s"},
		{"sine:1->2:10s", `unknown shape (Ramp.Shape) "sine"`},
		{"linear:1->50", "not three parts"},
		{"linear:1-50:10s", "no '->'"},
		{"linear:x->50:10s", `start rate "x"`},
		{"linear:1->50:soon", `duration "soon"`},
		{"linear:1->50:-5s", "duration (Ramp.Over) must be > 0"},
		{"linear:-1->50:10s", "must be a finite rate >= 0"},
		{"linear:1->NaN:10s", "end rate (Ramp.To) must be a finite rate"},
	} {
		_, err := ParseRamp(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseRamp(%q) error %v, want one containing %q", tt.in, err, tt.msg)
		}
	}
}

// TestRampInverse: TimeOf inverts Expected, within and after the ramp.
func TestRampInverse(t *testing.T) {
	for _, r := range []Ramp{
		{Shape: RampLinear, From: 1, To: 50, Over: time.Minute},
		{Shape: RampLinear, From: 0, To: 10, Over: 10 * time.Second},
		{Shape: RampExponential, From: 2, To: 64, Over: 30 * time.Second},
	} {
		for _, at := range []time.Duration{0, time.Millisecond, time.Second, 7 * time.Second, r.Over / 2, r.Over, r.Over + 3*time.Second} {
			n := r.Expected(at)
			if back := r.TimeOf(n); (back - at).Abs() > time.Microsecond {
				t.Errorf("%v: TimeOf(Expected(%v) = %.6f) = %v", r, at, n, back)
			}
		}
		if got, want := r.Expected(r.Over), (r.From+r.To)/2*r.Over.Seconds(); r.Shape == RampLinear && math.Abs(got-want) > 1e-9 {
			t.Errorf("%v: %v arrivals over the ramp, want %v", r, got, want)
		}
		if r.RateAt(0) != r.From || r.RateAt(r.Over) != r.To || r.RateAt(2*r.Over) != r.To {
			t.Errorf("%v: rate at 0, Over, 2·Over = %v, %v, %v", r, r.RateAt(0), r.RateAt(r.Over), r.RateAt(2*r.Over))
		}
	}
}

// perSecond counts the records scheduled in each second of the level.
func perSecond(recs []Record, seconds int) []int {
	out := make([]int, seconds)
	for _, r := range recs {
		if k := int(r.ScheduledAt / time.Second); k < seconds {
			out[k]++
		}
	}
	return out
}

// TestRampFollowsTheLine: a linear ramp from 1 to 50 req/s over 10 s,
// run by the Generator, offers per second what the line integrates to
// (evenly spaced: within one request; Poisson: within the noise), and
// a ramp that ends holds its end rate.
func TestRampFollowsTheLine(t *testing.T) {
	r := Ramp{Shape: RampLinear, From: 1, To: 50, Over: 10 * time.Second}
	for _, shape := range []float64{0, 1} {
		synctest.Test(t, func(t *testing.T) {
			g := newBubbled(newFake(50*time.Millisecond), okWorkload, WithPacer(RampPacer{Ramp: r, Shape: shape, Seed: 5}))
			var sink MemorySink
			res, err := g.Run(t.Context(), 0, Profile{Mode: ModeConstant, Rate: r.To}, Limits{MaxDuration: 12 * time.Second}, &sink)
			if err != nil {
				t.Fatal(err)
			}
			recs := bySeq(sink.Records())
			checkComplete(t, res, recs)
			got := perSecond(recs, 12)
			total := 0
			for k, n := range got {
				want := r.Expected(time.Duration(k+1)*time.Second) - r.Expected(time.Duration(k)*time.Second)
				tol := 1.0
				if shape == 1 {
					tol = 4*math.Sqrt(want) + 1 // Poisson noise, 4σ
				}
				if math.Abs(float64(n)-want) > tol {
					t.Errorf("shape %v: second %d offered %d requests, the line gives %.1f", shape, k, n, want)
				}
				total += n
			}
			want := r.Expected(12 * time.Second)
			if tol := 4*math.Sqrt(want) + 1; math.Abs(float64(total)-want) > tol {
				t.Errorf("shape %v: %d arrivals in 12 s, want %.0f ± %.0f", shape, total, want, tol)
			}
			if res.PlannedInWindow != res.Scheduled {
				t.Errorf("shape %v: planned in window %d, scheduled %d (no trims)", shape, res.PlannedInWindow, res.Scheduled)
			}
		})
	}
}

// indexedWork records the (k, seq) of each RequestAt call.
type indexedWork struct {
	mu   sync.Mutex
	seen map[int64]int64 // seq -> k
}

func (w *indexedWork) Request(seq int64) (Request, error) {
	return Request{}, fmt.Errorf("Request(%d) called on an IndexedWorkload", seq)
}

func (w *indexedWork) RequestAt(k, seq int64) (Request, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[int64]int64{}
	}
	w.seen[seq] = k
	return Request{Prompt: "p", MaxTokens: int(k) + 1}, nil
}

// TestScheduleReplay: a SchedulePacer fires each arrival at its offset
// exactly, simultaneous ones included, and an IndexedWorkload gets each
// arrival's index in the schedule, in every level and every shard.
func TestScheduleReplay(t *testing.T) {
	offsets := []time.Duration{0, 0, 5 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond, 1200 * time.Millisecond, 3 * time.Second}
	lim := Limits{MaxRequests: int64(len(offsets)), MaxDuration: offsets[len(offsets)-1] + time.Millisecond}
	for _, shards := range []int{1, 2} {
		synctest.Test(t, func(t *testing.T) {
			for idx := range shards {
				w := &indexedWork{}
				opts := []Option{WithPacer(SchedulePacer{Offsets: offsets}), WithSeqStart(100), WithDrainTimeout(time.Second)}
				if shards > 1 {
					opts = append(opts, WithShard(idx, shards))
				}
				g := newBubbled(newFake(10*time.Millisecond), w, opts...)
				for level := range 2 {
					var sink MemorySink
					res, err := g.Run(t.Context(), level, Profile{Mode: ModeConstant, Rate: 2}, lim, &sink)
					if err != nil {
						t.Fatal(err)
					}
					if res.Planned != int64(len(offsets)) || res.StopReason != StopMaxRequests {
						t.Fatalf("level %d: planned %d (want %d), stop %s", level, res.Planned, len(offsets), res.StopReason)
					}
					for _, r := range sink.Records() {
						k := r.Seq - res.FirstSeq
						if r.ScheduledAt-res.Start != offsets[k] {
							t.Errorf("level %d, arrival %d scheduled %v after the start, want %v", level, k, r.ScheduledAt-res.Start, offsets[k])
						}
						if got := w.seen[r.Seq]; got != k || r.RequestedOutputTokens != int(k)+1 {
							t.Errorf("level %d, seq %d: RequestAt got k = %d, want %d", level, r.Seq, got, k)
						}
						if r.Status != StatusOK {
							t.Errorf("arrival %d: %s", k, r.Status)
						}
					}
					if want := (len(offsets) - idx + shards - 1) / shards; len(sink.Records()) != want {
						t.Errorf("shard %d/%d, level %d: %d records, want %d", idx, shards, level, len(sink.Records()), want)
					}
				}
			}
		})
	}
	if got := (SchedulePacer{Offsets: offsets}).Arrival(int64(len(offsets)), 0); got < 100*365*24*time.Hour {
		t.Errorf("arrival past the schedule at %v, want far beyond any level", got)
	}
}

func FuzzParseRamp(f *testing.F) {
	for _, s := range []string{"linear:1->50:60s", "exponential:2->64:2m", "linear:0->1:1", "x:->:", "linear:1e308->1e309:1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRamp(s)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("ParseRamp(%q) accepted an invalid ramp: %v", s, err)
		}
		p := RampPacer{Ramp: r}
		var prev time.Duration
		for i := range int64(5) {
			at := p.Arrival(i, prev)
			if at < prev {
				t.Fatalf("ParseRamp(%q): arrival %d at %v before %v", s, i, at, prev)
			}
			prev = at
		}
	})
}

func TestArrivalsPacer(t *testing.T) {
	r := Ramp{Shape: RampLinear, From: 1, To: 5, Over: time.Second}
	poisson := Profile{Mode: ModePoisson, Rate: 4, Seed: 3}
	constant := Profile{Mode: ModeConstant, Rate: 4, Seed: 3}
	for _, tt := range []struct {
		a    Arrivals
		p    Profile
		want Pacer
	}{
		{Arrivals{}, poisson, nil},
		{Arrivals{Burstiness: 0.5}, poisson, GammaPacer{Rate: 4, Shape: 0.5, Seed: 3}},
		{Arrivals{Burstiness: 0.5}, constant, nil},
		{Arrivals{Ramp: &r}, constant, RampPacer{Ramp: r, Seed: 3}},
		{Arrivals{Ramp: &r}, poisson, RampPacer{Ramp: r, Shape: 1, Seed: 3}},
		{Arrivals{Ramp: &r, Burstiness: 2}, poisson, RampPacer{Ramp: r, Shape: 2, Seed: 3}},
		{Arrivals{Ramp: &r}, Profile{Mode: ModeConcurrent, Concurrency: 2}, nil},
	} {
		if got := tt.a.Pacer(tt.p); got != tt.want {
			t.Errorf("%+v.Pacer(%+v) = %#v, want %#v", tt.a, tt.p, got, tt.want)
		}
	}
	if err := (Arrivals{Burstiness: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "Arrivals.Burstiness -1") {
		t.Errorf("negative burstiness: %v", err)
	}
	if err := (Arrivals{Ramp: &Ramp{Shape: RampLinear, From: 5, To: 1, Over: time.Second}}).Validate(); err == nil || !strings.Contains(err.Error(), "Arrivals.Ramp: the end rate") {
		t.Errorf("a falling ramp: %v", err)
	}
}
