package compare_test

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/compare"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/peer"
)

// ExampleRuns decides B against A at their matched level. The mean ITL
// carries a spread and a count on both sides, so Welch's t decides it;
// the p99 here is a bare figure, whose change is printed but not judged.
func ExampleRuns() {
	level := func(itlMean, ttftP99 float64) peer.Level {
		return peer.Level{Mode: loadgen.ModeConcurrent, Concurrency: 8, Definitions: peer.Native(),
			ITL:  peer.Stats{Mean: peer.Some(itlMean), Std: peer.Some(2), N: peer.Known(500)},
			TTFT: peer.Stats{P99: peer.Some(ttftP99)}}
	}
	a := peer.Result{Tool: "gollm-bench", Levels: []peer.Level{level(20, 310)}}
	b := peer.Result{Tool: "gollm-bench", Levels: []peer.Level{level(21, 300)}}
	ms, _ := compare.ParseMetrics("itl_mean,ttft_p99")
	res := compare.Runs(a, b, compare.Options{Metrics: ms})
	for _, r := range res.Rows {
		fmt.Printf("%s %s: %+.1f%% %s (%s)\n", r.Level, r.Metric.Key, 100*r.Rel.V, r.Verdict, r.Method)
	}
	// Output:
	// concurrency 8 itl_mean: +5.0% worse (welch)
	// concurrency 8 ttft_p99: -3.2% ? (none)
}

// ExampleParseFailOn reads a CI gate and checks a comparison against it.
func ExampleParseFailOn() {
	ths, err := compare.ParseFailOn("ttft_p99:+5%,goodput:-3%")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range ths {
		fmt.Printf("%s: higher is better %v, limit %.2f\n", t.Metric.Key, t.Metric.HigherIsBetter, t.Limit)
	}
	_, err = compare.ParseFailOn("goodput:+3%")
	fmt.Println(err)
	// Output:
	// ttft_p99: higher is better false, limit 0.05
	// goodput: higher is better true, limit 0.03
	// column 1, term "goodput:+3%": goodput: higher is better: it regresses downwards, so write goodput:-3%
}
