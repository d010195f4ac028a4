package benchmark

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// WarnOpenFiles: a level asked for more requests in flight than the
// process's open-file limit allows, and was bounded to what fits.
const WarnOpenFiles metrics.WarningCode = "open_files_bound"

// openFilesKept is the number of open files kept out of the bound on
// requests in flight: the records log, the results folder, telemetry
// scrapes, the tokenizer and the runtime's own.
const openFilesKept = 128

// inFlightBound returns the most requests the run may have in flight
// given limit, the process's open-file limit (openFileLimit): one
// connection each, two with the built-in mock, whose server side is in
// the same process; at least 1. 0 means no bound (limit unknown).
func inFlightBound(limit int, mockInProcess bool) int {
	if limit <= 0 {
		return 0
	}
	n := limit - openFilesKept
	if mockInProcess {
		n /= 2
	}
	return max(n, 1)
}

// bounded returns want bounded by b.fdBound (0: want unchanged; want 0
// means no cap), noting the first bound for WarnOpenFiles. what names the
// setting and its value.
func (b *Benchmark) bounded(want int, what string) int {
	if b.fdBound <= 0 || (want > 0 && want <= b.fdBound) {
		return want
	}
	if b.fdNote == "" {
		b.fdNote = fmt.Sprintf("%s: bounded to %d requests in flight; the process may open %d files (its open-file limit, raised to the hard limit at start) and each request in flight holds a connection; raise the hard limit (ulimit -Hn) for more", what, b.fdBound, b.fdLimit)
	}
	return b.fdBound
}

// openFilesWarnings says when a level was bounded by the open-file limit.
func (b *Benchmark) openFilesWarnings() []metrics.Warning {
	if b.fdNote == "" {
		return nil
	}
	return []metrics.Warning{{Code: WarnOpenFiles, Level: -1, Message: b.fdNote}}
}

// DefaultMaxInFlight bounds the requests in flight of an open-loop `run`
// level given no --max-concurrency, for the client's memory: each request
// in flight costs it about 60 KB live (the request's goroutine and the
// connection's two with their stacks, the connection's read and write
// buffers, the stream's line buffer, the prompt), and the garbage
// collector lets the heap grow to twice what is live; on loopback, 2048 in
// flight peaked at 130–254 MB RSS on a busy 2-core machine, 4,089 at
// 261 MB, and --rate 1e6 with no cap held 19,900 in flight at 834 MB.
// 1024 keep a runaway rate well under 300 MB; a server with more requests
// than that in flight is queueing them anyway. Arrivals beyond it queue,
// counted as scheduling lag, and a level that reached it says so
// (WarnInFlightBound). An explicit --max-concurrency is bounded by the
// open-file limit only.
const DefaultMaxInFlight = 1024

// WarnInFlightBound: an open-loop level given no --max-concurrency reached
// DefaultMaxInFlight requests in flight.
const WarnInFlightBound metrics.WarningCode = "in_flight_bound"

// rateCap is the MaxConcurrency of the run's open-loop and throughput
// levels: --max-concurrency, bounded by the open-file limit. An open-loop
// `run` level with no cap gets one when it could exceed it (its rate ×
// --request-timeout, the most requests it can have in flight, is above
// the cap, or there is no request timeout): the open-file bound, since
// each arrival beyond it would fail on the client's own resources, or
// DefaultMaxInFlight when that is lower, for the client's memory. A
// sweep's levels, and a `run` throughput level, keep no cap: a sweep's
// rates come from the throughput the server sustained, and the throughput
// level's default cap (loadgen.DefaultThroughputConcurrency) must stay the
// default; unless the open-file bound is below that default, when they
// get the bound, with the warning, rather than the transport's connection
// cap queueing requests out of sight.
func (b *Benchmark) rateCap() int {
	s := &b.s
	if s.MaxConcurrency > 0 {
		return b.bounded(s.MaxConcurrency, fmt.Sprintf("--max-concurrency %d", s.MaxConcurrency))
	}
	if b.fdBound > 0 && b.fdBound < loadgen.DefaultThroughputConcurrency {
		switch {
		case b.isSweep():
			return b.bounded(0, fmt.Sprintf("the sweep's throughput level and ramp (%d requests in flight by default)", loadgen.DefaultThroughputConcurrency))
		case loadgen.Mode(s.Profile) == loadgen.ModeThroughput && len(b.levels) == 0:
			return b.bounded(0, fmt.Sprintf("--profile throughput (%d requests in flight by default)", loadgen.DefaultThroughputConcurrency))
		}
	}
	if b.isSweep() || !loadgen.Mode(s.Profile).OpenLoop() {
		return 0
	}
	memory := b.fdBound <= 0 || DefaultMaxInFlight < b.fdBound
	bound := b.fdBound
	if memory {
		bound = DefaultMaxInFlight
	}
	for _, r := range b.levels {
		if s.RequestTimeout <= 0 || r*s.RequestTimeout.Seconds() > float64(bound) {
			if memory {
				b.memCap = true
				return DefaultMaxInFlight
			}
			return b.bounded(0, fmt.Sprintf("--rate %g with no --max-concurrency", r))
		}
	}
	return 0
}

// inFlightWarnings says which levels reached DefaultMaxInFlight, when the
// run's open-loop levels were given it as their cap.
func (b *Benchmark) inFlightWarnings(res sweep.Result) []metrics.Warning {
	if !b.memCap {
		return nil
	}
	var ws []metrics.Warning
	for _, lv := range res.Levels {
		c := lv.Summary.Client
		if lv.Profile.MaxConcurrency == DefaultMaxInFlight && (c.Capped || c.PeakInFlight >= DefaultMaxInFlight) {
			ws = append(ws, metrics.Warning{Code: WarnInFlightBound, Level: lv.Index, Message: fmt.Sprintf(
				"level %d reached %d requests in flight, the bound of a level given no --max-concurrency (each request in flight costs the client about 60 KB of memory); later arrivals queued, counted as scheduling lag; give --max-concurrency N to set another bound (at most the open-file limit allows)",
				lv.Index, DefaultMaxInFlight)})
		}
	}
	return ws
}
