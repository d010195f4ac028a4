package energy

import (
	"testing"
	"time"
)

// TestGateTemperature: power flat from the start, but the temperature
// climbs 0.2 °C/s for 60 s, then holds (a sensor flickering by a degree):
// the gate holds only once the temperature's slope over the window is
// within 1 °C, not at the first full window.
func TestGateTemperature(t *testing.T) {
	g, err := NewGate(Stabilization{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(0, 0)
	var heldAt time.Duration = -1
	var st GateState
	for i := range 200 {
		temp := 40 + 0.2*float64(min(i, 60)) + float64(i%2) // flicker ±0.5 °C
		snap := Snapshot{GPUs: []Sample{{UUID: "GPU-a", HasPower: true, PowerW: 300, TempC: temp}}}
		st = g.Add(t0.Add(time.Duration(i)*time.Second), snap)
		if i == 30 && st.Holds {
			t.Fatalf("held at 30 s while the temperature rose %v °C over the window", *st.TempRiseC)
		}
		if st.Holds && heldAt < 0 {
			heldAt = time.Duration(i) * time.Second
		}
	}
	if heldAt < 60*time.Second || heldAt > 95*time.Second {
		t.Errorf("held at %v; want after the climb ends at 60 s and within a window after it", heldAt)
	}
	if st.TempRiseC == nil || *st.TempRiseC > 1 || st.SpreadW != 0 {
		t.Errorf("final state %+v", st)
	}
}

// TestGateWithoutTemperatureOrPower: a source without temperatures is
// judged on power alone; one without power never holds.
func TestGateWithoutTemperatureOrPower(t *testing.T) {
	for _, tc := range []struct {
		name  string
		gpu   Sample
		holds bool
	}{
		{"power only", Sample{UUID: "GPU-a", HasPower: true, PowerW: 250}, true},
		{"no power", Sample{UUID: "GPU-a", TempC: 50}, false},
	} {
		g, err := NewGate(Stabilization{Window: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		var st GateState
		for i := range 10 {
			st = g.Add(time.Unix(int64(i), 0), Snapshot{GPUs: []Sample{tc.gpu}})
		}
		if st.Holds != tc.holds {
			t.Errorf("%s: holds %v, want %v (%+v)", tc.name, st.Holds, tc.holds, st)
		}
		if tc.name == "power only" && st.TempRiseC != nil {
			t.Errorf("%s: temperature rise %v without temperatures", tc.name, *st.TempRiseC)
		}
	}
}

func TestSnapshotStates(t *testing.T) {
	snap := Snapshot{GPUs: []Sample{
		{Index: 1, UUID: "GPU-b", HasPower: true, PowerW: 412.5, TempC: 71, SMClockMHz: 1755, PowerLimitW: 700},
		{Index: 2, UUID: "GPU-c", PowerW: 99}, // power not reported
	}}
	got := snap.States()
	if len(got) != 2 || got[0] != (GPUState{Index: 1, UUID: "GPU-b", PowerW: 412.5, TempC: 71, SMClockMHz: 1755, PowerLimitW: 700}) || got[1].PowerW != 0 {
		t.Errorf("States() = %+v", got)
	}
}
