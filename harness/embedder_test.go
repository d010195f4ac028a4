package harness_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/workload"
)

// TestValidateRefusesUnusedTrims: a trim set on Limits or DecideLimits
// used to be replaced silently by Config.Warmup/Cooldown; Validate names it.
func TestValidateRefusesUnusedTrims(t *testing.T) {
	base := harness.Config{
		Requester: loadgen.RequesterFunc(func(context.Context, loadgen.Clock, *loadgen.Request, *loadgen.Record) {}),
		Workload:  loadgen.WorkloadFunc(func(int64) (loadgen.Request, error) { return loadgen.Request{Prompt: "hi", MaxTokens: 1}, nil }),
		Limits:    loadgen.Limits{MaxRequests: 10},
	}
	if err := base.Validate(); err != nil {
		t.Fatalf("Validate of a valid config: %v", err)
	}
	cfg := base
	cfg.Limits.Warmup = 1
	cfg.DecideLimits.CooldownFraction = 0.1
	err := cfg.Validate()
	for _, want := range []string{"Config.Limits.Warmup is not used", "Config.Warmup", "Config.DecideLimits.CooldownFraction is not used"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want an error containing %q", err, want)
		}
	}
	if _, nerr := harness.New(cfg); nerr == nil {
		t.Error("New accepted a config Validate refuses")
	}
}

// TestValidateRefusesNegatives: negative Drain, Repeat, TimelineBuckets
// and ProgressEvery used to be read as their defaults (issue 26's review).
func TestValidateRefusesNegatives(t *testing.T) {
	cfg := harness.Config{
		Requester: loadgen.RequesterFunc(func(context.Context, loadgen.Clock, *loadgen.Request, *loadgen.Record) {}),
		Workload:  loadgen.WorkloadFunc(func(int64) (loadgen.Request, error) { return loadgen.Request{Prompt: "hi", MaxTokens: 1}, nil }),
		Limits:    loadgen.Limits{MaxRequests: 10},
		Drain:     -1, Repeat: -1, TimelineBuckets: -1, ProgressEvery: -1,
	}
	err := cfg.Validate()
	for _, want := range []string{"Config.Drain is negative", "Config.Repeat is negative", "Config.TimelineBuckets is negative", "Config.ProgressEvery is negative"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want an error containing %q", err, want)
		}
	}
}

func mockRunner(t *testing.T, onRecord func(*loadgen.Record)) *harness.Runner {
	t.Helper()
	return mockRunnerWith(t, harness.Config{Limits: loadgen.Limits{MaxRequests: 20}, OnRecord: onRecord})
}

