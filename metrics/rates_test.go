package metrics

import (
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// TestTimelineRates: the offered rate counts requests by their intended
// send time, cut off ones included; the completed rate counts the
// successful ones by when they finished.
func TestTimelineRates(t *testing.T) {
	b := NewTimelineBuilder(0, 0, 4*time.Second, loadgen.Window{End: 4 * time.Second}, 4)
	add := func(sched, done time.Duration, st loadgen.Status) {
		sent := sched
		if st == loadgen.StatusCancelled {
			sent = 0
		}
		b.Add(&loadgen.Record{ScheduledAt: sched, SentAt: sent, DoneAt: done, Status: st})
	}
	// Second 0: 1 arrival; second 1: 2; second 2: 3 (one fails, one is
	// cut off before it was sent); second 3: none.
	add(100*time.Millisecond, 1500*time.Millisecond, loadgen.StatusOK)
	add(1100*time.Millisecond, 1900*time.Millisecond, loadgen.StatusOK)
	add(1200*time.Millisecond, 3100*time.Millisecond, loadgen.StatusOK)
	add(2000*time.Millisecond, 2500*time.Millisecond, loadgen.StatusError)
	add(2100*time.Millisecond, 2600*time.Millisecond, loadgen.StatusOK)
	add(2900*time.Millisecond, 3000*time.Millisecond, loadgen.StatusCancelled)
	tl := b.Timeline()
	for k, want := range []float64{1, 2, 3, 0} {
		if tl.OfferedReqPerSec[k] != want {
			t.Errorf("offered in second %d = %v, want %v", k, tl.OfferedReqPerSec[k], want)
		}
	}
	for k, want := range []float64{0, 2, 1, 1} {
		if tl.CompletedReqPerSec[k] != want {
			t.Errorf("completed in second %d = %v, want %v", k, tl.CompletedReqPerSec[k], want)
		}
	}
}
