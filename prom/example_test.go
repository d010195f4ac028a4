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
