package slo_test

import (
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
)

func ExampleParse() {
	o, err := slo.Parse("ttft_p99 <= 0.5s, itl_p95<=50ms, error_rate<=0.5%")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(o)
	fmt.Println("max lag:", o.MaxLag())

	_, err = slo.Parse("ttft_p99<=500ms,tpot_p99<=50ms")
	fmt.Println(err)
	// Output:
	// ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%
	// max lag: 25ms
	// slo: column 17, term "tpot_p99<=50ms": unknown metric "tpot_p99": valid metrics are ttft, ttft_corrected, itl, icl, e2e, ttfot (each with _pNN or _mean, e.g. ttft_p99, itl_p99.9, e2e_mean), error_rate, output_tps
}

func ExampleObjective_Evaluate() {
	o, _ := slo.Parse("ttft_p99<=500ms,error_rate<=1%")
	// 990 requests with TTFTs of 1 to 990 ms and 10 failures.
	ttft := make([]time.Duration, 990)
	for i := range ttft {
		ttft[i] = time.Duration(i+1) * time.Millisecond
	}
	s := metrics.Summary{
		Profile:     loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 8},
		Requests:    metrics.RequestCounts{Sent: 1000, OK: 990, Failed: 10},
		ErrorRate:   0.01,
		ErrorRateCI: stats.Wilson(10, 1000, stats.Confidence),
		TTFT:        metrics.LatencyDistribution(ttft),
	}
	v := o.Evaluate(s)
	fmt.Println(v.Outcome, v.Failing, v.Undecided)
	fmt.Println(v.Reason)
	// Output:
	// fail [ttft_p99<=500ms] [error_rate<=1%]
	// ttft_p99 = 990.2ms [984.6ms, unbounded], wanted <=500ms (failures counted as +inf: 10 of 1000 requests failed)
}

func ExampleObjective_Good() {
	o, _ := slo.Parse("ttft_p99<=500ms,itl_p99<=50ms")
	rec := &loadgen.Record{
		Status:       loadgen.StatusOK,
		SentAt:       0,
		FirstTokenAt: 200_000_000,   // 200 ms
		LastTokenAt:  1_200_000_000, // 1.2 s
		OutputTokens: 41,            // ITL = 1000 ms / 40 = 25 ms
	}
	fmt.Println(o.Good(rec))
	// Output: true
}
