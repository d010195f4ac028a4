package loadgen

import (
	"testing"
	"time"
)

func TestPlannedInWindow(t *testing.T) {
	win := LevelResult{Start: time.Second, Window: Window{Start: 2 * time.Second, End: 4 * time.Second}}
	g := New(nil, nil)
	// Constant 10 req/s from t=1s: arrivals at 2.0, 2.1, ..., 3.9 s lie in
	// [2 s, 4 s): 20. The one at 4.0 s is sent just after the window ends,
	// so it is not expected in it (a run that sends exactly rate × window
	// requests must read 100 %).
	constant := Profile{Mode: ModeConstant, Rate: 10}
	if got := g.plannedInWindow(t.Context(), constant, Limits{}, win); got != 20 {
		t.Errorf("constant: %v arrivals, want 20", got)
	}
	// A request limit ends the plan: 15 arrivals (0..1.4 s after start)
	// put 5 in the window (2.0..2.4 s).
	if got := g.plannedInWindow(t.Context(), constant, Limits{MaxRequests: 15}, win); got != 5 {
		t.Errorf("constant, 15 requests: %v, want 5", got)
	}
	// Poisson: the realised plan, and shards that add up to it.
	poisson := Profile{Mode: ModePoisson, Rate: 50, Seed: 7}
	var want int64
	for _, at := range Plan(PacerFor(poisson), 1000) {
		if tt := win.Start + at; tt >= win.Window.Start && tt < win.Window.End {
			want++
		}
	}
	all := g.plannedInWindow(t.Context(), poisson, Limits{}, win)
	if all != want {
		t.Errorf("poisson: %v, want %v", all, want)
	}
	a := New(nil, nil, WithShard(0, 2)).plannedInWindow(t.Context(), poisson, Limits{}, win)
	b := New(nil, nil, WithShard(1, 2)).plannedInWindow(t.Context(), poisson, Limits{}, win)
	if a+b != all {
		t.Errorf("shards %v + %v != %v", a, b, all)
	}
	// A level stopped by a failed write (or an interruption) at 2.5 s
	// fired arrivals 0..15 and planned none after: 6 in the window, not
	// the 20 a level that ran on would have had.
	for _, reason := range []StopReason{StopSinkError, StopInterrupted, StopMaxErrors} {
		stopped := win
		stopped.StopReason, stopped.Planned = reason, 16
		if got := g.plannedInWindow(t.Context(), constant, Limits{}, stopped); got != 6 {
			t.Errorf("constant, stopped (%s): %v, want 6", reason, got)
		}
	}
	if got := g.plannedInWindow(t.Context(), Profile{Mode: ModeConcurrent, Concurrency: 4}, Limits{}, win); got != 0 {
		t.Errorf("closed loop: %v, want 0", got)
	}
	// A custom pacer (WithPacer) plans the window.
	every := New(nil, nil, WithPacer(ConstantPacer{Rate: 5}))
	if got := every.plannedInWindow(t.Context(), constant, Limits{}, win); got != 10 {
		t.Errorf("WithPacer at 5 req/s: %v, want 10", got)
	}
}
