package counter_test

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/counter"
)

// Two scrapes of an exporter, at a window's start and end.
func ExampleDiff() {
	before, _ := counter.ParseText(strings.NewReader(`# TYPE kepler_pod_gpu_joules_total counter
kepler_pod_gpu_joules_total{pod_name="vllm-0",pod_namespace="inference"} 4887190.3
`))
	after, _ := counter.ParseText(strings.NewReader(`# TYPE kepler_pod_gpu_joules_total counter
kepler_pod_gpu_joules_total{pod_name="vllm-0",pod_namespace="inference"} 5187604.3
`))
	s := counter.Diff(before, after, "kepler_pod_gpu_joules_total", counter.Eq("pod_namespace", "inference"))
	fmt.Printf("%.1f J\n", counter.Sum(s))
	// Output: 300414.0 J
}
