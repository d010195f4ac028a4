package benchmark_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Example runs one short concurrent level against the built-in mock (no
// Target) under an SLO and reads the verdict from the outcome. With no
// OutputDir nothing is written: the figures are in the Outcome only.
func Example() {
	s := benchmark.DefaultSettings(benchmark.CommandRun)
	s.MockPreset = "instant"
	s.Rates = []float64{2} // requests in flight
	s.MaxRequests = 60
	s.SLO, _ = slo.Parse("e2e_p50<=2s")
	s.MaxLag = 100 * time.Millisecond // the in-process mock shares the CPU
	s.Energy = "none"
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
