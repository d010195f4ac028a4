package harness_test

import (
	"context"
	"net/http/httptest"
	"runtime"
	"slices"
	"testing"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/workload"
)

// TestLevelMemoryFlat: while a level runs, the memory the client holds
// does not grow with its requests (issue 25 item 13: a 10-minute soak grew
// RSS about 12 bytes per request). The live heap after a GC is read from
// OnRecord about the 8,000th and the 32,000th record of one level against
// the mock on loopback, records spooled to disk as in a real run: what the
// level keeps per request (records, in-flight sets, tallies, queues,
// buffers) shows as bytes per request between the two. The measure is
// deterministic up to what is in flight at each reading (the mock's copy
// buffers, the records batch being filled): about ±50 bytes per request
// over this span on a busy machine, most often negative, so the bound is a
// coarse guard against a leak of tens of bytes per request. The parts
// known to have kept memory per request have exact tests:
// TestMonitorMemoryBounded (the SLO monitor), TestQueueKeepsOnlyWaiting
// (loadgen) and TestDigestBuilderBoundedMemory (metrics); bench/soak.sh
// measures RSS over minutes.
func TestLevelMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 32,000 requests")
	}
	if raceEnabled {
		t.Skip("the race detector keeps its own shadow memory per access")
	}
	srv, err := mockserver.New(mockserver.Config{Scheduler: mockserver.SchedulerFixed})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close() })
	client, err := openai.New(ts.URL, openai.WithModel(mockserver.DefaultModel))
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 16, OutputTokens: 4}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	log, err := harness.CreateRecordLog(t.TempDir(), "requests.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	// The live heap moves by a few hundred KB with what is in flight and
	// the records batch being filled: take the median of three readings
	// 50 records apart at each end.
	const n = 8000
	var seen int
	var early, late []float64
	r, err := harness.New(harness.Config{Requester: client, Workload: w, Limits: loadgen.Limits{MaxRequests: 4 * n}, Log: log,
		OnRecord: func(*loadgen.Record) {
			seen++
			var at *[]float64
			switch seen {
			case n, n + 50, n + 100:
				at = &early
			case 4*n - 108, 4*n - 58, 4*n - 8:
				at = &late
			default:
				return
			}
			var ms runtime.MemStats
			runtime.GC()
			runtime.GC() // a second cycle empties the sync.Pools' victim caches too
			runtime.ReadMemStats(&ms)
			*at = append(*at, float64(ms.HeapAlloc))
		}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.RunLevel(context.Background(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests.OK != 4*n {
		t.Fatalf("%d ok of %d", s.Requests.OK, 4*n)
	}
	median := func(v []float64) float64 { slices.Sort(v); return v[1] }
	a, b := median(early), median(late)
	per := (b - a) / float64(3*n-108)
	t.Logf("live heap %.0f B about record %d, %.0f B about record %d: %.2f bytes per request", a, n, b, 4*n, per)
	if per > 40 {
		t.Errorf("the level holds %.1f more bytes per request as it runs, want none (< 40)", per)
	}
}
