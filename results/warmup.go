package results

import "github.com/gollm-bench/gollm-bench/harness"

// The warm-up phase's record is defined by the runner that fills it
// (harness.RunWarmup), which writes no results folder and so does not
// import this package; these names keep it part of run.json's types.
type (
	// WarmupPhase is run.json's record of the run-level warm-up phase
	// (harness.WarmupRecord).
	WarmupPhase = harness.WarmupRecord
	// WarmupSlice is one slice of the warm-up phase, by send time
	// (harness.WarmupSlice).
	WarmupSlice = harness.WarmupSlice
	// WarmupGate is the thermal gate's outcome at the end of the warm-up
	// phase (harness.WarmupGate).
	WarmupGate = harness.WarmupGate
)
