package harness

import (
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

func TestPlannedRate(t *testing.T) {
	win := loadgen.LevelResult{Start: time.Second, Window: loadgen.Window{Start: 2 * time.Second, End: 4 * time.Second}}
	// Constant 10 req/s from t=1s: arrivals at 2.0, 2.1, ..., 3.9 s lie in
	// [2 s, 4 s): 20 over 2 s. The one at 4.0 s is sent just after the
	// window ends, so it is not expected in it (a run that sends exactly
	// rate × window requests must read 100 %).
	constant := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 10}
	if got := plannedRate(constant, loadgen.Limits{}, loadgen.Shard{}, win); got != 10 {
		t.Errorf("constant: %v req/s, want 10", got)
	}
	// A request limit ends the plan: 15 arrivals (0..1.4 s after start)
	// put 5 in the window (2.0..2.4 s).
	if got := plannedRate(constant, loadgen.Limits{MaxRequests: 15}, loadgen.Shard{}, win); got != 2.5 {
		t.Errorf("constant, 15 requests: %v req/s, want 2.5", got)
	}
	// Poisson: the realised plan, and shards that add up to it.
	poisson := loadgen.Profile{Mode: loadgen.ModePoisson, Rate: 50, Seed: 7}
	plan := loadgen.Plan(loadgen.PacerFor(poisson), 1000)
	var want int
	for _, at := range plan {
		if tt := win.Start + at; tt >= win.Window.Start && tt < win.Window.End {
			want++
		}
	}
	all := plannedRate(poisson, loadgen.Limits{}, loadgen.Shard{}, win)
	if all != float64(want)/2 {
		t.Errorf("poisson: %v req/s, want %v", all, float64(want)/2)
	}
	a := plannedRate(poisson, loadgen.Limits{}, loadgen.Shard{Index: 0, Count: 2}, win)
	b := plannedRate(poisson, loadgen.Limits{}, loadgen.Shard{Index: 1, Count: 2}, win)
	if a+b != all {
		t.Errorf("shards %v + %v != %v", a, b, all)
	}
	// A level stopped by a failed write (or an interruption) at 2.5 s
	// fired arrivals 0..15 and planned none after: 6 in the window's
	// 2 s, not the 20 a level that ran on would have had.
	stopped := win
	stopped.StopReason, stopped.Planned = loadgen.StopSinkError, 16
	if got := plannedRate(constant, loadgen.Limits{}, loadgen.Shard{}, stopped); got != 3 {
		t.Errorf("constant, stopped by a write failure: %v req/s, want 3", got)
	}
	if got := plannedRate(loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}, loadgen.Limits{}, loadgen.Shard{}, win); got != 0 {
		t.Errorf("closed loop: %v, want 0", got)
	}
}
