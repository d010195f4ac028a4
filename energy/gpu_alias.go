package energy

import (
	"context"

	"github.com/gollm-bench/gollm-bench/energy/gpu"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// The GPU read and the thermal gate are defined in package energy/gpu,
// which the level runner imports without the Prometheus readers of this
// package; these names keep them part of energy's API.
type (
	// Source reads every GPU it watches at one instant (gpu.Source).
	Source = gpu.Source
	// Snapshot is one reading of every watched GPU (gpu.Snapshot).
	Snapshot = gpu.Snapshot
	// Sample is one GPU at one instant (gpu.Sample).
	Sample = gpu.Sample
	// Stabilization configures the thermal gate (gpu.Stabilization).
	Stabilization = gpu.Stabilization
	// Gate is the thermal gate's state machine (gpu.Gate).
	Gate = gpu.Gate
	// GateState is where the gate stands after a read (gpu.GateState).
	GateState = gpu.GateState
	// Stabilized is the outcome of Stabilize (gpu.Stabilized).
	Stabilized = gpu.Stabilized
	// GPUState is one GPU's power and temperature at a read (gpu.GPUState).
	GPUState = gpu.GPUState
)

// NewGate returns a thermal gate for s (gpu.NewGate).
func NewGate(s Stabilization) (*Gate, error) { return gpu.NewGate(s) }

// Stabilize reads src until its GPUs' power settles as s asks, or s's
// timeout passes (gpu.Stabilize).
func Stabilize(ctx context.Context, src Source, s Stabilization) (Stabilized, error) {
	return gpu.Stabilize(ctx, src, s)
}

// NotStableWarning is the warning of a gate that timed out
// (gpu.NotStableWarning).
func NotStableWarning(s Stabilization, st GateState) metrics.Warning {
	return gpu.NotStableWarning(s, st)
}
