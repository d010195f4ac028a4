package sweep_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// A toy server: TTFT p99 is 200 ms up to 12.5 req/s and 5 s beyond.
func toyServer(_ context.Context, level int, p loadgen.Profile) (metrics.Summary, error) {
	rps := p.Rate
	switch p.Mode {
	case loadgen.ModeSynchronous:
		rps = 2
	case loadgen.ModeThroughput:
		rps = 15
	}
	ttft := 200.0
	if p.Mode == loadgen.ModeThroughput || rps > 12.5 {
		ttft = 5000
	}
	samples := make([]time.Duration, 600)
	for i := range samples {
		samples[i] = time.Duration(ttft*float64(i+1)/600) * time.Millisecond
	}
	return metrics.Summary{
		Level: level, Profile: p, WindowSeconds: 60,
		Requests:              metrics.RequestCounts{Sent: 600, OK: 600},
		TTFT:                  metrics.LatencyDistribution(samples),
		RequestsPerSecond:     rps,
		OutputTokensPerSecond: rps * 256,
		Goodput:               metrics.Goodput{Requests: 600, RequestsPerSecond: rps, OutputTokensPerSecond: rps * 256},
	}, nil
}

func ExampleRun() {
	objective, err := slo.Parse("ttft_p99<=500ms")
	if err != nil {
		panic(err)
	}
	plan := sweep.Plan{Objective: objective} // 10 GuideLLM levels, then bisection
	res, err := sweep.Run(context.Background(), plan, sweep.LevelRunnerFunc(toyServer))
	if err != nil {
		panic(err)
	}
	for _, l := range res.Levels {
		fmt.Printf("%-6s %-11s %7.3f req/s pass=%v\n", l.Phase, l.Profile.Mode, l.OfferedLoad, l.Verdict.Pass)
	}
	k := res.Knee
	fmt.Printf("knee: %.2f %s (bracket %.2f–%.2f), goodput %.0f tok/s under %s; exit %d\n",
		k.OfferedLoad, k.Unit, k.BracketLo, k.BracketHi, k.OutputTokPerSec, res.Objective, res.ExitCode())
	// Output:
	// grid   synchronous   2.000 req/s pass=true
	// grid   throughput   15.000 req/s pass=false
	// grid   constant      3.625 req/s pass=true
	// grid   constant      5.250 req/s pass=true
	// grid   constant      6.875 req/s pass=true
	// grid   constant      8.500 req/s pass=true
	// grid   constant     10.125 req/s pass=true
	// grid   constant     11.750 req/s pass=true
	// grid   constant     13.375 req/s pass=false
	// bisect constant     12.562 req/s pass=false
	// bisect constant     12.156 req/s pass=true
	// knee: 12.16 req/s (bracket 12.16–12.56), goodput 3112 tok/s under ttft_p99<=500ms; exit 0
}
