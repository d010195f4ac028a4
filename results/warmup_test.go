package results

import (
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// TestWarmupDescribe: --stabilize without --warmup-phase runs the gate's
// load with no length of its own; the scorecard's warmup read "run-level
// phase concurrent:4:0s ran 5.0 s", a 0 s phase that ran 5 s.
func TestWarmupDescribe(t *testing.T) {
	held := 4.0
	for _, tt := range []struct {
		w    WarmupPhase
		want string
	}{
		{WarmupPhase{Spec: "concurrent:4:60s", PlannedS: 60, DurationS: 61.25},
			"concurrent:4:60s ran 61.2 s, no thermal gate"},
		{WarmupPhase{Spec: "concurrent:4:0s", DurationS: 5, Gate: &WarmupGate{Spec: "30s,3W,5m0s", Passed: true, HeldAfterS: &held}},
			"concurrent:4 under the thermal gate alone (no phase length given) ran 5.0 s, thermal gate 30s,3W,5m0s passed (first held after 4.0 s)"},
	} {
		if got := tt.w.Describe(); got != tt.want {
			t.Errorf("Describe() = %q, want %q", got, tt.want)
		}
	}
}

// TestArrivalsLabel names ramp, trace and gamma levels; a plain rate, a
// closed-loop level and no arrivals give "".
func TestArrivalsLabel(t *testing.T) {
	c := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 7}
	p := loadgen.Profile{Mode: loadgen.ModePoisson, Rate: 5}
	for _, tt := range []struct {
		a    *Arrivals
		p    loadgen.Profile
		want string
	}{
		{nil, c, ""},
		{&Arrivals{Ramp: "linear:2->20:1m0s"}, c, "ramp linear 2→20 req/s over 1m0s"},
		{&Arrivals{Ramp: "linear:2->20:1m0s"}, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}, ""},
		{&Arrivals{Trace: &TraceReplay{Format: "mooncake", Speedup: 1}}, c, "trace mooncake 1×"},
		{&Arrivals{Burstiness: 0.5}, p, "poisson 5 req/s, gamma K=0.5"},
		{&Arrivals{Burstiness: 0.5}, c, ""},
		{&Arrivals{SharedPrefix: "groups=8"}, c, ""},
	} {
		if got := tt.a.Label(tt.p); got != tt.want {
			t.Errorf("%+v.Label(%+v) = %q, want %q", tt.a, tt.p, got, tt.want)
		}
	}
}
