package harness_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/workload"
)

// backlogServer is a FIFO server, like llama.cpp's, that keeps serving
// requests whose client went away: every request cut off while hang is set
// still costs the server busyPer after its client gave up, and every later
// request waits for that backlog, then serviceTime, before its one token.
type backlogServer struct {
	mu        sync.Mutex
	hang      bool
	busyUntil time.Duration // clock offset the backlog lasts until
	probes    int
}

const (
	busyPer     = time.Second
	serviceTime = 10 * time.Millisecond // TTFT of an idle server
)

func (s *backlogServer) Do(ctx context.Context, clock loadgen.Clock, req *loadgen.Request, rec *loadgen.Record) {
	s.mu.Lock()
	hang := s.hang && req.Seq >= 0
	if req.Seq < 0 {
		s.probes++
	}
	s.mu.Unlock()
	if hang {
		<-ctx.Done()
		s.mu.Lock()
		s.busyUntil = max(s.busyUntil, clock.Now()) + busyPer
		s.mu.Unlock()
		rec.Status, rec.ErrorKind, rec.DoneAt = loadgen.StatusCancelled, loadgen.ErrorCancelled, clock.Now()
		return
	}
	s.mu.Lock()
	wait := s.busyUntil - clock.Now()
	s.mu.Unlock()
	time.Sleep(max(wait, 0) + serviceTime)
	now := clock.Now()
	rec.HeadersAt, rec.FirstTokenAt, rec.FirstContentAt, rec.LastTokenAt, rec.DoneAt = now, now, now, now, now
	rec.ChunkTimes, rec.ChunkTokens = []time.Duration{now}, []int32{1}
	rec.Status, rec.HTTPStatus, rec.FinishReason = loadgen.StatusOK, 200, "length"
	rec.OutputTokens, rec.OutputTokensSource = 1, loadgen.SourceServer
}

// TestDrainBetweenLevels: a level that follows one whose requests were cut
// off must not measure the server's backlog of abandoned requests. With
// Config.SettleProbe the runner waits for a probe before the level starts, so
// the level's TTFT is the server's; without it, its first requests wait
// out the backlog (4 cut-off requests × 1 s).
func TestDrainBetweenLevels(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		drain       bool
		probes      int
		maxTTFTms   float64 // upper bound on level 1's TTFT p100
		wantWarning bool
	}{
		{drain: true, probes: 1, maxTTFTms: 20, wantWarning: true},
		{drain: false, probes: 0, maxTTFTms: 1e9, wantWarning: false},
	} {
		synctest.Test(t, func(t *testing.T) {
			srv := &backlogServer{hang: true}
			w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 8, OutputTokens: 1}, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			r, err := harness.New(harness.Config{
				Requester: srv, Workload: w, Clock: loadgen.NewClock(time.Now()),
				Limits: loadgen.Limits{MaxDuration: 2 * time.Second}, SettleProbe: tt.drain,
			})
			if err != nil {
				t.Fatal(err)
			}
			p := loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}
			if _, err := r.RunLevel(t.Context(), 0, p); err != nil {
				t.Fatal(err)
			}
			srv.mu.Lock()
			srv.hang = false
			srv.mu.Unlock()
			s, err := r.RunLevel(t.Context(), 1, p)
			if err != nil {
				t.Fatal(err)
			}
			if srv.probes != tt.probes {
				t.Errorf("drain %v: %d probe(s) sent, want %d", tt.drain, srv.probes, tt.probes)
			}
			if s.TTFT.Count == 0 {
				t.Fatalf("drain %v: level 1 has no TTFT samples", tt.drain)
			}
			if tt.drain && s.TTFT.Max > tt.maxTTFTms {
				t.Errorf("drain %v: level 1 TTFT max %.4g ms, want <= %g ms (the backlog was measured)", tt.drain, s.TTFT.Max, tt.maxTTFTms)
			}
			if !tt.drain && s.TTFT.Max < 1000 {
				t.Errorf("drain %v: level 1 TTFT max %.4g ms, want the 4 s backlog to show (the test server does not model it)", tt.drain, s.TTFT.Max)
			}
			got := false
			for _, w := range s.Warnings {
				got = got || w.Code == "drained"
			}
			if got != tt.wantWarning {
				t.Errorf("drain %v: drained warning %v, want %v; warnings %v", tt.drain, got, tt.wantWarning, s.Warnings)
			}
		})
	}
}
