package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
)

var peerFixtures = filepath.Join("..", "..", "testdata", "peers")

// fixedMock serves the fixed-latency mock with a TTFT of ttft and 1 ms
// between tokens, as `gollm-bench mock-server --scheduler fixed --ttft
// 20ms` does.
func fixedMock(t *testing.T, ttft time.Duration, model string) string {
	return mock(t, mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: ttft, ITL: time.Millisecond, Model: model})
}

// shortRun runs one short concurrent level against url into dir/id and
// returns the results folder.
func shortRun(t *testing.T, url, dir, id string, extra ...string) string {
	t.Helper()
	args := append([]string{"run", "--target", url, "--profile", "concurrent", "--rate", "4", "--max-seconds", "1.5",
		"--warmup", "0", "--cooldown", "0", "--data", "prompt_tokens=16,output_tokens=2", "--energy", "none",
		"--output-dir", dir, "--run-id", id, "--max-lag", lenientLag, "--format", "json", "--quiet"}, extra...)
	code, stdout, stderr := cli(t, context.Background(), args...)
	if code != exitcode.OK {
		t.Fatalf("run %s: exit %d\n%s\n%s", id, code, stdout, stderr)
	}
	return filepath.Join(dir, id)
}

// TestCompareMockServers runs the acceptance test end to end, through the
// CLI, against two servers that differ only in TTFT (fixed scheduler, 20
// ms against 30 ms): `compare A B --fail-on ...` exits 3 and names the
// regression; two runs of one server with different seeds exit 0.
//
// On a shared 2-core machine (load average 17 was seen) a 1.5 s level's
// TTFT p99 is set by the CPU stalls of other processes, not by the server:
// p99 of the 20 ms server was once 110 ms against the 30 ms server's 48,
// and `compare` rightly called that "~". So the CLI test judges the
// median, which the stalls do not move, and the p99 decision itself is
// tested on simulated runs whose records go through the same code:
// compare.TestSlowerServerRegresses (exit 3's ttft_p99:+5% regression)
// and compare.TestSameServerTrials ("~" for TTFT p99 in at least 95 % of
// 40 seeded pairs).
func TestCompareMockServers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs levels for several seconds: make test runs it")
	}
	t.Parallel()
	fast, slow := fixedMock(t, 20*time.Millisecond, ""), fixedMock(t, 30*time.Millisecond, "")
	dir := t.TempDir()
	cost := []string{"--slo", "ttft_p50<=1s", "--gpu-cost-eur-h", "10"}
	a := shortRun(t, fast, dir, "a", append(cost, "--seed", "1")...)
	b := shortRun(t, slow, dir, "b", append(cost, "--seed", "1")...)
	a2 := shortRun(t, fast, dir, "a2", append(cost, "--seed", "2")...)

	code, stdout, stderr := cli(t, context.Background(), "compare", a, b, "--fail-on", "ttft_p99:+5%,ttft_p50:+5%")
	if code != exitcode.SLOFailed {
		t.Fatalf("20 ms against 30 ms: exit %d, want %d\n%s\n%s", code, exitcode.SLOFailed, stdout, stderr)
	}
	for _, w := range []string{"regression: ttft_p50 at concurrency 4: +", "bootstrap, U p", "CPM EUR/1M tok", "goodput tok/s"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout, "workload mismatch") {
		t.Errorf("same workload reported as mismatched:\n%s", stdout)
	}
	// The false-alarm rate itself is tested on simulated runs
	// (compare.TestSameServerTrials); here the no-regression path, with a
	// limit that the load of a shared machine (medians moved by 40 %
	// between two 1.5 s runs at load 10) cannot reach.
	code, stdout, stderr = cli(t, context.Background(), "compare", a, a2, "--fail-on", "ttft_p50:+100%")
	if code != exitcode.OK {
		t.Fatalf("one server, two seeds: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "no regression: every change lies within the fail-on thresholds") {
		t.Errorf("output:\n%s", stdout)
	}
}

