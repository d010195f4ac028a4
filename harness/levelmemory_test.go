package harness_test

import (
	"context"
	"net/http/httptest"
	"runtime"
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
// OnRecord at the n-th and the 4n-th record of one level against the mock
// on loopback, records spooled to disk as in a real run: what the level
// keeps per request (records, in-flight sets, tallies, queues, buffers)
// shows as bytes per request between the two. Deterministic up to the
// runtime's own noise and the few requests in flight, hence the loose
// bound; bench/soak.sh measures RSS over minutes. The SLO monitor's rows,
// kept only with an SLO, are bounded past 65,536 requests
// (TestMonitorMemoryBounded).
func TestLevelMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 16,000 requests")
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
	const n = 4000
	var seen int
	var heap [2]uint64
	r, err := harness.New(harness.Config{Requester: client, Workload: w, Limits: loadgen.Limits{MaxRequests: 4 * n}, Log: log,
		OnRecord: func(*loadgen.Record) {
			seen++
			if seen == n || seen == 4*n-8 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				heap[min(seen/n-1, 1)] = ms.HeapAlloc
			}
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
	per := (float64(heap[1]) - float64(heap[0])) / float64(3*n-8)
	t.Logf("live heap %d B at record %d, %d B at record %d: %.2f bytes per request", heap[0], n, heap[1], 4*n-8, per)
	if per > 8 {
		t.Errorf("the level holds %.1f more bytes per request as it runs, want none (< 8)", per)
	}
}
