package energy

import (
	"errors"
	"testing"
	"time"
)

func TestSum(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	a := Reading{Source: "nvml", Start: t0, End: t0.Add(10 * time.Second), GPUs: []GPU{{UUID: "GPU-a", Name: "H200"}},
		GPUCount: 1, GPUName: "H200", GrossEnergyJ: 1000, IdleBaselineW: 10, EnergyJ: 900, PeakW: 120, Valid: true}
	b := Reading{Source: "nvml", Start: t0.Add(time.Second), End: t0.Add(12 * time.Second), GPUs: []GPU{{UUID: "GPU-b", Name: "H100"}},
		GPUCount: 1, GPUName: "H100", GrossEnergyJ: 1400, IdleBaselineW: 10, EnergyJ: 1290, PeakW: 150, Valid: false}
	got, err := Sum(a, Reading{}, b)
	if err != nil {
		t.Fatal(err)
	}
	if got.GrossEnergyJ != 2400 || got.EnergyJ != 2190 || got.IdleBaselineW != 20 || got.PeakW != 270 {
		t.Errorf("sum = %+v", got)
	}
	if got.WindowSeconds != 12 || got.MeanW != 200 {
		t.Errorf("window %v s, mean %v W; want the union, 12 s, and 2400 J / 12 s = 200 W", got.WindowSeconds, got.MeanW)
	}
	if got.Valid || got.GPUName != "mixed: H100, H200" || got.Source != "nvml" || got.GPUCount != 2 {
		t.Errorf("valid %v, name %q, source %q, %d GPUs", got.Valid, got.GPUName, got.Source, got.GPUCount)
	}
	if _, err := Sum(a, a); !errors.Is(err, ErrSharedGPU) {
		t.Errorf("Sum of one GPU twice: err = %v, want ErrSharedGPU", err)
	}
	if z, err := Sum(); err != nil || z.GPUCount != 0 {
		t.Errorf("Sum() = %+v, %v", z, err)
	}
}
