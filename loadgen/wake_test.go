package loadgen

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// brokenFine is a fineTimer whose sleeps fail at once.
type brokenFine struct{ closed bool }

func (b *brokenFine) sleep(time.Duration) error { return errors.New("broken") }
func (b *brokenFine) close() error              { b.closed = true; return nil }

func TestWakerNeverEarly(t *testing.T) {
	clock := NewClock(time.Now())
	for _, name := range []string{"platform", "runtime-timer-only", "failing-fine-timer"} {
		t.Run(name, func(t *testing.T) {
			w := newWaker(clock, true)
			defer w.close()
			var broken *brokenFine
			switch name {
			case "runtime-timer-only":
				if w.fine != nil {
					w.fine.close()
				}
				w.fine = nil
			case "failing-fine-timer":
				if w.fine != nil {
					w.fine.close()
				}
				broken = &brokenFine{}
				w.fine = broken
			}
			for _, d := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 700 * time.Microsecond, 1500 * time.Microsecond, 4 * time.Millisecond} {
				at := clock.Now() + d
				if !w.until(context.Background(), at) {
					t.Fatalf("until(now%+v) = false with a live context", d)
				}
				if now := clock.Now(); now < at {
					t.Errorf("until(now%+v) returned %v before the arrival", d, at-now)
				}
			}
			if broken != nil && (!broken.closed || w.fine != nil) {
				t.Errorf("a failing fine timer was kept (closed %v, fine %v); want it closed and dropped", broken.closed, w.fine)
			}
		})
	}
}

func TestWakerCancelled(t *testing.T) {
	clock := NewClock(time.Now())
	w := newWaker(clock, true)
	defer w.close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if w.until(ctx, clock.Now()+time.Hour) {
		t.Error("until = true with a cancelled context; want false")
	}
	// Within the fine span the wait ends at the arrival, and still reports
	// the cancellation.
	if w.until(ctx, clock.Now()+100*time.Microsecond) {
		t.Error("until(fine span) = true with a cancelled context; want false")
	}
}

// BenchmarkWakerLateness reports how late the pacer's wait ends after an
// arrival 0.4–2.9 ms away, as on an idle client between arrivals of a
// 350–2,500 req/s plan (µs, p50 and p99 over b.N waits), with the fine
// timer where the platform has one and with runtime timers only. The
// difference is the scheduling lag the fine timer removes.
func BenchmarkWakerLateness(b *testing.B) {
	for _, fine := range []bool{true, false} {
		name := "runtime-timer"
		if fine {
			name = "fine-timer"
		}
		b.Run(name, func(b *testing.B) {
			clock := NewClock(time.Now())
			w := newWaker(clock, true)
			defer w.close()
			if !fine && w.fine != nil {
				w.fine.close()
				w.fine = nil
			}
			if fine && w.fine == nil {
				b.Skip("no fine timer on this platform")
			}
			late := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				at := clock.Now() + 400*time.Microsecond + time.Duration(i%26)*100*time.Microsecond
				w.until(context.Background(), at)
				late = append(late, clock.Now()-at)
			}
			slices.Sort(late)
			q := func(p float64) float64 {
				return float64(late[int(p*float64(len(late)-1))]) / float64(time.Microsecond)
			}
			b.ReportMetric(q(0.5), "late-p50-µs")
			b.ReportMetric(q(0.99), "late-p99-µs")
		})
	}
}

// newBubbled is New for tests under testing/synctest: the bubble's fake
// clock does not drive the kernel timer, so the fine timer is off.
func newBubbled(r Requester, w Workload, opts ...Option) *Generator {
	return New(r, w, append([]Option{WithFineTimer(false)}, opts...)...)
}

// TestWakerFineOnlyForSparseArrivals: the fine timer serves arrivals whose
// moving-average gap is at least fineMinGap, and leaves denser ones to the
// runtime timer's batching.
func TestWakerFineOnlyForSparseArrivals(t *testing.T) {
	w := newWaker(NewClock(time.Now()), false)
	defer w.close()
	w.fine = &brokenFine{} // never slept on: only the decision is tested
	at := time.Duration(0)
	uses := func(n int, gap time.Duration) (fine int) {
		for range n {
			at += gap
			if w.useFine(at) {
				fine++
			}
		}
		return fine
	}
	if got := uses(1, 0); got != 1 {
		t.Errorf("first arrival: fine timer used %d times, want 1", got)
	}
	if got := uses(200, 250*time.Microsecond); got != 0 {
		t.Errorf("4,000 req/s: fine timer used for %d of 200 arrivals, want 0", got)
	}
	// Back to 500 req/s: the average climbs past fineMinGap within a few
	// dozen arrivals, and stays there.
	uses(60, 2*time.Millisecond)
	if got := uses(100, 2*time.Millisecond); got != 100 {
		t.Errorf("500 req/s: fine timer used for %d of 100 arrivals, want 100", got)
	}
	// A Poisson-like mix averaging 1,000 req/s keeps it.
	mix := []time.Duration{100 * time.Microsecond, 300 * time.Microsecond, 700 * time.Microsecond, 1200 * time.Microsecond, 2700 * time.Microsecond}
	fine := 0
	for i := range 500 {
		at += mix[i%len(mix)]
		if w.useFine(at) {
			fine++
		}
	}
	if fine != 500 {
		t.Errorf("1,000 req/s mix: fine timer used for %d of 500 arrivals, want 500", fine)
	}
	w.fine = nil
	if w.useFine(at + time.Second) {
		t.Error("fine timer used without one")
	}
}
