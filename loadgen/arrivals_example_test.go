package loadgen_test

import (
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// A linear ramp from 1 to 9 req/s over 4 s, evenly spaced: the arrivals
// come closer as the rate rises (20 are expected in the 4 s).
func ExampleRampPacer() {
	r, err := loadgen.ParseRamp("linear:1->9:4s")
	if err != nil {
		panic(err)
	}
	plan := loadgen.Plan(loadgen.RampPacer{Ramp: r}, 20)
	fmt.Println(plan[1].Round(time.Millisecond), plan[19].Round(time.Millisecond), r.Expected(4*time.Second))
	// Output: 618ms 3.887s 20
}

// Gamma gaps of shape 0.5 (vllm bench serve --burstiness 0.5) at a mean
// of 10 req/s: the same mean rate as Poisson arrivals, in bursts.
func ExampleGammaPacer() {
	plan := loadgen.Plan(loadgen.GammaPacer{Rate: 10, Shape: 0.5, Seed: 1}, 10001)
	fmt.Printf("%.0f req/s\n", 10000/plan[10000].Seconds())
	// Output: 10 req/s
}

// Arrivals is the pacer factory a harness gives every level: here, Poisson
// levels get bursty gaps, and closed-loop levels keep their worker pool.
func ExampleArrivals() {
	a := loadgen.Arrivals{Burstiness: 0.5}
	fmt.Printf("%+v\n", a.Pacer(loadgen.Profile{Mode: loadgen.ModePoisson, Rate: 4, Seed: 9}))
	fmt.Println(a.Pacer(loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 8}))
	// Output:
	// {Rate:4 Shape:0.5 Seed:9}
	// <nil>
}
