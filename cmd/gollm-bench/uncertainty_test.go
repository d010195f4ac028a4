package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
)

// TestShortLevelGoodputAndUndecidedP99 is what was seen when the
// uncertainty issue was filed, run as a user would on the built-in mock:
// every request met the SLO, yet goodput was 0.38 of output tok/s (it
// counted only the requests sent in the window), and ttft_p99 was judged
// PASS on 16 requests. Now goodput is the output tok/s, the ttft_p99 term
// is inconclusive with an unbounded interval, the run exits 5, and run.json
// carries the interval.
func TestShortLevelGoodputAndUndecidedP99(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an 8-second level")
	}
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := cli(t, context.Background(), "run", "--profile", "concurrent", "--rate", "16", "--max-seconds", "8",
		"--slo", "ttft_p99<=10s,itl_p95<=1s", "--data", "prompt_tokens=256,output_tokens=256", "--energy", "none",
		"--output-dir", dir, "--run-id", "short")
	if code != exitcode.Undecided {
		t.Fatalf("exit %d, want %d (undecided)\n%s\n%s", code, exitcode.Undecided, stdout, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "short"))
	if err != nil {
		t.Fatal(err)
	}
	l := run.Result.Levels[0]
	s := l.Summary
	if g, o := s.Goodput.OutputTokensPerSecond, s.OutputTokensPerSecond; g < 0.95*o {
		t.Errorf("goodput %.1f tok/s < 0.95 × output %.1f tok/s though every request met the SLO", g, o)
	}
	if !slices.Contains(l.Verdict.Undecided, "ttft_p99<=10000ms") || l.Verdict.Outcome != slo.OutcomeInconclusive {
		t.Errorf("verdict %+v: want ttft_p99 inconclusive", l.Verdict)
	}
	if s.TTFT.P99CI.HiBounded() {
		t.Errorf("TTFT p99 interval %v on %d requests: want no upper bound", s.TTFT.P99CI, s.TTFT.Count)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "short", results.RunJSON))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Result struct {
			Levels []struct {
				Summary struct {
					TTFT map[string]json.RawMessage `json:"ttft_ms"`
				} `json:"summary"`
			} `json:"levels"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var ci []*float64
	if err := json.Unmarshal(doc.Result.Levels[0].Summary.TTFT["p99_ci"], &ci); err != nil || len(ci) != 2 || ci[0] == nil || ci[1] != nil {
		t.Errorf("run.json ttft_ms.p99_ci = %s (%v), want [lower, null]", doc.Result.Levels[0].Summary.TTFT["p99_ci"], err)
	}
}

// TestRepeatEndToEnd: --repeat 3 pools three runs of a level and reports
// the spread between them in run.json.
func TestRepeatEndToEnd(t *testing.T) {
	t.Parallel()
	url := fastMock(t)
	dir := t.TempDir()
	code, stdout, stderr := cli(t, context.Background(), "run", "--target", url, "--profile", "concurrent", "--rate", "4",
		"--max-requests", "40", "--repeat", "3", "--data", "prompt_tokens=16,output_tokens=4", "--energy", "none",
		"--slo", "ttft_p95<=2s", "--max-lag", lenientLag, "--output-dir", dir, "--run-id", "rep")
	if code != exitcode.OK && code != exitcode.Undecided {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "rep"))
	if err != nil {
		t.Fatal(err)
	}
	s := run.Result.Levels[0].Summary
	if s.Repeats == nil || s.Repeats.Runs != 3 || s.Requests.Scheduled != 120 {
		t.Fatalf("repeats %+v, %d requests scheduled; want 3 runs of 40", s.Repeats, s.Requests.Scheduled)
	}
	if run.Config.Repeat != 3 {
		t.Errorf("run.json config repeat %d, want 3", run.Config.Repeat)
	}
}
