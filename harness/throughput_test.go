package harness_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gollm-bench/gollm-bench/enginemetrics"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/sweep"
	"github.com/gollm-bench/gollm-bench/telemetry"
	"github.com/gollm-bench/gollm-bench/workload"
)

var _ sweep.CapacityReporter = (*harness.Runner)(nil)

// gridProbe runs the synchronous and throughput levels of a rate sweep for
// real and only records the open-loop rates the sweep asks for after them.
type gridProbe struct {
	r     *harness.Runner
	rates []float64
}

func (g *gridProbe) RunLevel(ctx context.Context, level int, p loadgen.Profile) (metrics.Summary, error) {
	if p.Mode.OpenLoop() {
		g.rates = append(g.rates, p.Rate)
		return metrics.Summary{Level: level, Profile: p, WindowSeconds: 1, Requests: metrics.RequestCounts{Sent: 1}}, nil
	}
	return g.r.RunLevel(ctx, level, p)
}

// TestThroughputLevelOnDemoPreset runs the README's demo sweep's first two
// levels against the mock's demo preset (8 s levels, 10 % warmup and
// cooldown, ISL 256, OSL 64, 512 in flight, a 30 s drain). Its throughput
// level used to measure nothing: the only requests sent in its window were
// those that replaced the first batch, queued behind 384 others and cut off
// at the end (0 ok, 128 incomplete, FAIL no-success). Now the requests sent
// before the window are cancelled at the level's end and those sent in it
// are drained; and the grid reaches the preset's capacity (23.74 req/s),
// estimated from the throughput level's tokens.
func TestThroughputLevelOnDemoPreset(t *testing.T) {
	if raceEnabled {
		t.Skip("wall-clock load under the race detector measures the detector")
	}
	if testing.Short() {
		t.Skip("drives two 8-second levels of load")
	}
	cfg, err := mockserver.Preset("demo")
	if err != nil {
		t.Fatal(err)
	}
	_, url := mockTarget(t, cfg)
	clock := loadgen.NewClock(time.Now())
	client, err := openai.New(url, openai.WithModel(mockserver.DefaultModel), openai.WithMaxConcurrency(loadgen.DefaultThroughputConcurrency))
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 256, OutputTokens: 64}, Seed: 1, Nonce: "grid"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.New(harness.Config{
		Requester: client, Workload: w, Clock: clock,
		Limits:      loadgen.Limits{MaxDuration: 8 * time.Second},
		Warmup:      loadgen.Trim{Fraction: 0.1},
		Cooldown:    loadgen.Trim{Fraction: 0.1},
		MaxLag:      50 * time.Millisecond,
		Drain:       30 * time.Second,
		SettleProbe: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	probe := &gridProbe{r: r}
	res, err := sweep.Run(context.Background(), sweep.Plan{}, probe)
	if err != nil {
		t.Fatal(err)
	}
	sync, thr := res.Levels[0], res.Levels[1]
	t.Logf("synchronous %.3g req/s; throughput: ok %d, incomplete %d, %.0f tok/s, completed %.3g req/s, maximum rate %.3g req/s; grid %.3g",
		sync.OfferedLoad, thr.Summary.Requests.OK, thr.Summary.Requests.Incomplete, thr.Summary.OutputTokensPerSecond,
		thr.Summary.RequestsPerSecond, thr.OfferedLoad, probe.rates)
	if thr.Summary.Requests.OK == 0 {
		t.Errorf("throughput level: 0 ok, %d incomplete: it measured no request", thr.Summary.Requests.Incomplete)
	}
	capacity := cfg.Capacity(256, 64)
	if len(probe.rates) != 8 {
		t.Fatalf("grid %v: want 8 rates", probe.rates)
	}
	prev := sync.OfferedLoad
	for _, x := range probe.rates {
		if !(x > prev*1.05) {
			t.Fatalf("grid %.4g is degenerate (synchronous %.4g req/s)", probe.rates, sync.OfferedLoad)
		}
		prev = x
	}
	if top := probe.rates[7]; top < 0.8*capacity || top > 1.25*capacity {
		t.Errorf("the grid tops at %.4g req/s; the preset's capacity is %.4g req/s", top, capacity)
	}
}

// engineAt is a Telemetry whose engine reports running[level] requests at
// most during each level (none past the end of running).
type engineAt struct{ running []float64 }

func (engineAt) Begin(context.Context, int) error { return nil }

func (e engineAt) End(_ context.Context, level int) (harness.TelemetryReading, error) {
	if level >= len(e.running) {
		return &telemetry.LevelReading{}, nil
	}
	return &telemetry.LevelReading{Engine: &enginemetrics.Delta{Engine: enginemetrics.EngineLlamaCpp, PeakRunning: e.running[level]}}, nil
}

// ServerConcurrency reads the engine's peak running requests of a level
// from its telemetry; 0 without engine metrics.
func TestServerConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 8, OutputTokens: 1}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		r, err := harness.New(harness.Config{
			Requester: &backlogServer{}, Workload: w, Clock: loadgen.NewClock(time.Now()),
			Limits: loadgen.Limits{MaxRequests: 4}, Telemetry: engineAt{running: []float64{1, 8}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for level := range 3 {
			if _, err := r.RunLevel(t.Context(), level, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2}); err != nil {
				t.Fatal(err)
			}
		}
		for level, want := range []float64{1, 8, 0, 0} {
			if got := r.ServerConcurrency(level); got != want {
				t.Errorf("level %d: ServerConcurrency = %v, want %v", level, got, want)
			}
		}
	})
}

