package energy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// fakeSource is a GPU whose power and counter follow functions of the time
// elapsed since start (a synctest bubble's clock).
type fakeSource struct {
	start   time.Time
	power   func(s float64) float64
	counter func(s float64) float64 // mJ
}

func (f *fakeSource) Name() string { return "fake" }

func (f *fakeSource) Read(_ context.Context, at time.Time) (Snapshot, error) {
	s := at.Sub(f.start).Seconds()
	g := Sample{Index: 0, UUID: "GPU-fake", Name: "Fake GPU", HasPower: true, PowerW: f.power(s), TempC: 40, SMClockMHz: 1500}
	if f.counter != nil {
		g.EnergyMJ, g.HasEnergy = f.counter(s), true
	}
	return Snapshot{GPUs: []Sample{g}}, nil
}

func TestSamplerCoarseAndStale(t *testing.T) {
	tests := []struct {
		name     string
		counter  func(s float64) float64
		valid    bool
		warning  metrics.WarningCode
		energyJ  float64
		estimate bool
	}{
		// 500 W, counter updated every read: exact, no warning.
		{"fine counter", func(s float64) float64 { return 1e9 + 500e3*s }, true, "", 500 * 120.5, false},
		// dcgm-exporter's default 30 s collect interval: the counter moves in steps.
		{"30 s steps", func(s float64) float64 { return 1e9 + 500e3*30*float64(int(s/30)) }, true, "energy_counter_coarse", 500 * 120, false},
		// A counter that never moves is stale: estimate from power, invalid.
		{"stale", func(float64) float64 { return 1e9 }, false, "energy_counter_stale", 500 * 120.5, true},
		// No counter at all (pre-Volta): estimate from power, invalid.
		{"no counter", nil, false, "energy_no_counter", 500 * 120.5, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &fakeSource{start: time.Now(), power: func(float64) float64 { return 500 }, counter: tc.counter}
				m := NewMeter(src, WithSampleInterval(time.Second))
				ctx := context.Background()
				if err := m.Start(ctx); err != nil {
					t.Fatal(err)
				}
				time.Sleep(120*time.Second + 500*time.Millisecond)
				r, err := m.Stop(ctx)
				if err != nil {
					t.Fatal(err)
				}
				g := r.GPUs[0]
				if g.Power.Samples != 122 { // start + 120 ticks + end
					t.Errorf("samples = %d, want 122", g.Power.Samples)
				}
				if g.Power.MeanW != 500 || g.Power.StdW != 0 || r.PeakW != 500 {
					t.Errorf("power = %+v peak %v", g.Power, r.PeakW)
				}
				if r.Valid != tc.valid || g.Estimated != tc.estimate {
					t.Errorf("Valid %v Estimated %v, want %v %v (warnings %v)", r.Valid, g.Estimated, tc.valid, tc.estimate, r.Warnings)
				}
				if tc.warning == "" && len(r.Warnings) != 0 || tc.warning != "" && !hasWarning(r.Warnings, tc.warning) {
					t.Errorf("warnings %v, want %q", r.Warnings, tc.warning)
				}
				if !near(g.EnergyJ, tc.energyJ, 1e-6) {
					t.Errorf("energy = %v J, want %v", g.EnergyJ, tc.energyJ)
				}
			})
		})
	}
}

func TestStabilize(t *testing.T) {
	tests := []struct {
		name   string
		power  func(s float64) float64
		stable bool
		waited time.Duration
	}{
		// ±10 W swings for 60 s, then ±1 W: stable after 60 + 30 s.
		{"settles", func(s float64) float64 {
			if s < 60 {
				return 600 + 10*float64(int(s)%2*2-1)
			}
			return 600 + float64(int(s)%2)
		}, true, 90 * time.Second},
		{"flat from the start", func(float64) float64 { return 450 }, true, 30 * time.Second},
		{"never settles", func(s float64) float64 { return 600 + 10*float64(int(s)%2) }, false, 5 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &fakeSource{start: time.Now(), power: tc.power}
				got, err := Stabilize(context.Background(), src, Stabilization{})
				if err != nil {
					t.Fatal(err)
				}
				if got.Stable != tc.stable || got.Waited != tc.waited {
					t.Errorf("Stable %v after %v, want %v after %v (spread %v)", got.Stable, got.Waited, tc.stable, tc.waited, got.SpreadW)
				}
				if tc.stable == hasWarning(got.Warnings, "power_not_stable") {
					t.Errorf("warnings %v", got.Warnings)
				}
				if len(got.State.GPUs) != 1 || got.State.GPUs[0].TempC != 40 {
					t.Errorf("state at the start of measurement = %+v", got.State)
				}
			})
		})
	}
}

func TestStabilizationValidate(t *testing.T) {
	err := errors.Join(Stabilization{Window: -1, Interval: -1}.Validate(),
		Stabilization{Window: time.Minute, BandW: -2, Timeout: time.Second}.Validate())
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"window -1ns", "interval -1ns", "band -2 W", "never pass"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if err := (Stabilization{}).Validate(); err != nil {
		t.Errorf("zero value: %v", err)
	}
}
