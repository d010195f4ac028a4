package peer_test

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/peer"
)

// Compare a GuideLLM run with an AIPerf run at the same concurrency.
func Example() {
	a, err := peer.ReadFile("../testdata/peers/guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := peer.ReadFile("../testdata/peers/aiperf-0.8.0-mock-nonstreaming-c4-profile_export_aiperf.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := peer.Compare(a, b)
	for _, r := range c.Rows() {
		fmt.Printf("%s %s: %v vs %v\n", r.Level, r.Metric, r.A, r.B)
	}
	// Output:
	// concurrency 4 TTFT p50 (ms): 171.522 vs —
	// concurrency 4 TTFT p99 (ms): 172.633 vs —
	// concurrency 4 ITL mean (ms): 24.1788 vs —
	// concurrency 4 ITL p95 (ms): 24.1789 vs —
	// concurrency 4 E2E p50 (ms): 24908.4 vs 0.67343
	// concurrency 4 E2E p99 (ms): 24909.7 vs 15.1439
	// concurrency 4 output tok/s: 165.595 vs 1.02244e+06
	// concurrency 4 req/s: 0.120435 vs 1854.93
}
