package harness_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/workload"
)

// TestSlowServerFailsAndIsCutOff: what was seen with the mock at --ttft 40s
// under ttft_p99<=1s (and with a server that accepts and never answers):
// every request was cut off at the end of the drain, dropped from the
// verdict, and the level was INCONCLUSIVE "too short". The requests cut off
// are censored observations (TTFT at least the time they waited), so the
// level FAILs; and once it is known to fail when its schedule ends, its
// requests in flight are cut off at once rather than drained for 30 s.
func TestSlowServerFailsAndIsCutOff(t *testing.T) {
	t.Parallel()
	for _, precise := range []bool{false, true} {
		t.Run(map[bool]string{false: "grid level", true: "level run to a decision"}[precise], func(t *testing.T) {
			t.Parallel()
			_, url := mockTarget(t, mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: 40 * time.Second, ITL: time.Millisecond})
			client, err := openai.New(url, openai.WithModel(mockserver.DefaultModel))
			if err != nil {
				t.Fatal(err)
			}
			w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 8, OutputTokens: 4}, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			obj, err := slo.Parse("ttft_p99<=1s")
			if err != nil {
				t.Fatal(err)
			}
			cfg := harness.Config{
				Requester: client, Workload: w, Clock: loadgen.NewClock(time.Now()),
				Limits:    loadgen.Limits{MaxDuration: 2 * time.Second},
				Objective: obj, Drain: 30 * time.Second,
				ProgressEvery: 100 * time.Millisecond,
				MaxLag:        time.Second, // not a client-health test: a busy CI machine lags
			}
			if precise {
				cfg.Precision = slo.Precision{Decide: true}
				cfg.DecideLimits = loadgen.Limits{MaxDuration: 20 * time.Second}
			}
			r, err := harness.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			p := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 20}
			run := r.RunLevel
			if precise {
				run = r.RunLevelToDecision
			}
			s, err := run(context.Background(), 0, p)
			if err != nil {
				t.Fatal(err)
			}
			if s.Requests.OK != 0 || s.Censored.Requests == 0 || s.Censored.Requests != s.Requests.Incomplete {
				t.Fatalf("requests %+v, censored %d: want none ok, every one cut off and censored", s.Requests, s.Censored.Requests)
			}
			v := obj.Evaluate(s)
			if v.Outcome != slo.OutcomeFail {
				t.Errorf("verdict %s (%s), want fail", v.Outcome, v.Reason)
			}
			// Cut off, not drained: the requests waited well under the
			// 30 s drain (and the 40 s TTFT).
			if max := s.Censored.TTFT.AtLeast.Max; max >= 25_000 {
				t.Errorf("longest wait %.0f ms: the level was drained, not cut off", max)
			}
			if !precise {
				found := false
				for _, w := range s.Warnings {
					found = found || w.Code == harness.WarnCutOff
				}
				if !found {
					t.Errorf("no %s warning in %v", harness.WarnCutOff, s.Warnings)
				}
			}
			if !strings.Contains(v.Reason, "censored") {
				t.Errorf("reason %q does not say the cut-off requests were counted", v.Reason)
			}
		})
	}
}
