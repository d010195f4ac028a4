package metrics

import (
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// Live is a cheap running tally for the progress line
// (docs/outputs.md#the-console): requests done, failures, output tokens and
// the TTFT p99 so far. It ignores the window (it is for watching, not for
// results; the Summary is the result). Its TTFT histogram has 2 significant
// digits (≈ 1 % resolution), so it is small. The zero Live is not usable:
// build one with NewLive. A Live is safe for concurrent use.
type Live struct {
	mu     sync.Mutex
	stats  LiveStats
	ttftUS *hdrhistogram.Histogram
}

// LiveStats is a snapshot of a Live.
type LiveStats struct {
	Done         int64   // records seen, whatever their status
	Failed       int64   // records with status error or timeout
	OutputTokens int64   // sum of OutputTokens, tokens
	TTFTP99      float64 // TTFT p99 of the ok requests so far, ms (0 before the first)
}

// NewLive returns an empty Live.
func NewLive() *Live {
	return &Live{ttftUS: hdrhistogram.New(1, maxFiniteMicros, 2)}
}

// Add counts one finished request. It does not modify rec.
func (l *Live) Add(rec *loadgen.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats.Done++
	if failed(rec.Status) {
		l.stats.Failed++
	}
	l.stats.OutputTokens += int64(rec.OutputTokens)
	if ttft, ok := rec.TTFT(); ok && rec.Status == loadgen.StatusOK {
		_ = l.ttftUS.RecordValue(micros(ttft))
	}
}

// Stats returns the tallies so far.
func (l *Live) Stats() LiveStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.TTFTP99 = float64(l.ttftUS.ValueAtPercentile(99)) / float64(time.Millisecond/time.Microsecond)
	return s
}

// Reset clears the tallies, for the next level.
func (l *Live) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats = LiveStats{}
	l.ttftUS.Reset()
}
