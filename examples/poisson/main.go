// Command poisson is an embedder's first program: one Poisson level of
// 8 req/s for 5 s against gollm-bench's simulated server, started
// in-process, judged against an SLO given once. It prints TTFT p99 and
// goodput with their 95 % intervals, the client's health and the verdict.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/workload"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	srv, err := mockserver.New(mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond})
	if err != nil {
		return err
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	client, err1 := openai.New(ts.URL, openai.WithModel(mockserver.DefaultModel))
	work, err2 := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 64, OutputTokens: 16}, Seed: 1})
	obj, err3 := slo.Parse("ttft_p99<=500ms,itl_p95<=50ms") // the SLO, given once
	r, err4 := harness.New(harness.Config{Requester: client, Workload: work, Objective: obj, Limits: loadgen.Limits{MaxDuration: 5 * time.Second}})
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return err
	}
	s, err := r.RunLevel(ctx, 0, loadgen.Profile{Mode: loadgen.ModePoisson, Rate: 8, Seed: 1})
	fmt.Fprintf(w, "TTFT p99 %.1f ms %v; goodput %.0f tok/s %v; achieved %.0f %% of the plan; client-limited %v; verdict %s\n",
		s.TTFT.P99, s.TTFT.P99CI, s.Goodput.OutputTokensPerSecond, s.Goodput.OutputTokensPerSecondCI,
		100*s.Client.AchievedRatio, s.Client.ClientLimited, obj.Evaluate(s).Outcome)
	return err
}
