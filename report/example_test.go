package report_test

import (
	"os"
	"time"

	"github.com/gollm-bench/gollm-bench/compare"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// ExampleWriteConsole prints the final table of a one-level run: 120
// requests cannot bound a p99 from above, so the verdict is inconclusive
// and says how many more requests would decide it.
func ExampleWriteConsole() {
	obj, _ := slo.Parse("ttft_p99<=500ms")
	ttft := make([]time.Duration, 120)
	for i := range ttft {
		ttft[i] = time.Duration(30+i) * time.Millisecond
	}
	s := metrics.Summary{
		Requests:              metrics.RequestCounts{Sent: 120, OK: 120},
		TTFT:                  metrics.LatencyDistribution(ttft),
		OutputTokensPerSecond: 486.4, OutputTokensPerSecondCI: stats.Interval{Lo: 471.2, Hi: 501.9}, RequestsPerSecond: 1.9,
	}
	run := results.Run{
		RunID:  "demo",
		Config: results.Config{Command: "run", Model: "m"},
		Result: sweep.Result{Kind: sweep.KindLevels, Objective: obj, Levels: []sweep.LevelOutcome{{
			Phase: sweep.PhaseGrid, Profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 1},
			OfferedLoad: 1, Unit: sweep.UnitConcurrency, Summary: s, Verdict: obj.Evaluate(s),
		}}},
	}
	_ = report.WriteConsole(os.Stdout, run)
	// Output:
	// gollm-bench run: run demo, model m, 1 level(s)
	// slo: ttft_p99<=500ms
	//
	//                                          requests             TTFT ms                        ITL ms             E2E ms    output                                lag ms
	// lvl  phase  profile                load   ok  fail  censored  p50              p99 [95% CI]  p50  p95 [95% CI]  p50  p99  tok/s [95% CI]  req/s  goodput tok/s     p99  flags  verdict
	//   0  grid   concurrent 1  concurrency 1  120     0         0   89  148.1 [145.9, unbounded]    -             -    -    -  486 [471, 502]    1.9              0       -         INCONCLUSIVE ttft_p99<=500ms
	//
	// knee: not searched (gollm-bench run judges each level; gollm-bench sweep finds the knee); see the verdicts
}

// ExampleWriteComparison prints B against the baseline A: the workload
// check first, then each matched level's rows with their verdicts. These
// figures come without spreads, so the deltas have no interval ("?");
// the level only B ran is named below the table.
func ExampleWriteComparison() {
	a := peer.Result{Tool: "gollm-bench", File: "results/r1", Levels: []peer.Level{
		{Mode: loadgen.ModeConcurrent, Concurrency: 4, TTFT: peer.Stats{P99: peer.Some(131.42)}, OutputTokPerSec: peer.Some(486.43)},
	}}
	b := peer.Result{Tool: "GuideLLM", File: "benchmarks.json", Levels: []peer.Level{
		{Mode: loadgen.ModeConcurrent, Concurrency: 4, TTFT: peer.Stats{P99: peer.Some(140.08)}, OutputTokPerSec: peer.Some(470.91)},
		{Label: "concurrent 8", Mode: loadgen.ModeConcurrent, Concurrency: 8, TTFT: peer.Stats{P99: peer.Some(260.7)}},
	}}
	res := compare.Runs(a, b, compare.Options{})
	_ = report.WriteComparison(os.Stdout, report.CompareConsole, report.Comparison{Results: []compare.Result{res}})
	// Output:
	// A: gollm-bench (results/r1)
	// B: GuideLLM (benchmarks.json)
	//
	// level          metric           A    B   delta  verdict  method
	// concurrency 4  TTFT p99 (ms)  131  140  +6.59%  ?        none
	//                output tok/s   486  471  -3.19%  ?        none
	//
	// levels only in B: concurrency 8 (concurrent 8)
}
