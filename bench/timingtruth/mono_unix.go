//go:build unix

package main

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/gollm-bench/gollm-bench/internal/rxstamp"
)

// monoClock maps the Go clock's readings to CLOCK_MONOTONIC ns, which every
// process on the machine shares, so that a client and a server in two
// processes can compare their stamps. Go's monotonic readings are
// CLOCK_MONOTONIC offset by a per-process constant; the pair (t0, m0) taken
// together fixes that offset to within the ~100 ns between the two reads.
type monoClock struct {
	t0 time.Time
	m0 int64 // CLOCK_MONOTONIC at t0, ns
}

func newMonoClock() (monoClock, error) {
	var ts unix.Timespec
	before := time.Now()
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return monoClock{}, err
	}
	after := time.Now()
	return monoClock{t0: before.Add(after.Sub(before) / 2), m0: ts.Nano()}, nil
}

// ns returns t as CLOCK_MONOTONIC ns.
func (c monoClock) ns(t time.Time) int64 { return c.m0 + int64(t.Sub(c.t0)) }

// fromRealtime returns a kernel stamp, CLOCK_REALTIME ns, as
// CLOCK_MONOTONIC ns (rxstamp.Offset converts it).
func (c monoClock) fromRealtime(ns int64) int64 { return c.m0 + ns - rxstamp.Offset(c.t0) }
