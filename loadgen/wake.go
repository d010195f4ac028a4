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

// waker sleeps the open-loop pacer until each arrival's intended send time.
//
// Go's runtime timers fire up to about 1 ms late when the process is idle:
// runtime/netpoll_epoll.go rounds every sleep to whole milliseconds. That
// lateness is scheduling lag (SPEC §5) that every request of a low or
// moderate rate would carry. Where the platform offers one (Linux: a
// timerfd, see wake_linux.go), a waker sleeps the last fineSpan on a
// kernel timer with microsecond resolution that the runtime's poller
// watches, racing it with a runtime timer so that a busy process, which
// polls the network less often, is no later than before. It never spins,
// and it never wakes before the arrival.
//
// A waker belongs to one goroutine; close it when the level ends.
type waker struct {
	clock  Clock
	coarse *time.Timer
	fine   fineTimer // nil: runtime timers only
}

// fineTimer is a sub-millisecond one-shot sleep; see wake_linux.go.
type fineTimer interface {
	// sleep returns after d (s), or earlier only if the timer failed, in
	// which case it returns an error and the caller falls back.
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
	wait := at - w.clock.Now()
	if w.fine != nil {
		wait -= fineSpan
	}
	if wait > 0 {
		w.coarse.Reset(wait)
		select {
		case <-w.coarse.C:
		case <-ctx.Done():
			w.coarse.Stop()
			return false
		}
	}
	if w.fine != nil {
		// At most fineSpan left: short enough not to watch ctx.
		for left := at - w.clock.Now(); left > 0; left = at - w.clock.Now() {
			if err := w.fine.sleep(left); err != nil {
				w.fine.close()
				w.fine = nil
				return w.until(ctx, at)
			}
		}
	}
	return ctx.Err() == nil
}

func (w *waker) close() {
	w.coarse.Stop()
	if w.fine != nil {
		w.fine.close()
	}
}
