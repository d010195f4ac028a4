package energy

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// PodGap sets the GPU energy Kepler attributed to the selected pods beside
// the GPU energy the GPU source (NVML, DCGM, Prometheus) measured over the
// same window, and says why they differ. It is plain data.
type PodGap struct {
	// GPUSource names the GPU energy source, e.g. "nvml".
	GPUSource string `json:"gpu_source"`
	// GPUJ is the GPUs' counter energy over the window (Reading.GrossEnergyJ), J.
	GPUJ float64 `json:"gpu_j"`
	// PodGPUJ is Kepler's GPU energy of the selection (PodReading.GPUJ), J.
	PodGPUJ float64 `json:"pod_gpu_j"`
	// GapJ = GPUJ − PodGPUJ, J; GapFraction = GapJ / GPUJ.
	GapJ        float64 `json:"gap_j"`
	GapFraction float64 `json:"gap_fraction"`
	// KeplerIdleJ is Kepler's node GPU idle energy over the window, J, when
	// Kepler exports it: the part of the gap that idle power explains.
	KeplerIdleJ *float64 `json:"kepler_idle_j,omitempty"`
	// Reason explains the gap in words.
	Reason string `json:"reason"`
}

// gapTolerance is the share by which Kepler's pod GPU energy may exceed
// the GPU counters before it is worth a warning (edge and scrape effects).
const gapTolerance = 0.05

// ComparePod compares a GPU Reading with a PodReading of the same window.
// ok is false when either is not valid. A pod GPU energy above the GPUs'
// own by more than 5 % cannot be right (the GPU source watches other GPUs
// than the pod's, or a filter is off) and comes with a
// "pod_energy_above_gpu" warning.
func ComparePod(gpu Reading, pod PodReading) (gap PodGap, warnings []metrics.Warning, ok bool) {
	if !gpu.Valid || !pod.Valid || gpu.GrossEnergyJ <= 0 {
		return PodGap{}, nil, false
	}
	g := PodGap{GPUSource: gpu.Source, GPUJ: gpu.GrossEnergyJ, PodGPUJ: pod.GPUJ, KeplerIdleJ: pod.NodeGPUIdleJ}
	g.GapJ = g.GPUJ - g.PodGPUJ
	g.GapFraction = g.GapJ / g.GPUJ
	var why []string
	switch pod.Generation {
	case KeplerLegacy:
		why = append(why, "Kepler 0.9- splits the GPUs' power between containers in a dynamic and an idle part; only the dynamic part is the pod's GPU energy here (the idle part is idle_attributed_j)")
	default:
		why = append(why, "Kepler attributes to pods only the GPUs' active power (total minus its idle estimate), split by each process's GPU utilisation; idle power is not attributed to any pod")
	}
	if g.KeplerIdleJ != nil {
		why = append(why, fmt.Sprintf("Kepler counted %.0f J of node GPU idle energy in the window (%.0f %% of the gap)", *g.KeplerIdleJ, 100**g.KeplerIdleJ/nonzero(g.GapJ)))
	}
	why = append(why, "MIG instances and GPUs outside the pod are not attributed to it")
	if gpu.GPUCount > 0 {
		why = append(why, fmt.Sprintf("the GPU source counted %d GPU(s)", gpu.GPUCount))
	}
	g.Reason = strings.Join(why, "; ")
	if g.PodGPUJ > g.GPUJ*(1+gapTolerance) {
		warnings = append(warnings, warn("pod_energy_above_gpu",
			"Kepler attributes %.0f J of GPU energy to %s, %.1f %% more than the %s counters measured on the GPUs (%.0f J): the GPU source watches other GPUs than the pod's (see its GPU filter, WithFilter), or the two windows differ",
			g.PodGPUJ, pod.Selector, -100*g.GapFraction, gpu.Source, g.GPUJ))
	}
	return g, warnings, true
}

func nonzero(v float64) float64 {
	if v == 0 {
		return 1
	}
	return v
}
