// Package energy measures the GPU energy of a benchmark window and turns it
// into per-token energy and carbon figures (docs/metrics.md#energy,
// docs/metrics.md#energy-per-token, docs/metrics.md#carbon).
//
// A Source reads every watched GPU at one instant: the total-energy counter
// (mJ), the power gauge (W), temperature, SM clock and power limit. Sources:
//
//   - NVML: the local driver, nvmlDeviceGetTotalEnergyConsumption, in
//     package energy/nvml (loaded at run time, without cgo); Parse uses it
//     for "nvml" and "auto" when given WithNVML(nvml.Open).
//   - dcgm-exporter (NewDCGM): a /metrics scrape of
//     DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION and DCGM_FI_DEV_POWER_USAGE
//     (prom.Get; ReadDCGM maps a page read by prom.ParseText).
//   - Prometheus (NewPrometheus): instant queries (prom.API) of the same
//     counter at the window's start and end (never increase(), which
//     extrapolates), and avg/max/stddev_over_time of power over the window.
//   - None: measures nothing.
//
// A Meter runs windows over a Source: Start reads the counters and starts
// sampling power in a goroutine it owns; Stop reads the counters again and
// returns a Reading with per-GPU energy, power statistics, the GPU name and
// count (for the scorecard's hardware field) and warnings. Energy is the
// counter delta, E_J = Σ_gpu (end − start) mJ / 1000. A counter that goes
// backwards (driver reload) is detected: that GPU is estimated from power
// samples × time, and the Reading is marked invalid, so per-token figures
// from it are never reported as valid. A stale or coarse counter is warned
// about. Parse builds a Meter from the --energy flag value.
//
// The formulas (WhPerToken, JoulesPerToken, MeanWatts, PUEAdjusted,
// GramsCO2PerMillionTokens) are pure functions; Reading.Figures applies them.
// Gate is the thermal gate: from reads of a Source, on any clock, it says
// when every GPU's power has stayed within a band over a window and its
// temperature has stopped rising. Package harness runs it beside the
// run-level warm-up phase's load; Stabilize runs it alone, without load.
//
// Pod energy comes from Kepler (ParsePodEnergy, PodMeter): the CPU and GPU
// joules Kepler attributed to a namespace's pods (or containers) over the
// same window, through Prometheus (increase() aligned to the window's
// edges) or by scraping Kepler's exporter (a prom.Window), with the names of Kepler 0.10
// and later (kepler_pod_*, kepler_container_{cpu,gpu}_joules_total) or of
// 0.9 and earlier (kepler_container_joules_total with a mode label).
// ComparePod sets it beside the GPUs' own counters and explains the gap:
// Kepler gives pods only the GPUs' active power.
package energy