// mockRunnerWith is a Runner of cfg against the in-process mock, with its
// Requester and Workload filled in.
func mockRunnerWith(t *testing.T, cfg harness.Config) *harness.Runner {
	t.Helper()
	srv, err := mockserver.New(mockserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	client, err := openai.New(ts.URL, openai.WithModel(mockserver.DefaultModel))
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 8, OutputTokens: 4}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Requester, cfg.Workload = client, w
	r, err := harness.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOnRecordSeesEveryRecord: the per-record hook sees each request once,
// as it finishes.
func TestOnRecordSeesEveryRecord(t *testing.T) {
	var n, ok atomic.Int64
	r := mockRunner(t, func(rec *loadgen.Record) {
		n.Add(1)
		if rec.Status == loadgen.StatusOK {
			ok.Add(1)
		}
	})
	s, err := r.RunLevel(t.Context(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 20 || ok.Load() != 20 || s.Requests.OK != 20 {
		t.Errorf("OnRecord saw %d records (%d ok), summary %d ok: want 20 each", n.Load(), ok.Load(), s.Requests.OK)
	}
}

// TestOnRecordPanicIsAnError: a panicking hook stops the level with an
// error naming the panic, not the process.
func TestOnRecordPanicIsAnError(t *testing.T) {
	r := mockRunner(t, func(rec *loadgen.Record) { panic("hook boom") })
	_, err := r.RunLevel(t.Context(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2})
	if err == nil || !strings.Contains(err.Error(), "Config.OnRecord panicked") || !strings.Contains(err.Error(), "hook boom") {
		t.Fatalf("RunLevel: %v, want the hook's panic as an error", err)
	}
	if lv := r.Levels(); len(lv) != 1 || lv[0].Result.Scheduled == 0 {
		t.Errorf("levels %+v: want the level kept", lv)
	}
}

// panickyTelemetry's Begin panics.
type panickyTelemetry struct{}

func (panickyTelemetry) Begin(context.Context, int) error { panic("telemetry boom") }
func (panickyTelemetry) End(context.Context, int) (harness.TelemetryReading, error) {
	return nil, nil
}

// TestHarnessGoroutinePanicsAreErrors: an embedder's Progress, Label,
// Telemetry and Pacer factory run in goroutines of the harness (or inside
// RunLevel); a panic in any of them used to end the process (issue 26's
// review). Each now comes back with the panic's message, the level's
// results kept where it ran: an error for Progress, Label and Pacer, a
// telemetry warning for Telemetry, as for a failed reading.
func TestHarnessGoroutinePanicsAreErrors(t *testing.T) {
	lim := loadgen.Limits{MaxRequests: 20}
	closed := loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2}
	tests := []struct {
		name    string
		cfg     harness.Config
		p       loadgen.Profile
		wantErr string
		ran     bool
	}{
		{name: "Progress", cfg: harness.Config{Limits: lim, Progress: func(harness.Progress) { panic("progress boom") }},
			p: closed, wantErr: "Config.Progress panicked: progress boom", ran: true},
		{name: "Label", cfg: harness.Config{Limits: lim, Progress: func(harness.Progress) {}, Label: func(loadgen.Profile) string { panic("label boom") }},
			p: closed, wantErr: "Config.Label panicked: label boom", ran: true},
		{name: "Pacer factory", cfg: harness.Config{Limits: lim, Pacer: func(loadgen.Profile) loadgen.Pacer { panic("factory boom") }},
			p: loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 10}, wantErr: "Config.Pacer panicked for the constant profile: factory boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mockRunnerWith(t, tt.cfg)
			_, err := r.RunLevel(t.Context(), 0, tt.p)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("RunLevel: %v, want an error containing %q", err, tt.wantErr)
			}
			if lv := r.Levels(); tt.ran && (len(lv) != 1 || lv[0].Result.Scheduled == 0) {
				t.Errorf("levels %+v: want the level's results kept", lv)
			}
		})
	}
	t.Run("Telemetry", func(t *testing.T) {
		r := mockRunnerWith(t, harness.Config{Limits: lim, Telemetry: panickyTelemetry{}})
		s, err := r.RunLevel(t.Context(), 0, closed)
		if err != nil {
			t.Fatalf("RunLevel: %v, want the level measured", err)
		}
		var found bool
		for _, w := range s.Warnings {
			found = found || (w.Code == harness.WarnTelemetryFailed && strings.Contains(w.Message, "Telemetry.Begin panicked at level 0: telemetry boom"))
		}
		if !found || s.Requests.OK != 20 {
			t.Errorf("warnings %+v, %d ok: want a telemetry warning with the panic's message and the level's 20 requests", s.Warnings, s.Requests.OK)
		}
	})
}

// TestRunLevelRefusesAConcurrentCall: a Runner runs one level at a time.
// Seen (issue 26, review): a RunLevel from a second goroutine was not
// refused (loadgen.Generator refuses its own); now it returns an error
// and sends nothing, and the level in progress runs on.
func TestRunLevelRefusesAConcurrentCall(t *testing.T) {
	var (
		r         *harness.Runner
		secondErr error
		once      atomic.Bool
	)
	r = mockRunner(t, func(*loadgen.Record) {
		if once.CompareAndSwap(false, true) {
			done := make(chan error)
			go func() {
				_, err := r.RunLevel(t.Context(), 1, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 1})
				done <- err
			}()
			secondErr = <-done
		}
	})
	_, err := r.RunLevel(t.Context(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2})
	if err != nil {
		t.Fatalf("the first RunLevel: %v", err)
	}
	if secondErr == nil || !strings.Contains(secondErr.Error(), "another level is in progress") {
		t.Errorf("the concurrent RunLevel: %v, want it refused", secondErr)
	}
	if lv := r.Levels(); len(lv) != 1 || lv[0].Result.OK != 20 {
		t.Errorf("levels %d: want only the first level, whole", len(lv))
	}
}
