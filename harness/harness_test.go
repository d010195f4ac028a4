package harness_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/workload"
)

// mockTarget starts the mock with ground truth on a loopback httptest
// server.
func mockTarget(t *testing.T, cfg mockserver.Config) (*mockserver.Server, string) {
	t.Helper()
	s, err := mockserver.New(cfg, mockserver.WithGroundTruth())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts.URL
}

// TestTimingTruth drives 64 concurrent streams against the mock and
// compares every request's measured TTFT, ITL and chunk arrival times with
// the mock's ground-truth log of when it flushed each token. It checks the
// definitions (TTFT from send to first token, ITL over OSL − 1 gaps, no
// off-by-one) and that the client adds little delay. The bound is loose
// (5 ms) because CI machines are shared; docs/performance.md has the
// measured distribution from bench/timing-truth.sh. Not parallel: it
// measures wall-clock delays.
func TestTimingTruth(t *testing.T) {
	if raceEnabled {
		t.Skip("wall-clock timing under the race detector measures the detector; make timing runs this test")
	}
	if testing.Short() {
		t.Skip("timing truth drives real load")
	}
	srv, url := mockTarget(t, mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond})
	clock := loadgen.NewClock(time.Now())
	client, err := openai.New(url, openai.WithModel(mockserver.DefaultModel), openai.WithMaxConcurrency(64))
	if err != nil {
		t.Fatal(err)
	}
	lengths := workload.Data{PromptTokens: 32, OutputTokens: 16}
	w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: lengths, Seed: 1, Nonce: "truth"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log, err := harness.CreateRecordLog(dir, "requests.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.New(harness.Config{
		Requester: client, Workload: w, Clock: clock,
		Limits: loadgen.Limits{MaxRequests: 512},
		Log:    log,
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.RunLevel(context.Background(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 64})
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests.OK != 512 {
		t.Fatalf("ok = %d, want 512; summary %+v", s.Requests.OK, s.Requests)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, filepath.Join(dir, "requests.jsonl"))
	if len(recs) != 512 {
		t.Fatalf("requests.jsonl has %d records, want 512", len(recs))
	}
	truth := map[string]mockserver.RequestTrace{}
	for _, tr := range srv.GroundTruth() {
		truth[tr.Prompt] = tr
	}
	var chunkErr, ttftErr, itlErr []float64
	for i := range recs {
		rec := &recs[i]
		req, _ := w.Request(rec.Seq)
		tr, ok := truth[req.Prompt]
		if !ok {
			t.Fatalf("seq %d: no ground truth for its prompt", rec.Seq)
		}
		if len(rec.ChunkTimes) != len(tr.ChunkTimes) || rec.OutputTokens != 16 {
			t.Fatalf("seq %d: %d chunks, %d tokens; server sent %d chunks", rec.Seq, len(rec.ChunkTimes), rec.OutputTokens, len(tr.ChunkTimes))
		}
		// Chunk arrival − server flush: the client's delay, plus the
		// lateness of the server's own stamp (taken after the flush).
		for k, at := range rec.ChunkTimes {
			chunkErr = append(chunkErr, ms(clock.Start().Add(at).Sub(tr.ChunkTimes[k])))
		}
		// TTFT is measured from our send, the server's from its arrival:
		// the difference is the request's trip, never negative by much.
		// The first request on each connection also pays the TCP connect,
		// which the server cannot see: compare on reused connections.
		ttft, _ := rec.TTFT()
		if rec.ConnReused {
			ttftErr = append(ttftErr, ms(ttft-tr.TTFT()))
		}
		// ITL = (E2E − TTFT) / (OSL − 1) on both sides.
		itl := (rec.E2E() - ttft) / time.Duration(rec.OutputTokens-1)
		itlErr = append(itlErr, math.Abs(ms(itl-tr.ITL())))
	}
	for _, d := range []struct {
		name     string
		xs       []float64
		p50, p90 float64 // bounds, ms
	}{
		// An off-by-one ITL (dividing by OSL instead of OSL − 1) would be
		// off by 5 ms / 16 = 0.31 ms on every request.
		{"ITL error", itlErr, 0.1, 1},
		{"TTFT error", ttftErr, 5, 20},
		{"chunk delay", chunkErr, 5, 20},
	} {
		sort.Float64s(d.xs)
		p50, p90, p99 := quantile(d.xs, 0.5), quantile(d.xs, 0.9), quantile(d.xs, 0.99)
		t.Logf("%s over %d samples: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms", d.name, len(d.xs), p50, p90, p99)
		if math.Abs(p50) > d.p50 || math.Abs(p90) > d.p90 {
			t.Errorf("%s: p50 %.3f ms, p90 %.3f ms; want within %.1f and %.1f ms", d.name, p50, p90, d.p50, d.p90)
		}
	}
	// The summary's ITL is the per-request definition: (E2E − TTFT)/(OSL − 1).
	if s.ITL.P50 < 4.5 || s.ITL.P50 > 6 {
		t.Errorf("summary ITL p50 = %.3f ms, want about 5 ms (the mock's ITL)", s.ITL.P50)
	}
}

func readRecords(t *testing.T, path string) []loadgen.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := loadgen.NewDecoder(f)
	var out []loadgen.Record
	for {
		var rec loadgen.Record
		err := dec.Decode(&rec)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// quantile returns the q-quantile of sorted xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[max(i, 0)]
}
