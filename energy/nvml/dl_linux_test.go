//go:build linux && (amd64 || arm64)

package nvml

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/energy"
)

// This machine has no NVIDIA driver; a GPU-less host is the same case.
func TestOpenWithoutDriver(t *testing.T) {
	src, err := Open()
	if err == nil {
		src.(*source).Close()
		t.Skip("this machine has a working NVIDIA driver")
	}
	if !errors.Is(err, energy.ErrNVMLUnavailable) || !strings.Contains(err.Error(), "libnvidia-ml.so.1 not found: no NVIDIA driver") {
		t.Fatalf("Open() error = %v, want libnvidia-ml.so.1 not found", err)
	}
	// Through the --energy flag, as `gollm-bench run --energy nvml` says it.
	_, err = energy.Parse("nvml", energy.WithNVML(Open))
	if err == nil || !strings.HasPrefix(err.Error(), "energy source nvml: NVML unavailable: libnvidia-ml.so.1 not found") {
		t.Fatalf("Parse(nvml) error = %v", err)
	}
}

func TestOpenLibraryErrors(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "libnvidia-ml.so.1")
	if err := os.WriteFile(junk, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"/nonexistent/libnvidia-ml.so.1", "/nonexistent/libnvidia-ml.so.1 not found: no NVIDIA driver"},
		{junk, junk + " cannot be loaded: "},
		// A real library that is not NVML: loaded, then refused.
		{"libc.so.6", "libc.so.6 has no nvmlInit_v2: not NVML, or a driver too old"},
	}
	for _, tt := range tests {
		_, err := OpenLibrary(tt.path)
		if !errors.Is(err, energy.ErrNVMLUnavailable) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("OpenLibrary(%q) error = %v, want %q", tt.path, err, tt.want)
		}
	}
}

// TestOpenLibraryFake calls a stand-in NVML built from testdata/fakenvml.c
// through the dlopen binding: every argument and result crosses the real
// C calling convention (64-bit counter, enum arguments, string buffers,
// device handles). It needs a C compiler, only to build the stand-in.
func TestOpenLibraryFake(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in NVML")
	}
	lib := filepath.Join(t.TempDir(), "libnvidia-ml.so.1")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, filepath.Join("testdata", "fakenvml.c")).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	src, err := OpenLibrary(lib)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Read(context.Background(), t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []energy.Sample{
		{Index: 0, UUID: "GPU-0dc1b3ff-0", Name: "NVIDIA H200", EnergyMJ: 902884513377, HasEnergy: true,
			PowerW: 697.412, HasPower: true, TempC: 64, SMClockMHz: 1980, PowerLimitW: 700},
		{Index: 1, UUID: "GPU-0dc1b3ff-1", Name: "NVIDIA H200", PowerW: 697.413, HasPower: true, TempC: 64, SMClockMHz: 1980, PowerLimitW: 700},
	}
	if snap.Driver != "570.86.15" || len(snap.GPUs) != 2 || snap.GPUs[0] != want[0] || snap.GPUs[1] != want[1] {
		t.Fatalf("snapshot = %+v", snap)
	}
	if snap, err = src.Read(context.Background(), t0); err != nil || snap.GPUs[0].EnergyMJ != 902884513377+83305417 {
		t.Fatalf("second read = %+v, %v", snap, err)
	}
	if err := src.(*source).Close(); err != nil {
		t.Fatal(err)
	}
}
