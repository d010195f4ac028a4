package harness_test

import (
	"context"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/workload"
)

// TestDecideContinuesTheSampleJustTaken: what was seen on a quiet box: a
// sweep's grid ended at 5.036 req/s (152 requests, every term passing or
// undecided), and the decide level then ran 5.036 req/s again from
// scratch (957 requests). A level run to a decision right after a level of
// the same profile continues its sample: its Summary pools both, says so,
// and only its own requests are new. A level at another load does not.
func TestDecideContinuesTheSampleJustTaken(t *testing.T) {
	t.Parallel()
	_, url := mockTarget(t, mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	client, err := openai.New(url, openai.WithModel(mockserver.DefaultModel))
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 8, OutputTokens: 4}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := slo.Parse("ttft_p99<=2s")
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.New(harness.Config{
		Requester: client, Workload: w, Clock: loadgen.NewClock(time.Now()),
		Limits:       loadgen.Limits{MaxDuration: 2 * time.Second},
		DecideLimits: loadgen.Limits{MaxDuration: 30 * time.Second},
		Objective:    obj, Precision: slo.Precision{Decide: true}, Drain: 5 * time.Second,
		ProgressEvery: 200 * time.Millisecond, MaxLag: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 60}
	first, err := r.RunLevel(ctx, 0, p)
	if err != nil {
		t.Fatal(err)
	}
	if v := obj.Evaluate(first); v.Decided() {
		t.Fatalf("the short level decided (%s): the test needs it undecided", v.Reason)
	}
	second, err := r.RunLevelToDecision(ctx, 1, p)
	if err != nil {
		t.Fatal(err)
	}
	c := second.Continues
	if c == nil || c.Level != 0 || c.Requests != first.Requests.Scheduled {
		t.Fatalf("continues %+v, want level 0 with its %d requests", c, first.Requests.Scheduled)
	}
	if second.Requests.Sent <= first.Requests.Sent || second.Level != 1 {
		t.Errorf("pooled level %d sent %d, want level 1 with more than the first level's %d", second.Level, second.Requests.Sent, first.Requests.Sent)
	}
	if v := obj.Evaluate(second); v.Outcome != slo.OutcomePass {
		t.Errorf("continued level %s (%s), want pass", v.Outcome, v.Reason)
	}
	found := false
	for _, w := range second.Warnings {
		found = found || w.Code == harness.WarnContinued
	}
	if !found {
		t.Errorf("no %s warning: %v", harness.WarnContinued, second.Warnings)
	}
	// Another load: measured afresh.
	third, err := r.RunLevelToDecision(ctx, 2, loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 80})
	if err != nil {
		t.Fatal(err)
	}
	if third.Continues != nil {
		t.Errorf("a level at another load continued level %d", third.Continues.Level)
	}
}
