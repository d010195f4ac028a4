package metrics

import (
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

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
	a := NewAccumulator(Config{Window: loadgen.Window{Start: 0, End: time.Hour}})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a.Add(recs[i%len(recs)])
	}
}

// BenchmarkSummary measures Summary over a level of 10,000 requests.
func BenchmarkSummary(b *testing.B) {
	a := NewAccumulator(Config{Window: loadgen.Window{Start: 2 * time.Second, End: 11 * time.Second}})
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

// levelOf100k returns 100,000 records and a function that makes an empty
// accumulator for their level.
func levelOf100k() ([]*loadgen.Record, func() *Accumulator) {
	recs := randomRecords(rand.New(rand.NewPCG(9, 9)), 100_000)
	end := recs[len(recs)-1].DoneAt
	return recs, func() *Accumulator {
		return NewAccumulator(Config{Window: loadgen.Window{Start: end / 10, End: end * 9 / 10},
			Good: func(r *loadgen.Record) bool { d, _ := r.TTFT(); return d < 150*time.Millisecond }})
	}
}

// BenchmarkAccumulateLevel is the whole accumulation of a level of
// 100,000 records: every Add, then Summary, intervals included (the
// denominator of goal P6, docs/performance.md).
func BenchmarkAccumulateLevel(b *testing.B) {
	recs, level := levelOf100k()
	b.ReportAllocs()
	for b.Loop() {
		a := level()
		for _, r := range recs {
			a.Add(r)
		}
		_ = a.Summary()
	}
}

// BenchmarkLevelIntervals is the interval work of Summary for the same
// level: the order-statistic ranks and their values for the five reported
// percentiles and the mean of every distribution, then the Wilson and
// batch-means intervals (the numerator of goal P6; the sub-window counts
// that batch means need are kept by Add, whose cost BenchmarkAdd shows).
func BenchmarkLevelIntervals(b *testing.B) {
	recs, level := levelOf100k()
	a := level()
	for _, r := range recs {
		a.Add(r)
	}
	s := a.Summary()
	hs := []*hdrhistogram.Histogram{a.ttft, a.ttftCorr, a.ttfot, a.itl, a.icl, a.e2e, a.lag, a.send, a.ttftAdj, a.e2eAdj, a.perChunk, a.isl, a.osl}
	b.ReportAllocs()
	for b.Loop() {
		memo := rankMemo{}
		for _, h := range hs {
			if h.TotalCount() == 0 {
				continue
			}
			answerQuantiles(h, []quantileQuery{{p: 50}, {p: 90}, {p: 95}, {p: 99}, {p: 99.9}}, memo)
			meanInterval(h, 1, 1, false)
		}
		setIntervals(&s)
	}
}
