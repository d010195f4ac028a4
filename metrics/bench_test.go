package metrics

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

func BenchmarkRecordLatency(b *testing.B) {
	h := newLatencyHistogram()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		recordLatency(h, time.Duration(i%100_000)*time.Microsecond)
	}
}

// BenchmarkAdd measures Add for one 64-chunk streamed request.
func BenchmarkAdd(b *testing.B) {
	recs := randomRecords(rand.New(rand.NewPCG(3, 4)), 1024)
	a := NewAccumulator(Config{Window: Window{Start: 0, End: time.Hour}})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a.Add(recs[i%len(recs)])
	}
}

// BenchmarkSummary measures Summary over a level of 10,000 requests.
func BenchmarkSummary(b *testing.B) {
	a := NewAccumulator(Config{Window: Window{Start: 2 * time.Second, End: 11 * time.Second}})
	for _, r := range randomRecords(rand.New(rand.NewPCG(5, 6)), 10_000) {
		a.Add(r)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = a.Summary()
	}
}

func BenchmarkLiveAdd(b *testing.B) {
	l := NewLive()
	r := &loadgen.Record{Status: loadgen.StatusOK, SentAt: time.Second, FirstTokenAt: time.Second + 20*time.Millisecond, OutputTokens: 128}
	b.ReportAllocs()
	for b.Loop() {
		l.Add(r)
	}
}
