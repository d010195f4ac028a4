package prom_test

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/prom"
)

// Two scrapes of an exporter, at a window's start and end.
func ExampleDiff() {
	before, _ := prom.ParseText(strings.NewReader(`# TYPE kepler_pod_gpu_joules_total counter
kepler_pod_gpu_joules_total{pod_name="vllm-0",pod_namespace="inference"} 4887190.3
`))
	after, _ := prom.ParseText(strings.NewReader(`# TYPE kepler_pod_gpu_joules_total counter
kepler_pod_gpu_joules_total{pod_name="vllm-0",pod_namespace="inference"} 5187604.3
`))
	s := prom.Diff(before, after, "kepler_pod_gpu_joules_total", prom.Eq("pod_namespace", "inference"))
	fmt.Printf("%.1f J\n", prom.Sum(s))
	// Output: 300414.0 J
}

// A histogram is read from its _count and _sum series.
func ExampleParseText() {
	page, _ := prom.ParseText(strings.NewReader(`# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.25"} 3500
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf"} 3796
vllm:time_to_first_token_seconds_sum{engine="0"} 750.25
vllm:time_to_first_token_seconds_count{engine="0"} 3796
`))
	n := page.Samples("vllm:time_to_first_token_seconds_count")[0].Value
	s := page.Samples("vllm:time_to_first_token_seconds_sum")[0].Value
	fmt.Printf("%.0f observations, mean %.3f s\n", n, s/n)
	// Output: 3796 observations, mean 0.198 s
}
