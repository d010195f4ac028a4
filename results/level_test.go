package results

import (
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
)

func TestEnergyWindows(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	read := func(from, to time.Duration, j float64) *energy.Reading {
		return &energy.Reading{Source: "nvml", GPUCount: 1, Start: t0.Add(from), End: t0.Add(to), EnergyJ: j, MeanW: j / (to - from).Seconds(), Valid: true}
	}
	run := Run{StartedAt: t0, Telemetry: []LevelTelemetry{
		{Level: 1, Energy: read(100*time.Second, 160*time.Second, 600)},
		{Level: 0, Energy: read(10*time.Second, 70*time.Second, 300)},
		{Level: 2}, // engine metrics only
		// --energy auto without a driver: a reading of nothing.
		{Level: 3, Energy: &energy.Reading{Source: "none", Start: t0.Add(200 * time.Second), End: t0.Add(260 * time.Second)}},
	}}
	ew := run.EnergyWindows()
	if len(ew) != 2 || ew[0].Level != 0 || ew[1].Level != 1 {
		t.Fatalf("windows %+v: want levels 0 then 1", ew)
	}
	if ew[0].Start != 10*time.Second || ew[1].End != 160*time.Second || ew[0].CumulativeJ != 300 || ew[1].CumulativeJ != 900 {
		t.Errorf("windows %+v", ew)
	}
	if (Run{}).EnergyWindows() != nil {
		t.Error("no telemetry: want no windows")
	}
}

// TestCheckEmptyRun: a run.json of just {"schema_version":1} was accepted
// by compare (a made-up "streaming yes vs no" mismatch, exit 0) and
// reported as "no levels ran" by report.
func TestCheckEmptyRun(t *testing.T) {
	run, err := Decode(strings.NewReader(`{"schema_version":1}`))
	if err != nil {
		t.Fatal(err)
	}
	err = run.Check()
	if err == nil || !strings.Contains(err.Error(), "run_id is empty") || !strings.Contains(err.Error(), "result.levels is empty") {
		t.Errorf("Check of an empty run.json = %v, want run_id and levels named", err)
	}
	run.RunID, run.Partial = "r1", true // stopped before its first level
	if err := run.Check(); err != nil {
		t.Errorf("a partial run without levels: %v", err)
	}
}
