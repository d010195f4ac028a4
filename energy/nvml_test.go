//go:build cgo && linux

package energy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// This machine has no NVIDIA driver: loading NVML from a path that does not
// exist gives ERROR_LIBRARY_NOT_FOUND, as a GPU-less host does.
func TestNVMLNoDriver(t *testing.T) {
	_, err := openNVML(nvml.New(nvml.WithLibraryPath("/nonexistent/libnvidia-ml.so.1")))
	if !errors.Is(err, ErrNVMLUnavailable) || !strings.Contains(err.Error(), "no NVIDIA driver") {
		t.Fatalf("error = %v, want a clear no-driver message", err)
	}
}

// With the default library name: a failure only when asked for explicitly.
func TestParseNVMLWithoutDriver(t *testing.T) {
	if _, err := OpenNVML(); err == nil {
		t.Skip("this machine has a working NVIDIA driver")
	}
	_, err := Parse("nvml")
	if err == nil || !strings.HasPrefix(err.Error(), "--energy nvml: ") || !errors.Is(err, ErrNVMLUnavailable) {
		t.Fatalf("Parse(nvml) error = %v", err)
	}
	m, err := Parse("auto")
	if err != nil {
		t.Fatalf("auto must fall back, got %v", err)
	}
	r := measure(t, m)
	if r.Source != "none" || r.Valid || !hasWarning(r.Warnings, "energy_unavailable") {
		t.Errorf("auto reading = %+v", r)
	}
}

func TestNVMLRead(t *testing.T) {
	var mj uint64 = 902884513377
	dev := &mock.Device{
		GetUUIDFunc:                   func() (string, nvml.Return) { return "GPU-0dc1b3ff", nvml.SUCCESS },
		GetNameFunc:                   func() (string, nvml.Return) { return "NVIDIA H200", nvml.SUCCESS },
		GetTotalEnergyConsumptionFunc: func() (uint64, nvml.Return) { return mj, nvml.SUCCESS },
		GetPowerUsageFunc:             func() (uint32, nvml.Return) { return 697412, nvml.SUCCESS },
		GetTemperatureFunc:            func(nvml.TemperatureSensors) (uint32, nvml.Return) { return 64, nvml.SUCCESS },
		GetClockInfoFunc:              func(nvml.ClockType) (uint32, nvml.Return) { return 1980, nvml.SUCCESS },
		GetEnforcedPowerLimitFunc:     func() (uint32, nvml.Return) { return 700000, nvml.SUCCESS },
	}
	shut := 0
	lib := &mock.Interface{
		InitFunc:                   func() nvml.Return { return nvml.SUCCESS },
		ShutdownFunc:               func() nvml.Return { shut++; return nvml.SUCCESS },
		DeviceGetCountFunc:         func() (int, nvml.Return) { return 1, nvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(int) (nvml.Device, nvml.Return) { return dev, nvml.SUCCESS },
		SystemGetDriverVersionFunc: func() (string, nvml.Return) { return "570.86.15", nvml.SUCCESS },
	}
	src, err := openNVML(lib)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Read(context.Background(), t0)
	if err != nil {
		t.Fatal(err)
	}
	want := Sample{Index: 0, UUID: "GPU-0dc1b3ff", Name: "NVIDIA H200", EnergyMJ: 902884513377, HasEnergy: true,
		PowerW: 697.412, HasPower: true, TempC: 64, SMClockMHz: 1980, PowerLimitW: 700}
	if len(snap.GPUs) != 1 || snap.GPUs[0] != want || snap.Driver != "570.86.15" {
		t.Fatalf("snapshot = %+v", snap)
	}
	// A full window through a Meter: 83,305.417 J.
	m := NewMeter(src, WithClock(edgeClock()), WithSampleInterval(0))
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	mj = 902967818794
	r, err := m.Stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Valid || !near(r.EnergyJ, 83305.417, 1e-6) || r.Hardware() != "1xNVIDIA H200" {
		t.Errorf("reading = %+v", r)
	}
	if err := m.Close(); err != nil || shut != 1 {
		t.Errorf("Close: %v, shutdowns %d", err, shut)
	}

	// No energy counter (pre-Volta): HasEnergy false, not an error.
	dev.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
	if snap, err := src.Read(context.Background(), t0); err != nil || snap.GPUs[0].HasEnergy {
		t.Errorf("unsupported counter: %+v, %v", snap, err)
	}
	dev.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) { return 0, nvml.ERROR_GPU_IS_LOST }
	if _, err := src.Read(context.Background(), t0); err == nil {
		t.Error("a lost GPU must be an error")
	}
}
