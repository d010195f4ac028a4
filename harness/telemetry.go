package harness

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// telemetryTimeout bounds one telemetry read (a scrape, an NVML call).
const telemetryTimeout = 10 * time.Second

// levelTelemetry reads a Telemetry source at a level's window start and
// end. With duration trims both instants are known in advance and hit by
// timers; with request-count trims the window opens at the level's start
// and closes when the level ends (the records still carry the exact window,
// and the reading says how long it covered).
type levelTelemetry struct {
	done   chan struct{}
	wg     sync.WaitGroup
	result TelemetryReading
	err    error
}

func startTelemetry(ctx context.Context, t Telemetry, level int, lim loadgen.Limits) *levelTelemetry {
	lt := &levelTelemetry{done: make(chan struct{})}
	if t == nil {
		return lt
	}
	begin, end := lim.PlannedWindow()
	lt.wg.Add(1)
	go func() {
		defer lt.wg.Done()
		// Reads run on a context that outlives an interruption, so a
		// partial level keeps its energy figure.
		read := context.WithoutCancel(ctx)
		started := time.Now()
		if !wait(ctx, lt.done, begin) {
			return // the level ended before its window opened
		}
		bctx, cancel := context.WithTimeout(read, telemetryTimeout)
		lt.err = telemetryGuarded("Begin", level, func() error { return t.Begin(bctx, level) })
		cancel()
		if lt.err != nil {
			return
		}
		if end > 0 {
			wait(ctx, lt.done, end-time.Since(started))
		} else {
			select {
			case <-lt.done:
			case <-ctx.Done():
			}
		}
		ectx, cancel := context.WithTimeout(read, telemetryTimeout)
		lt.err = telemetryGuarded("End", level, func() (err error) {
			lt.result, err = t.End(ectx, level)
			return err
		})
		cancel()
	}()
	return lt
}

// telemetryGuarded calls fn, Telemetry's method what, turning a panic
// (in the telemetry goroutine, which the embedder could not recover) into
// its error: the level then carries a WarnTelemetryFailed warning with
// the panic's message, as for any failed reading.
func telemetryGuarded(what string, level int, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("harness: Telemetry.%s panicked at level %d: %v", what, level, v)
		}
	}()
	return fn()
}

// wait sleeps d, returning false if the level ended first (done closed).
// A cancelled ctx ends the wait early but returns true, so the reading
// still happens.
func wait(ctx context.Context, done <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return true
	case <-done:
		return false
	}
}

// finish tells the reader the level is over and waits for its last read.
func (lt *levelTelemetry) finish() (TelemetryReading, error) {
	close(lt.done)
	lt.wg.Wait()
	return lt.result, lt.err
}
