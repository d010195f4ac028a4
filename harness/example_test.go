package harness_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/workload"
)

// Example runs one level against the built-in mock: 400 requests at
// concurrency 4, judged against an SLO. 400 requests are enough to bound a
// p99 and to show an error rate below 1 % at 95 % confidence; with 40 the
// verdict would be inconclusive.
func Example() {
	srv, _ := mockserver.New(mockserver.Config{}) // instant tokens
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	clock := loadgen.NewClock(time.Now())
	client, err := openai.New(ts.URL, openai.WithModel(mockserver.DefaultModel))
	if err != nil {
		panic(err)
	}
	w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 16, OutputTokens: 8}, Seed: 1})
	if err != nil {
		panic(err)
	}
	obj, _ := slo.Parse("ttft_p99<=1s,error_rate<=1%")
	r, err := harness.New(harness.Config{
		Requester: client, Workload: w, Clock: clock, Objective: obj,
		Limits: loadgen.Limits{MaxRequests: 400},
	})
	if err != nil {
		panic(err)
	}
	s, err := r.RunLevel(context.Background(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Requests.OK, "ok,", s.OutputTokens.Mean, "tokens each, verdict:", obj.Evaluate(s).Outcome)
	// Output: 400 ok, 8 tokens each, verdict: pass
}
