package gpu

import (
	"context"
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// Source reads every GPU it watches at one instant. Implementations: in
// package energy, a dcgm-exporter scrape (energy.NewDCGM), the Prometheus
// HTTP API (energy.NewPrometheus) and energy.None; the local driver's NVML
// is package energy/nvml. A Meter calls Read from one goroutine
// at a time; implementations need not be safe for concurrent use.
type Source interface {
	// Name is the source's short name: "nvml", "dcgm", "prometheus", "none".
	Name() string
	// Read returns one snapshot standing for the instant at. Live sources
	// (NVML, a scrape) read now and ignore at; Prometheus evaluates its
	// queries at that time.
	Read(ctx context.Context, at time.Time) (Snapshot, error)
}

// Snapshot is one reading of every watched GPU.
type Snapshot struct {
	GPUs   []Sample
	Driver string // NVIDIA driver version, when the source reports it
}

// Sample is one GPU at one instant.
type Sample struct {
	Index int    // GPU index on its host (NVML index, dcgm-exporter "gpu" label)
	UUID  string // "GPU-…"; the identity used to match a GPU across reads
	Name  string // product name, e.g. "NVIDIA H100 80GB HBM3"
	Host  string // host name ("Hostname"/"hostname" label); empty for NVML

	// EnergyMJ is the GPU's total-energy counter, mJ since the driver
	// loaded (NVML nvmlDeviceGetTotalEnergyConsumption, DCGM field 156
	// DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION). Valid when HasEnergy.
	EnergyMJ  float64
	HasEnergy bool
	// PowerW is the instantaneous board power draw, W (NVML
	// nvmlDeviceGetPowerUsage / 1000, DCGM_FI_DEV_POWER_USAGE). Valid when HasPower.
	PowerW   float64
	HasPower bool

	TempC       float64 // GPU temperature, °C (0 when unknown)
	SMClockMHz  float64 // SM clock, MHz (0 when unknown)
	PowerLimitW float64 // enforced power limit, W (0 when unknown)

	// CounterAge is how old the source's energy-counter value was at the
	// read's instant (Prometheus: eval time − sample time). 0 when unknown.
	CounterAge time.Duration
}

// Key identifies a GPU across reads: its UUID, else host and index.
func (s Sample) Key() string {
	if s.UUID != "" {
		return s.UUID
	}
	return fmt.Sprintf("%s/%d", s.Host, s.Index)
}

// WarnPowerNotStable: the thermal gate (--stabilize) timed out before power
// settled (metrics.Warning.Code).
const WarnPowerNotStable metrics.WarningCode = "power_not_stable"

func warn(code metrics.WarningCode, format string, args ...any) metrics.Warning {
	return metrics.Warning{Code: code, Level: -1, Message: fmt.Sprintf(format, args...)}
}
