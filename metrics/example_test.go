package metrics_test

import (
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// A level runner builds a Config once the level is over, adds every record
// of the level, and keeps the Summary.
func Example() {
	ms := func(x int) time.Duration { return time.Duration(x) * time.Millisecond }
	acc := metrics.NewAccumulator(metrics.Config{
		Level:   0,
		Profile: loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 2},
		Window:  loadgen.Window{Start: 0, End: 2 * time.Second},
		MaxLag:  ms(10),
		Good:    func(r *loadgen.Record) bool { t, _ := r.TTFT(); return t <= ms(100) },
	})
	for i := range 4 {
		sent := ms(500 * i)
		rec := &loadgen.Record{Seq: int64(i), ScheduledAt: sent, SentAt: sent, Status: loadgen.StatusOK,
			FirstTokenAt: sent + ms(50+40*i), LastTokenAt: sent + ms(290+40*i), DoneAt: sent + ms(300+40*i),
			ChunkTimes:  []time.Duration{sent + ms(50+40*i), sent + ms(170+40*i), sent + ms(290+40*i)},
			ChunkTokens: []int32{1, 1, 1}, OutputTokens: 3, PromptTokens: 128}
		if i == 3 {
			rec.Status, rec.ErrorKind = loadgen.StatusError, loadgen.ErrorDisconnect
		}
		acc.Add(rec)
	}
	s := acc.Summary()
	fmt.Printf("sent %d, ok %d, failed %d, error rate %.2f\n", s.Requests.Sent, s.Requests.OK, s.Requests.Failed, s.ErrorRate)
	fmt.Printf("TTFT p50 %.0f ms, ITL p50 %.0f ms, error-adjusted TTFT p99 %v ms\n", s.TTFT.P50, s.ITL.P50, s.TTFTErrorAdjusted.P99)
	fmt.Printf("goodput %d requests, %.1f req/s\n", s.Goodput.Requests, s.Goodput.RequestsPerSecond)
	fmt.Printf("P[TTFT <= 100 ms] = %.2f\n", s.TTFT.FractionAtOrBelow(100))
	for _, w := range s.Warnings {
		fmt.Println(w.Code)
	}
	// Output:
	// sent 4, ok 3, failed 1, error rate 0.25
	// TTFT p50 90 ms, ITL p50 120 ms, error-adjusted TTFT p99 +Inf ms
	// goodput 2 requests, 1.0 req/s
	// P[TTFT <= 100 ms] = 0.67
	// high_error_rate
}

// The CLI's record sink feeds a Live for the progress line; the progress
// goroutine reads it.
func ExampleLive() {
	live := metrics.NewLive()
	for i := range 100 {
		live.Add(&loadgen.Record{Status: loadgen.StatusOK, SentAt: time.Second,
			FirstTokenAt: time.Second + time.Duration(i+1)*time.Millisecond, OutputTokens: 16})
	}
	st := live.Stats()
	fmt.Printf("%d done, %d failed, %d tokens, TTFT p99 %.0f ms\n", st.Done, st.Failed, st.OutputTokens, st.TTFTP99)
	// Output: 100 done, 0 failed, 1600 tokens, TTFT p99 99 ms
}