// slowServer answers every request with one token after service.
type slowServer struct{ service time.Duration }

func (s slowServer) Do(ctx context.Context, clock loadgen.Clock, _ *loadgen.Request, rec *loadgen.Record) {
	select {
	case <-ctx.Done():
		rec.Status, rec.ErrorKind, rec.DoneAt = loadgen.StatusCancelled, loadgen.ErrorCancelled, clock.Now()
		return
	case <-time.After(s.service):
	}
	now := clock.Now()
	rec.HeadersAt, rec.FirstTokenAt, rec.FirstContentAt, rec.LastTokenAt, rec.DoneAt = now, now, now, now, now
	rec.ChunkTimes, rec.ChunkTokens = []time.Duration{now}, []int32{1}
	rec.Status, rec.HTTPStatus, rec.FinishReason = loadgen.StatusOK, 200, "length"
	rec.OutputTokens, rec.OutputTokensSource = 1, loadgen.SourceServer
}

// A throughput level whose requests take most of the level: the 4 sent at
// its start finish at 1.5 s, the 4 that replace them, sent in the window,
// would finish at 3 s. Throughput levels were not drained, so those 4 were
// cut off at 2 s and the level had 0 ok; drained, they finish.
func TestThroughputLevelIsDrained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 8, OutputTokens: 1}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		r, err := harness.New(harness.Config{
			Requester: slowServer{1500 * time.Millisecond}, Workload: w, Clock: loadgen.NewClock(time.Now()),
			Limits: loadgen.Limits{MaxDuration: 2 * time.Second}, Warmup: loadgen.Trim{Fraction: 0.25},
			Drain: 5 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.RunLevel(t.Context(), 0, loadgen.Profile{Mode: loadgen.ModeThroughput, MaxConcurrency: 4})
		if err != nil {
			t.Fatal(err)
		}
		if s.Requests.OK != 4 || s.Requests.Incomplete != 0 {
			t.Errorf("throughput level: ok %d incomplete %d, want the 4 requests sent in the window drained to ok", s.Requests.OK, s.Requests.Incomplete)
		}
		if got, want := s.Window.Start-r.Levels()[0].Result.Start, 500*time.Millisecond; got != want {
			t.Errorf("window opens %v after the level's start, want the %v warmup", got, want)
		}
	})
}