// TestCompareWorkloadMismatchFirst: what was seen: "compare of a GuideLLM
// fixture (ISL 81 / OSL 1024) against a mock run (ISL 256 / OSL 64)
// printed an E2E ratio of 0.032 with no word that the workloads differ".
// Now every mismatch comes first, one line per field, and --strict
// refuses the comparison.
func TestCompareWorkloadMismatchFirst(t *testing.T) {
	t.Parallel()
	url := fixedMock(t, 5*time.Millisecond, "")
	dir := t.TempDir()
	code, _, stderr := cli(t, context.Background(), "run", "--target", url, "--profile", "concurrent", "--rate", "4", "--max-seconds", "1",
		"--warmup", "0", "--cooldown", "0", "--data", "prompt_tokens=256,output_tokens=64", "--energy", "none",
		"--output-dir", dir, "--run-id", "mock", "--max-lag", lenientLag, "--format", "json", "--quiet")
	if code != exitcode.OK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	guidellm := filepath.Join(peerFixtures, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	code, stdout, stderr := cli(t, context.Background(), "compare", guidellm, filepath.Join(dir, "mock"))
	if code != exitcode.OK {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	isl := strings.Index(stdout, "\nworkload mismatch: ISL 99 vs ")
	osl := strings.Index(stdout, "\nworkload mismatch: OSL 1024 vs 64\n")
	e2e := strings.Index(stdout, "E2E")
	if isl < 0 || osl < 0 || e2e < 0 || isl > e2e || osl > e2e {
		t.Errorf("the ISL and OSL mismatches are not each on a line before any figure:\n%s", stdout)
	}
	if !strings.Contains(stdout, "concurrency 4 !") {
		t.Errorf("rows across mismatched workloads are not marked:\n%s", stdout)
	}
	code, _, stderr = cli(t, context.Background(), "compare", "--strict", guidellm, filepath.Join(dir, "mock"))
	if code != exitcode.Usage || !strings.Contains(stderr, "--strict") || !strings.Contains(stderr, "workload mismatch: ISL 99 vs") {
		t.Errorf("--strict: exit %d\n%s", code, stderr)
	}
}

// TestCompareInputsAndFormats: what was seen: compare "takes exactly two
// inputs (AIPerf writes one file per concurrency), refuses AIPerf's CSV
// and per-request JSONL exports, has no summary of knee, goodput or CPM,
// no output formats, and ten rows per level".
func TestCompareInputsAndFormats(t *testing.T) {
	t.Parallel()
	ours := filepath.Join("..", "..", "testdata", "report", "run-from-another-machine")
	csvExport := filepath.Join(peerFixtures, "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.csv")
	jsonl := filepath.Join(peerFixtures, "aiperf-0.1.1-7c31f57-run1-profile_export.jsonl")
	// A folder of AIPerf runs, one per concurrency, read as one run.
	sweep := t.TempDir()
	for sub, fx := range map[string]string{
		"concurrency_16":  "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.json",
		"concurrency_100": "aiperf-0.1.1-7c31f57-run1-profile_export_aiperf.json",
	} {
		data, err := os.ReadFile(filepath.Join(peerFixtures, fx))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(sweep, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sweep, sub, "profile_export_aiperf.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Three inputs: the first is the baseline of the two others.
	code, stdout, stderr := cli(t, context.Background(), "compare", ours, sweep, csvExport, jsonl)
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stdout, "\nB: "); n != 3 {
		t.Errorf("%d comparisons, want 3 against the one baseline:\n%s", n, stdout)
	}
	for _, w := range []string{"B: AIPerf 0.11.0 (" + sweep + ")", "levels only in B: concurrency 100", "knee (concurrency)", "goodput tok/s"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	// Rows per level: 7 by default, fewer when the files lack them;
	// --metrics chooses.
	first := stdout[strings.Index(stdout, "\nconcurrency 16"):]
	first = first[:strings.Index(first, "\n\n")]
	if n := strings.Count(first, "\n"); n > 7 {
		t.Errorf("%d rows for one level:\n%s", n, first)
	}
	code, stdout, _ = cli(t, context.Background(), "compare", ours, sweep, "--metrics", "ttft_p99")
	_, table, _ := strings.Cut(stdout, "\nlevel ")
	if code != exitcode.OK || strings.Contains(table, "ITL p95") || !strings.Contains(table, "TTFT p99") {
		t.Errorf("--metrics ttft_p99: exit %d\n%s", code, stdout)
	}
	// Formats.
	code, stdout, stderr = cli(t, context.Background(), "compare", ours, sweep, "--format", "json")
	var js struct {
		SchemaVersion string `json:"schema_version"`
		Comparisons   []struct {
			Summary []json.RawMessage `json:"summary"`
			Rows    []json.RawMessage `json:"rows"`
		} `json:"comparisons"`
	}
	if code != exitcode.OK || json.Unmarshal([]byte(stdout), &js) != nil || js.SchemaVersion != "compare/1" || len(js.Comparisons) != 1 || len(js.Comparisons[0].Rows) == 0 {
		t.Errorf("json: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, _ = cli(t, context.Background(), "compare", ours, sweep, "--format", "csv")
	if recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll(); code != exitcode.OK || err != nil || len(recs) < 5 || recs[0][0] != "comparison" {
		t.Errorf("csv: exit %d, %v\n%s", code, err, stdout)
	}
	code, stdout, _ = cli(t, context.Background(), "compare", ours, sweep, "--format", "markdown")
	if code != exitcode.OK || !strings.Contains(stdout, "| level | metric | A | B | delta | verdict | method |") {
		t.Errorf("markdown: exit %d\n%s", code, stdout)
	}
}

// TestCompareBadInput: bad flags are refused with exit 2, naming the flag,
// before any input is read (the inputs here do not exist).
func TestCompareBadInput(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--fail-on", "ttft:+5%"}, []string{"--fail-on", `unknown metric "ttft"`}},
		{[]string{"--fail-on", "goodput:+3%"}, []string{"--fail-on", "goodput:-3%"}},
		{[]string{"--format", "xml"}, []string{`--format "xml"`, "markdown"}},
		{[]string{"--metrics", "cpm"}, []string{"--metrics", `"cpm"`}},
	} {
		args := append([]string{"compare", "no-such-a", "no-such-b"}, tt.args...)
		code, _, stderr := cli(t, context.Background(), args...)
		if code != exitcode.Usage {
			t.Errorf("%v: exit %d, want 2", tt.args, code)
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tt.args, w, stderr)
			}
		}
		if strings.Contains(stderr, "no-such-a") {
			t.Errorf("%v: an input was read before the flags were checked:\n%s", tt.args, stderr)
		}
	}
	code, _, stderr := cli(t, context.Background(), "compare", "no-such-a", "no-such-b")
	if code != exitcode.Usage || !strings.Contains(stderr, "no-such-a") {
		t.Errorf("missing input: exit %d\n%s", code, stderr)
	}
}

// TestRunLike: `run --like` reruns a peer's load against the mock: the
// GuideLLM concurrent fixture (concurrency 4, 4 requests, completions) once
// its dataset file, which is not here, is replaced by --data; and AIPerf's
// (chat, not streamed, concurrency 4, 64 requests, 550 prompt tokens). The
// GuideLLM fixture alone is refused, naming its field.
func TestRunLike(t *testing.T) {
	if testing.Short() {
		t.Skip("runs levels for several seconds: make test runs it")
	}
	t.Parallel()
	guidellm := filepath.Join(peerFixtures, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	aiperf := filepath.Join(peerFixtures, "aiperf-0.8.0-mock-nonstreaming-c4-profile_export_aiperf.json")
	dir := t.TempDir()

	code, _, stderr := cli(t, context.Background(), "run", "--like", guidellm, "--target", "http://127.0.0.1:9", "--energy", "none", "--output-dir", dir)
	if code != exitcode.Usage || !strings.Contains(stderr, "args.data") || !strings.Contains(stderr, "/root/aime_2024_v2.jsonl") || !strings.Contains(stderr, "--dataset") {
		t.Errorf("a dataset we lack: exit %d\n%s", code, stderr)
	}

	qwen := mock(t, mockserver.Config{Model: "Qwen/Qwen3-4B-Thinking-2507"})
	code, stdout, stderr := cli(t, context.Background(), "run", "--like", guidellm, "--target", qwen, "--data", "prompt_tokens=32,output_tokens=16",
		"--energy", "none", "--output-dir", dir, "--run-id", "g", "--max-lag", lenientLag, "--format", "json", "--quiet")
	if code != exitcode.OK {
		t.Fatalf("--like GuideLLM: exit %d\n%s\n%s", code, stdout, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "g"))
	if err != nil {
		t.Fatal(err)
	}
	c := run.Config
	if c.Profile != "concurrent" || len(c.Rates) != 1 || c.Rates[0] != 4 || c.MaxRequests != 4 || c.Endpoint != "completions" || !c.Stream ||
		c.Model != "Qwen/Qwen3-4B-Thinking-2507" || c.Data != "prompt_tokens=32,output_tokens=16" || c.Like != guidellm {
		t.Errorf("config %+v", c)
	}
	if n := run.Result.Levels[0].Summary.Requests.Scheduled; n != 4 {
		t.Errorf("%d requests scheduled, want GuideLLM's 4", n)
	}

	code, stdout, stderr = cli(t, context.Background(), "run", "--like", aiperf, "--target", fixedMock(t, 0, ""),
		"--energy", "none", "--output-dir", dir, "--run-id", "a", "--max-lag", lenientLag, "--format", "json", "--quiet")
	if code != exitcode.OK {
		t.Fatalf("--like AIPerf: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if run, err = results.Read(filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	c = run.Config
	if c.Profile != "concurrent" || c.Rates[0] != 4 || c.MaxRequests != 64 || c.Endpoint != "chat" || c.Stream || c.Model != "mock-model" ||
		c.Data != "prompt_tokens=550,output_tokens=551" || c.Warmup != "0" {
		t.Errorf("config %+v", c)
	}
	if n := run.Result.Levels[0].Summary.Requests.Scheduled; n != 64 {
		t.Errorf("%d requests scheduled, want AIPerf's 64", n)
	}
	if !strings.Contains(stderr, "--like") || !strings.Contains(stderr, "achieved OSL") {
		t.Errorf("stderr does not say what --like set and derived:\n%s", stderr)
	}
	// The rerun and the peer's result side by side: the same load matches.
	code, stdout, _ = cli(t, context.Background(), "compare", aiperf, filepath.Join(dir, "a"))
	if code != exitcode.OK || !strings.Contains(stdout, "\nconcurrency 4") || strings.Contains(stdout, "workload mismatch: endpoint") {
		t.Errorf("compare PEERFILE results/<id>: exit %d\n%s", code, stdout)
	}
}

// TestAggregateAndParetoWithPeers: what was seen: "Peer results cannot go
// into aggregate, pareto or report. pareto refuses the seed's own
// scorecard JSON shape". One folder with our scorecards, the exporter
// layout and a peer result gives one CSV and one frontier.
func TestAggregateAndParetoWithPeers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range [][2]string{
		{filepath.Join("..", "..", "testdata", "scorecards", "results", "20260616T1200-vllm-fp8", "scorecard.json"), filepath.Join("ours", "20260616T1200-vllm-fp8", "scorecard.json")},
		{filepath.Join("..", "..", "testdata", "scorecards", "results", "20260616T1500-vllm-fp8-b128", "scorecard.json"), filepath.Join("ours", "20260616T1500-vllm-fp8-b128", "scorecard.json")},
		{filepath.Join("..", "..", "testdata", "scorecards", "exporter", "sglang-h200-exporter.json"), "sglang-h200-exporter.json"},
		{filepath.Join(peerFixtures, "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.json"), filepath.Join("aiperf", "profile_export_aiperf.json")},
	} {
		data, err := os.ReadFile(c[0])
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, c[1])
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := cli(t, context.Background(), "pareto", dir)
	if code != exitcode.OK {
		t.Fatalf("pareto: exit %d\n%s", code, stderr)
	}
	frontier, dropped, _ := strings.Cut(stdout, "Dropped:")
	for _, w := range []string{"exporter-sglang-h200", "20260616T1500-vllm-fp8-b128", "20260616T1200-vllm-fp8"} {
		if !strings.Contains(frontier, w) {
			t.Errorf("frontier lacks %s:\n%s", w, stdout)
		}
	}
	if !strings.Contains(dropped, "profile_export_aiperf.json#0") {
		t.Errorf("the AIPerf row is not listed:\n%s", stdout)
	}
	code, stdout, stderr = cli(t, context.Background(), "aggregate", dir, "-o", "-")
	if code != exitcode.OK {
		t.Fatalf("aggregate: exit %d\n%s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) != 5 {
		t.Fatalf("aggregate: %d lines, %v\n%s", len(recs), err, stdout)
	}
	if !strings.Contains(stdout, "AIPerf 0.11.0") || !strings.Contains(stdout, ",anecdote,") {
		t.Errorf("the peer row is not an anecdote naming its tool:\n%s", stdout)
	}
}

// TestCompareRefusals: what an acceptance review saw: a --fail-on metric
// neither input has passed ("no regression", exit 0); a damaged run.json
// was compared (report refuses it); a folder of runs was reported by its
// first run's levels.csv. Each is exit 2 with the reason.
func TestCompareRefusals(t *testing.T) {
	t.Parallel()
	ours := filepath.Join("..", "..", "testdata", "report", "run-from-another-machine")
	code, stdout, stderr := cli(t, context.Background(), "compare", ours, ours, "--fail-on", "ttft_p99:+5%,cpm:+5%")
	if code != exitcode.Usage || !strings.Contains(stdout, "not checked: cpm:+5%: cpm is in neither input: the gate cannot be checked") ||
		!strings.Contains(stderr, "cpm is in neither input") || strings.Contains(stdout, "no regression: every change lies within the fail-on thresholds") {
		t.Errorf("unchecked gate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(ours, results.RunJSON))
	if err != nil {
		t.Fatal(err)
	}
	damaged := t.TempDir()
	bad := strings.Replace(string(data), `"histogram": "HIST`, `"histogram": "HISTgarbage`, 1)
	if err := os.WriteFile(filepath.Join(damaged, results.RunJSON), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, context.Background(), "compare", damaged, ours)
	if code != exitcode.Usage || !strings.Contains(stderr, "damaged") {
		t.Errorf("damaged run.json: exit %d\n%s", code, stderr)
	}
	parent := t.TempDir()
	if err := os.MkdirAll(filepath.Join(parent, "r1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "r1", results.RunJSON), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "r1", "levels.csv"), []byte("level,x\n0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, context.Background(), "compare", parent, ours)
	if code != exitcode.Usage || !strings.Contains(stderr, "holds no run.json") || strings.Contains(stderr, "levels.csv") {
		t.Errorf("folder of runs: exit %d\n%s", code, stderr)
	}
}

// TestRunLikeBuiltinMock: what issue 28 saw: "--like against the built-in
// mock keeps the file's model name, so every request is a 404 and the run
// exits 1". Without --target the mock's model is used, and stderr and
// run.json's warnings say so.
func TestRunLikeBuiltinMock(t *testing.T) {
	t.Parallel()
	guidellm := filepath.Join(peerFixtures, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	dir := t.TempDir()
	code, stdout, stderr := cli(t, context.Background(), "run", "--like", guidellm, "--data", "prompt_tokens=32,output_tokens=8",
		"--energy", "none", "--output-dir", dir, "--run-id", "m", "--max-lag", lenientLag, "--format", "json", "--quiet")
	if code != exitcode.OK {
		t.Fatalf("--like against the built-in mock: exit %d\n%s\n%s", code, stdout, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "m"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Config.Model != mockserver.DefaultModel || run.Result.Levels[0].Summary.Requests.Failed != 0 {
		t.Errorf("model %q, %d failed", run.Config.Model, run.Result.Levels[0].Summary.Requests.Failed)
	}
	const said = `the file's model "Qwen/Qwen3-4B-Thinking-2507" is not set: the built-in mock serves "mock-model" only`
	if !strings.Contains(stderr, said) || !strings.Contains(string(mustRead(t, filepath.Join(dir, "m", "run.json"))), "is not set: the built-in mock serves") {
		t.Errorf("not said on stderr and in run.json:\n%s", stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
