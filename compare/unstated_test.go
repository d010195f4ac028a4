package compare

import (
	"slices"
	"testing"
)

// TestLoadStatedByNeither: the review of issue 28 saw "workload
// mismatch: load not stated vs not stated" comparing an AIPerf CSV
// export (which holds no load settings) with itself. Two levels that
// state no load do not differ: the load is listed as stated by neither.
func TestLoadStatedByNeither(t *testing.T) {
	a := read(t, peers+"aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.csv")
	res := Runs(a, a, Options{})
	if len(res.Mismatches) != 0 {
		t.Errorf("mismatches %v, want none", res.Mismatches)
	}
	if !slices.Contains(res.Unstated, "load (stated by neither)") {
		t.Errorf("unstated %v, want the load stated by neither", res.Unstated)
	}
}
