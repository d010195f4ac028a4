package benchmark_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/workload"
)

// Example runs one short concurrent level against the built-in mock (no
// Target) under an SLO and reads the verdict from the outcome. Every
// setting is a typed value: no flag text is parsed. With no OutputDir
// nothing is written: the figures are in the Outcome only.
func Example() {
	s := benchmark.DefaultSettings(benchmark.CommandRun)
	s.MockPreset = "instant"
	s.Profile = benchmark.ProfileConcurrent
	s.Rates = []float64{2} // requests in flight
	s.MaxRequests = 60
	s.Data = &workload.Data{PromptTokens: 64, OutputTokens: 16}
	s.SLO = slo.Objective{Terms: []slo.Term{{Metric: slo.MetricE2E, Percentile: 50, Op: slo.OpLE, Threshold: 2000}}} // ms
	s.Warmup, s.Cooldown = loadgen.Trim{Requests: 5}, loadgen.Trim{}
	s.Headers = http.Header{"X-Tenant": {"bench"}}
	s.MaxLag = 100 * time.Millisecond // the in-process mock shares the CPU
	s.Energy = "none"
	s.Formats = []benchmark.Format{benchmark.FormatJSON}
	s.OutputDir = "" // write no results folder

	b, err := benchmark.New(context.Background(), s, benchmark.Options{})
	if err != nil {
		panic(err)
	}
	out, err := b.Run(context.Background())
	if err != nil {
		panic(err)
	}
	lv := out.Run.Result.Levels[0]
	fmt.Println(lv.Summary.Requests.OK > 0, lv.Verdict.Outcome, out.Code == exitcode.OK, out.Dir == "")
	// Output: true pass true true
}

// ExampleCheck checks settings before anything is set up: a library
// caller's errors name the Settings fields it set, in the units it gave.
func ExampleCheck() {
	s := benchmark.DefaultSettings(benchmark.CommandSweep)
	s.Profile = benchmark.ProfileSweep
	s.MaxDuration = -2 * time.Second
	s.Repeat = -1
	fmt.Println(benchmark.Check(s, benchmark.Options{}))
	// Output:
	// Settings.Repeat -1: a level runs at least once; give 1 (the default) or more, e.g. Settings.Repeat 3
	// Settings.MaxDuration -2s: want a level length, e.g. 30s (0: 30s unless Settings.MaxRequests is given)
}
