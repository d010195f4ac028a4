package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestCheckDecodesRunJSON reads the run.json of a passing
// bench/prometheus-check.sh run (its telemetry, as results writes it:
// energy, pod_energy, pod_gap and litellm side by side under telemetry[i])
// and wants every figure found and within tolerance. It failed when check
// decoded a layout of its own (telemetry[i].energy.{energy,pod_energy,
// litellm}) and printed MISSING for pod energy and LiteLLM.
func TestCheckDecodesRunJSON(t *testing.T) {
	var out bytes.Buffer
	ok, err := check("testdata/prometheus-check", time.Second, &out)
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !ok || strings.Contains(got, "MISSING") || strings.Contains(got, "OFF") {
		t.Fatalf("check = %v, want every figure found and within tolerance:\n%s", ok, got)
	}
	for _, name := range []string{"GPU energy J (prometheus)", "pod energy J (prometheus)", "pod GPU J", "pod CPU J",
		"Kepler node GPU J", "Kepler node GPU idle J", "LiteLLM input tokens (prometheus)", "LiteLLM output tokens",
		"LiteLLM total tokens", "LiteLLM spend"} {
		if !strings.Contains(got, "0     "+name) {
			t.Errorf("no line for %q:\n%s", name, got)
		}
	}
}

// TestCheckMissingReading: a level without pod energy or LiteLLM is a
// failed check, never a pass.
func TestCheckMissingReading(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/run.json", []byte(`{"schema_version":2,"run_id":"x","telemetry":[{"level":0}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ok, err := check(dir, time.Second, &out)
	if err != nil {
		t.Fatal(err)
	}
	if ok || strings.Count(out.String(), "MISSING") != 3 {
		t.Fatalf("check = %v, want false with GPU, pod and LiteLLM MISSING:\n%s", ok, out.String())
	}
}
