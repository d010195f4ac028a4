package loadgen

import (
	"context"
	"time"
)

// fineSpan is how long before an arrival the pacer hands its wait from the
// Go runtime timer to the fine timer (see waker). It must exceed the Go
// timer's lateness when the process is idle (up to about 1 ms: the runtime
// sleeps in epoll_wait, whose timeout has millisecond resolution), so that
// the coarse wait never overshoots the arrival.
const fineSpan = 2 * time.Millisecond

// fineSlack is how much later than the runtime timer the kernel timer is
// armed (see waker).
const fineSlack = 50 * time.Microsecond

// waker sleeps the open-loop pacer until each arrival's intended send time.
//
// Go's runtime timers fire up to about 1 ms late when the process is idle:
// runtime/netpoll_epoll.go rounds every sleep to whole milliseconds. That
// lateness is scheduling lag (docs/metrics.md#client-health) that every
// request of a low or moderate rate would carry. Where the platform offers
// one (Linux: a timerfd, see wake_linux.go), a waker sleeps the last fineSpan
// on a kernel timer with microsecond resolution that the runtime's poller
// watches, racing it with a runtime timer. It never spins, and it never wakes
// before the arrival.
//
// On a busy process the runtime checks its timers at every scheduling
// decision, so its timer is on time and wins the race; a kernel timer
// expiring then would only wake a thread for nothing. So the kernel timer
// is armed fineSlack after the arrival and disarmed when the runtime timer
// wins: an idle process wakes within about fineSlack + 0.1 ms of the
// arrival.
//
// Precision costs one wake-up of the process per arrival. When arrivals
// come less than fineMinGap apart on average (above about 1,300 req/s per
// pacer), the runtime timer's millisecond tick batches them, and that is
// cheaper than a wake-up each: on a 2-vCPU VM the kernel timer raised the
// client's CPU from 45 % to 68 % of a core at 3,000 req/s, and that load
// made the lag worse, not better. So the waker uses the kernel timer only
// while the moving average of the gaps between arrivals is at least
// fineMinGap.
//
// A waker belongs to one goroutine; close it when the level ends.
type waker struct {
	clock  Clock
	coarse *time.Timer
	fine   fineTimer // nil: runtime timers only
	// prev is the last arrival waited for; gap is the moving average of
	// the gaps between arrivals (weight 1/64 for the newest, so that a
	// Poisson plan at 1,000 req/s stays above fineMinGap).
	prev, gap time.Duration
	started   bool
}

// fineMinGap is the mean gap between arrivals below which a waker leaves
// them to the runtime timer (see waker).
const fineMinGap = 750 * time.Microsecond

// fineTimer is a sub-millisecond one-shot sleep; see wake_linux.go.
type fineTimer interface {
	// sleep returns after d (s), no earlier. An error means the fine
	// timer failed and the caller must stop using it.
	sleep(d time.Duration) error
	close() error
}

// newWaker returns a waker on clock, with a fine timer if fine is set and
// the platform has one.
func newWaker(clock Clock, fine bool) *waker {
	w := &waker{clock: clock, coarse: time.NewTimer(time.Hour)}
	w.coarse.Stop()
	if fine {
		if ft, err := newFineTimer(); err == nil {
			w.fine = ft
		}
	}
	return w
}

// until blocks until the clock reads at (an offset from the run's start)
// or ctx is done, and reports whether it got to at. It returns at once if
// at has passed.
func (w *waker) until(ctx context.Context, at time.Duration) bool {
	if !w.useFine(at) {
		return w.coarseUntil(ctx, at)
	}
	if !w.coarseUntil(ctx, at-fineSpan) {
		return false
	}
	// At most fineSpan left: short enough not to watch ctx.
	for left := at - w.clock.Now(); left > 0; left = at - w.clock.Now() {
		if err := w.fine.sleep(left); err != nil {
			w.fine.close()
			w.fine = nil
			return w.coarseUntil(ctx, at)
		}
	}
	return ctx.Err() == nil
}

// coarseUntil is until on the runtime timer alone.
func (w *waker) coarseUntil(ctx context.Context, at time.Duration) bool {
	if wait := at - w.clock.Now(); wait > 0 {
		w.coarse.Reset(wait)
		select {
		case <-w.coarse.C:
		case <-ctx.Done():
			w.coarse.Stop()
			return false
		}
	}
	return ctx.Err() == nil
}

// useFine notes arrival at in the moving average of the gaps and reports
// whether to sleep its last stretch on the fine timer.
func (w *waker) useFine(at time.Duration) bool {
	if w.started {
		w.gap += (at - w.prev - w.gap) / 64
	} else {
		w.started, w.gap = true, fineMinGap
	}
	w.prev = at
	return w.fine != nil && w.gap >= fineMinGap
}

func (w *waker) close() {
	w.coarse.Stop()
	if w.fine != nil {
		w.fine.close()
	}
}
