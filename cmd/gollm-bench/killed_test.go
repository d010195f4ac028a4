package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/results"
)

// TestKilledRunReportsFromRecords: issue 25 item 9. A run killed with
// SIGKILL in its second level leaves requests.jsonl (level 0, whole) and
// level 1's spool file, but no run.json; `report DIR` used to exit 2 ("not
// a results folder"). It re-renders what the records hold, marked
// partial, and exits 0: both levels, level 0 with its window as recorded,
// level 1 cut off, with levels.csv and report.html written.
func TestKilledRunReportsFromRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gollm-bench as a child process for a few seconds")
	}
	url, received := countingPresetMock(t, "fast")
	parent := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--target", url, "--profile", "constant", "--rate", "40,20",
		"--max-seconds", "3", "--data", "prompt_tokens=8,output_tokens=16", "--warmup", "0", "--cooldown", "0",
		"--max-lag", lenientLag, "--energy", "none", "--output-dir", parent, "--run-id", "killed")
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "killed")
	// Kill once level 1's spool has records on disk (within a second of
	// their completion).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		spools, _ := filepath.Glob(filepath.Join(dir, "requests-level-1-*.jsonl.spool"))
		if len(spools) == 1 {
			if st, err := os.Stat(spools[0]); err == nil && st.Size() > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no level 1 spool with records in 60 s (server got %d requests)\n%s", received.Load(), stderr.String())
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, results.RunJSON)); err == nil {
		t.Fatal("run.json was written before the kill: the test no longer kills mid-level")
	}

	var stdout, errOut bytes.Buffer
	code := run(context.Background(), []string{"report", dir}, nil, &stdout, &errOut)
	if code != 0 {
		t.Fatalf("report exit %d, want 0\n%s\n%s", code, stdout.String(), errOut.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "PARTIAL: no run.json") {
		t.Errorf("the console does not mark the result partial:\n%s", out)
	}
	if !strings.Contains(errOut.String(), "has no run.json") || !strings.Contains(errOut.String(), "level 1:") {
		t.Errorf("stderr does not say what was re-rendered:\n%s", errOut.String())
	}
	for _, name := range []string{results.LevelsCSV, results.ReportHTML} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, results.LevelsCSV))
	if n := strings.Count(strings.TrimSpace(string(csv)), "\n"); n != 2 {
		t.Errorf("levels.csv has %d level rows, want 2:\n%s", n, csv)
	}
	run, rec, err := results.Recover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Result.Levels) != 2 || !run.Partial || !run.Result.Levels[1].Partial || run.Result.Levels[0].Partial {
		t.Fatalf("recovered %d levels, partial %v: want level 0 whole and level 1 cut off", len(run.Result.Levels), run.Partial)
	}
	if !rec.Levels[0].WindowKnown || rec.Levels[1].WindowKnown {
		t.Errorf("recovery %+v: level 0's window is known, level 1's is not", rec.Levels)
	}
	s0 := run.Result.Levels[0].Summary.Requests
	if s0.OK < 60 || s0.Failed != 0 {
		t.Errorf("level 0: %+v, want its ~120 requests ok", s0)
	}
	if s1 := run.Result.Levels[1].Summary.Requests; s1.OK == 0 {
		t.Errorf("level 1: %+v, want the requests that reached the spool", s1)
	}
	if got := rec.Records + rec.Skipped; got > received.Load()+1 {
		t.Errorf("%d records read, the server got %d requests", rec.Records, received.Load())
	}
}
