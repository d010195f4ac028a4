package energy

import (
	"github.com/gollm-bench/gollm-bench/energy/gpu"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// Warning codes this package raises (metrics.Warning.Code).
const (
	// WarnSampleErrors: some power or energy samples failed during the window.
	WarnSampleErrors metrics.WarningCode = "energy_sample_errors"
	// WarnEmptyWindow: the energy window has no length: no energy figure.
	WarnEmptyWindow metrics.WarningCode = "energy_empty_window"
	// WarnGPUAppeared: a GPU appeared during the window and is left out.
	WarnGPUAppeared metrics.WarningCode = "energy_gpu_appeared"
	// WarnNoCounter: a GPU has no energy counter: its energy is estimated from power samples or left out.
	WarnNoCounter metrics.WarningCode = "energy_no_counter"
	// WarnCounterReset: an energy counter went backwards (a reset or a driver reload): its share of the window was estimated from power samples.
	WarnCounterReset metrics.WarningCode = "energy_counter_reset"
	// WarnCounterStale: an energy counter did not move while the GPU drew power.
	WarnCounterStale metrics.WarningCode = "energy_counter_stale"
	// WarnCounterCoarse: an energy counter updates so rarely that its edges are a sizeable part of a short window.
	WarnCounterCoarse metrics.WarningCode = "energy_counter_coarse"
	// WarnGPUVanished: a GPU disappeared during the window.
	WarnGPUVanished metrics.WarningCode = "energy_gpu_vanished"
	// WarnNoGPU: the energy source reported no GPU.
	WarnNoGPU metrics.WarningCode = "energy_no_gpu"
	// WarnIdleBaselineHigh: the declared idle baseline exceeds the measured power.
	WarnIdleBaselineHigh metrics.WarningCode = "energy_idle_baseline_high"
	// WarnUnavailable: --energy auto found no energy source: energy, Wh/token and carbon are not measured.
	WarnUnavailable metrics.WarningCode = "energy_unavailable"
	// WarnPowerNotStable: the thermal gate (--stabilize) timed out before power settled.
	WarnPowerNotStable = gpu.WarnPowerNotStable
)
