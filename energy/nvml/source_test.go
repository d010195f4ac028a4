package nvml

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
)

var (
	t0 = time.Unix(1771322400, 0).UTC()
	t1 = t0.Add(120 * time.Second)
)

// fakeLib is a library with one GPU whose answers the test sets.
type fakeLib struct {
	init      status
	count     int
	energyMJ  uint64
	energySt  status
	shutdowns int
}

func (f *fakeLib) Init() status                    { return f.init }
func (f *fakeLib) Shutdown() status                { f.shutdowns++; return success }
func (f *fakeLib) DeviceCount() (int, status)      { return f.count, success }
func (f *fakeLib) DriverVersion() (string, status) { return "570.86.15", success }
func (f *fakeLib) Device(i int) (device, status)   { return device(0x1000 + i), success }
func (f *fakeLib) Name(device) (string, status)    { return "NVIDIA H200", success }
func (f *fakeLib) UUID(device) (string, status)    { return "GPU-0dc1b3ff", success }
func (f *fakeLib) TotalEnergy(device) (uint64, status) {
	return f.energyMJ, f.energySt
}
func (f *fakeLib) PowerUsage(device) (uint32, status)  { return 697412, success }
func (f *fakeLib) Temperature(device) (uint32, status) { return 64, success }
func (f *fakeLib) SMClock(device) (uint32, status)     { return 1980, success }
func (f *fakeLib) PowerLimit(device) (uint32, status)  { return 700000, success }

func edgeClock() func() time.Time {
	var n atomic.Int32
	return func() time.Time {
		if n.Add(1) == 1 {
			return t0
		}
		return t1
	}
}

func TestRead(t *testing.T) {
	lib := &fakeLib{count: 1, energyMJ: 902884513377}
	src, err := open(lib)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Read(context.Background(), t0)
	if err != nil {
		t.Fatal(err)
	}
	want := energy.Sample{Index: 0, UUID: "GPU-0dc1b3ff", Name: "NVIDIA H200", EnergyMJ: 902884513377, HasEnergy: true,
		PowerW: 697.412, HasPower: true, TempC: 64, SMClockMHz: 1980, PowerLimitW: 700}
	if len(snap.GPUs) != 1 || snap.GPUs[0] != want || snap.Driver != "570.86.15" {
		t.Fatalf("snapshot = %+v", snap)
	}
	// A full window through a Meter: 83,305.417 J.
	m := energy.NewMeter(src, energy.WithClock(edgeClock()), energy.WithSampleInterval(0))
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	lib.energyMJ = 902967818794
	r, err := m.Stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Valid || math.Abs(r.EnergyJ-83305.417) > 1e-6 || r.Hardware() != "1xNVIDIA H200" {
		t.Errorf("reading = %+v", r)
	}
	if err := m.Close(); err != nil || lib.shutdowns != 1 {
		t.Errorf("Close: %v, shutdowns %d", err, lib.shutdowns)
	}

	// No energy counter (before Volta): HasEnergy false, not an error.
	lib.energySt = errNotSupported
	if snap, err := src.Read(context.Background(), t0); err != nil || snap.GPUs[0].HasEnergy {
		t.Errorf("unsupported counter: %+v, %v", snap, err)
	}
	lib.energySt = 15
	if _, err := src.Read(context.Background(), t0); err == nil || !strings.Contains(err.Error(), "NVML_ERROR_GPU_IS_LOST") {
		t.Errorf("a lost GPU must be an error naming it, got %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name      string
		lib       *fakeLib
		want      string
		shutdowns int
	}{
		{"library not found", &fakeLib{init: errLibNotFound}, "libnvidia-ml.so.1 not found: no NVIDIA driver on this machine", 0},
		{"driver not loaded", &fakeLib{init: errDriverNotLoad}, "the NVIDIA kernel driver is not loaded", 0},
		{"no permission", &fakeLib{init: errNoPermission}, "no permission to use the NVIDIA driver", 0},
		{"other", &fakeLib{init: 999}, "nvmlInit: NVML_ERROR_UNKNOWN", 0},
		{"no GPU", &fakeLib{count: 0}, "NVML found no GPU", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := open(tt.lib)
			if !errors.Is(err, energy.ErrNVMLUnavailable) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
			if tt.lib.shutdowns != tt.shutdowns {
				t.Errorf("shutdowns = %d, want %d", tt.lib.shutdowns, tt.shutdowns)
			}
		})
	}
}
