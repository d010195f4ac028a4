package results

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/enginemetrics"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/workload"
)

// FuzzCopyRecords: whatever a shard's requests.jsonl holds, merge copies
// whole JSON objects only, one a line; a file it accepts without a torn
// end loses no non-blank line.
func FuzzCopyRecords(f *testing.F) {
	f.Add([]byte("{\"seq\":1}\n{\"seq\":2}\n"))
	f.Add([]byte("{\"seq\":1}\n{\"seq\":2,\"status\":\"o"))
	f.Add([]byte("{\"seq\":1}\n{\"seq\n{\"seq\":3}\n"))
	f.Add([]byte("\n  \n{\"seq\":1}"))
	f.Add([]byte("[1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, RequestsJSONL), data, 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		torn, err := copyRecords(&out, dir)
		b := out.Bytes()
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Fatalf("output ends in a torn line: %q", b)
		}
		n := 0
		for line := range bytes.Lines(b) {
			if !wholeRecord(bytes.TrimSpace(line)) {
				t.Fatalf("output line %q is not a whole record", line)
			}
			n++
		}
		if err != nil || torn != nil {
			return
		}
		want := 0
		for line := range bytes.Lines(data) {
			if len(bytes.TrimSpace(line)) > 0 {
				want++
			}
		}
		if n != want {
			t.Fatalf("%d records copied of %d lines, with no error and no torn end", n, want)
		}
	})
}

// reading is one GPU's energy, J, over [t0, t0+10 s).
func reading(uuid string, joules float64) *energy.Reading {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	return &energy.Reading{
		Source: "dcgm", Start: t0, End: t0.Add(10 * time.Second), WindowSeconds: 10,
		GPUs:     []energy.GPU{{UUID: uuid, Name: "NVIDIA H200", EnergyJ: joules}},
		GPUCount: 1, GPUName: "NVIDIA H200",
		GrossEnergyJ: joules, EnergyJ: joules, MeanW: joules / 10, Valid: true,
	}
}

func shardsWithEnergy(a, b *energy.Reading) []Shard {
	mk := func(i int, r *energy.Reading) Shard {
		run := Run{RunID: "r1", Telemetry: []LevelTelemetry{{Level: 0, Energy: r, Engine: &enginemetrics.Delta{}}}}
		return Shard{Dir: fmt.Sprintf("shard-%d", i), Run: run, Shard: loadgen.Shard{Index: i, Count: 2}}
	}
	return []Shard{mk(0, a), mk(1, b)}
}

// Shards on their own nodes meter disjoint GPUs: the merged level's
// energy is the sum, over the GPUs of both.
func TestMergeEnergyDisjointGPUsAdds(t *testing.T) {
	run, err := Merge(shardsWithEnergy(reading("GPU-a", 1500), reading("GPU-b", 2500)))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Telemetry) != 1 || run.Telemetry[0].Energy == nil {
		t.Fatalf("merged telemetry = %+v, want one level with energy", run.Telemetry)
	}
	e := run.Telemetry[0].Energy
	if e.EnergyJ != 4000 || e.GPUCount != 2 || e.MeanW != 400 || !e.Valid {
		t.Errorf("merged energy = %v J over %d GPUs, %v W, valid %v; want 4000 J, 2 GPUs, 400 W, valid", e.EnergyJ, e.GPUCount, e.MeanW, e.Valid)
	}
	if e.Hardware() != "2xNVIDIA H200" {
		t.Errorf("hardware = %q", e.Hardware())
	}
}

// Load generators sharing one server read the same GPUs: adding would
// count them twice, so the level keeps shard 0's reading and says so.
func TestMergeEnergySameGPUsKeepsShard0(t *testing.T) {
	run, err := Merge(shardsWithEnergy(reading("GPU-a", 1500), reading("GPU-a", 1400)))
	if err != nil {
		t.Fatal(err)
	}
	if e := run.Telemetry[0].Energy; e == nil || e.EnergyJ != 1500 {
		t.Fatalf("merged energy = %+v, want shard 0's 1500 J", e)
	}
	n := 0
	for _, w := range run.Result.Warnings {
		if w.Code == WarnTelemetryShard0 {
			n++
		}
	}
	if n != 2 { // energy, and the engine deltas
		t.Errorf("%d %s warnings, want 2 (energy and engine): %+v", n, WarnTelemetryShard0, run.Result.Warnings)
	}
}

// TestMergeRefusesDifferentSessions: shards of one run send the same
// sessions; a shard with other turns or think times is not of that run.
func TestMergeRefusesDifferentSessions(t *testing.T) {
	a := Config{Sessions: &workload.SessionSpec{Turns: "3", ThinkTime: "1s", Concurrency: "sessions"}}
	b := a
	if d := planDiff(a, b); d != "" {
		t.Errorf("same sessions differ: %s", d)
	}
	b.Sessions = &workload.SessionSpec{Turns: "4", ThinkTime: "1s", Concurrency: "sessions"}
	if d := planDiff(a, b); d == "" || !strings.Contains(d, "config.sessions") {
		t.Errorf("3 against 4 turns: %q, want a difference naming config.sessions", d)
	}
	b.Sessions = nil
	if d := planDiff(a, b); d == "" {
		t.Error("sessions against single requests: no difference")
	}
}
