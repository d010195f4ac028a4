package results

import "testing"

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
			"concurrent:4 under the thermal gate alone (no --warmup-phase) ran 5.0 s, thermal gate 30s,3W,5m0s passed (first held after 4.0 s)"},
	} {
		if got := tt.w.Describe(); got != tt.want {
			t.Errorf("Describe() = %q, want %q", got, tt.want)
		}
	}
}
