// Package gpu is one read of a host's GPUs (Snapshot, Sample) from a
// Source, and the thermal gate (Stabilization, Gate) that holds a warm-up
// open until their power has settled. It is the part of package energy
// that the level runner (package harness) needs, kept apart so that
// running a level pulls in none of the Prometheus readers of energy: the
// sources themselves (dcgm-exporter, Prometheus, NVML) live in energy and
// energy/nvml, which re-export these types.
package gpu
