//go:build !unix

package main

import (
	"errors"
	"time"
)

// monoClock needs a shared CLOCK_MONOTONIC; see mono_unix.go.
type monoClock struct{}

func newMonoClock() (monoClock, error) {
	return monoClock{}, errors.New("timingtruth: needs a unix CLOCK_MONOTONIC")
}

func (monoClock) ns(time.Time) int64 { return 0 }

func (monoClock) fromRealtime(int64) int64 { return 0 }
