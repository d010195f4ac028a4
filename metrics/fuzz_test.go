package metrics

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// FuzzAccumulator builds records of any shape (times out of order,
// negative durations, mismatched chunk slices) from the input and checks
// that Add and Summary never panic and that the counts hold together.
func FuzzAccumulator(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte("some requests, some failures, some chunks...................."))
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int64 {
			if len(data) == 0 {
				return 0
			}
			n := min(len(data), 3)
			var b [8]byte
			copy(b[:], data[:n])
			data = data[n:]
			return int64(binary.LittleEndian.Uint64(b[:]))
		}
		unit := func() time.Duration { return time.Duration(next()-1<<22) * 10 * time.Microsecond } // about ±42 s
		statuses := []loadgen.Status{loadgen.StatusOK, loadgen.StatusError, loadgen.StatusTimeout, loadgen.StatusCancelled}
		cfg := Config{Window: loadgen.Window{Start: unit(), End: unit()}, Profile: loadgen.Profile{Mode: loadgen.ModeConstant, Rate: float64(next() % 100), MaxConcurrency: int(next() % 8)}}
		cfg.Good = func(*loadgen.Record) bool { return next()%2 == 0 }
		a := NewAccumulator(cfg)
		var added int64
		for len(data) > 0 {
			r := &loadgen.Record{ScheduledAt: unit(), SentAt: unit(), FirstTokenAt: unit(), FirstContentAt: unit(),
				LastTokenAt: unit(), DoneAt: unit(), Status: statuses[next()%4],
				PromptTokens: int(next()) - 100, OutputTokens: int(next()) - 100, RequestedOutputTokens: int(next() % 300),
				ServerOutputTokens: int(next() % 300), LocalOutputTokens: int(next() % 300)}
			for range next() % 6 {
				r.ChunkTimes = append(r.ChunkTimes, unit())
			}
			for range next() % 6 {
				r.ChunkTokens = append(r.ChunkTokens, int32(next()%5)-1)
			}
			a.Add(r)
			added++
		}
		s := a.Summary()
		q := s.Requests
		if q.Scheduled != added || q.Sent != q.OK+q.Failed+q.Incomplete || q.Sent > q.Scheduled {
			t.Fatalf("counts do not add up: %+v after %d records", q, added)
		}
		if s.ErrorRate < 0 || s.ErrorRate > 1 || s.TTFT.Count > q.OK || s.TTFTErrorAdjusted.Inf != q.Failed || s.Lag.Count != q.Sent {
			t.Fatalf("inconsistent summary: error rate %v, ttft %d, inf %d, lag %d, counts %+v",
				s.ErrorRate, s.TTFT.Count, s.TTFTErrorAdjusted.Inf, s.Lag.Count, q)
		}
		if s.Goodput.OutputTokensPerSecond > s.OutputTokensPerSecond*(1+1e-9)+1e-9 {
			t.Fatalf("goodput %v tok/s above the throughput %v tok/s it is part of", s.Goodput.OutputTokensPerSecond, s.OutputTokensPerSecond)
		}
		for _, v := range []float64{s.OutputTokensPerSecond, s.InputTokensPerSecond, s.RequestsPerSecond, s.MeanConcurrency, s.Goodput.RequestsPerSecond} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("rate %v in %+v", v, s)
			}
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if _, err := MergeSummaries(s, s); err != nil {
			t.Fatalf("merge with itself: %v", err)
		}
	})
}

// FuzzDecodeHistogram feeds arbitrary text to the histogram decoder behind
// Merge, Percentile and FractionAtOrBelow (run.json is user input to
// `gollm-bench report` and `merge`): errors are fine, panics are not.
func FuzzDecodeHistogram(f *testing.F) {
	f.Add(latencies(1, 1, 2, 3).Histogram, int64(4))
	f.Add("HISTFAAAABx42pJpmSzMwMBgxQABzFCaEYTnqnsw2H+ACHQFMDUCAQAA//8hAwJ9", int64(3))
	f.Add("", int64(0))
	f.Fuzz(func(t *testing.T, enc string, count int64) {
		d := Distribution{Unit: UnitMS, Count: count, Histogram: enc}
		_, _ = DecodeHistogram(d)
		_ = d.Percentile(99)
		_ = d.FractionAtOrBelow(10)
		_, _ = Merge(d, d)
	})
}
