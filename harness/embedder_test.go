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

func mockRunner(t *testing.T, onRecord func(*loadgen.Record)) *harness.Runner {
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
	r, err := harness.New(harness.Config{Requester: client, Workload: w, Limits: loadgen.Limits{MaxRequests: 20}, OnRecord: onRecord})
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
