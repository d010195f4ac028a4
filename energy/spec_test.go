package energy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// constSource is a Source whose one GPU reads a fixed counter.
type constSource struct{ closed int }

func (*constSource) Name() string { return "nvml" }
func (*constSource) Read(context.Context, time.Time) (Snapshot, error) {
	return Snapshot{GPUs: []Sample{{Name: "NVIDIA H200", EnergyMJ: 1, HasEnergy: true}}}, nil
}
func (s *constSource) Close() error { s.closed++; return nil }

func TestParseNVML(t *testing.T) {
	noDriver := func() (Source, error) {
		return nil, fmt.Errorf("%w: libnvidia-ml.so.1 not found", ErrNVMLUnavailable)
	}
	t.Run("nvml without a driver fails, naming the flag and the cause", func(t *testing.T) {
		_, err := Parse("nvml", WithNVML(noDriver))
		if !errors.Is(err, ErrNVMLUnavailable) || err.Error() != "energy source nvml: NVML unavailable: libnvidia-ml.so.1 not found" {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("auto without a driver measures nothing and says why", func(t *testing.T) {
		m, err := Parse("auto", WithNVML(noDriver))
		if err != nil {
			t.Fatal(err)
		}
		r := measure(t, m)
		if r.Source != "none" || r.Valid || !hasWarning(r.Warnings, "energy_unavailable") {
			t.Errorf("reading = %+v", r)
		}
		if !strings.Contains(r.Warnings[0].Message, "libnvidia-ml.so.1 not found") {
			t.Errorf("warning %q does not say why", r.Warnings[0].Message)
		}
	})
	t.Run("without WithNVML NVML is not in the build", func(t *testing.T) {
		_, err := Parse("nvml")
		if !errors.Is(err, ErrNVMLUnavailable) || !strings.Contains(err.Error(), "NVML not in this build") {
			t.Fatalf("error = %v", err)
		}
	})
	for _, spec := range []string{"nvml", "auto"} {
		t.Run(spec+" with a driver reads it", func(t *testing.T) {
			src := &constSource{}
			m, err := Parse(spec, WithNVML(func() (Source, error) { return src, nil }), WithSampleInterval(0))
			if err != nil {
				t.Fatal(err)
			}
			if r := measure(t, m); r.Source != "nvml" || r.Hardware() != "1xNVIDIA H200" {
				t.Errorf("reading = %+v", r)
			}
			if err := m.Close(); err != nil || src.closed != 1 {
				t.Errorf("Close: %v, closed %d times", err, src.closed)
			}
		})
	}
}
