package compare

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
)

// TestLoadStatedByNeither: the review of issue 28 saw "workload
// mismatch: load not stated vs not stated" comparing an AIPerf CSV
// export (which holds no load settings) with itself. Two levels that
// state no load do not differ: the load is listed as stated by neither.
func TestLoadStatedByNeither(t *testing.T) {
	a := read(t, peers+"aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.csv")
	res := Runs(a, a, Options{})
	if len(res.Mismatches) != 0 {
		t.Errorf("mismatches %v, want none", res.Mismatches)
	}
	if !slices.Contains(res.Unstated, "load (stated by neither)") {
		t.Errorf("unstated %v, want the load stated by neither", res.Unstated)
	}
}

// TestParseFailOnRefusesOddLimits: the review of issue 28 found
// "ttft_p99:+NaN%" accepted (and the gate then exited 5), "1_0"
// accepted, a blank expression called an extra comma, and a metric given
// two limits accepted silently. Each is refused naming the term.
func TestParseFailOnRefusesOddLimits(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ttft_p99:+NaN%", `term "ttft_p99:+NaN%": limit "NaN%"`},
		{"ttft_p99:nan%", `term "ttft_p99:nan%": limit "nan%"`},
		{"ttft_p99:+NaNms", `term "ttft_p99:+NaNms"`},
		{"error_rate:+NaN%", `term "error_rate:+NaN%"`},
		{"output_tps:-NaN%", `term "output_tps:-NaN%"`},
		{"ttft_p99:+Inf%", `term "ttft_p99:+Inf%"`},
		{"ttft_p99:+1_0%", `term "ttft_p99:+1_0%": limit "1_0%"`},
		{"ttft_p99:+1e1%", `limit "1e1%"`},
		{"ttft_p99:+0x1p3%", `limit "0x1p3%"`},
		{" ", "empty: want comma-separated METRIC:LIMIT terms"},
		{"ttft_p99:+5%,ttft_p99:+10%", `column 14, term "ttft_p99:+10%": ttft_p99 has a limit already (column 1)`},
	} {
		ths, err := ParseFailOn(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseFailOn(%q) = %v, %v; want an error saying %q", tt.in, ths, err, tt.want)
		}
	}
	if _, err := ParseFailOn("ttft_p99:+.5%,e2e_p99:+2.5s"); err != nil {
		t.Errorf("plain decimals refused: %v", err)
	}
}

// guideLLMSessions is the GuideLLM 0.7 layout fixture with its data
// replaced by 2 turns and 4 shared prefixes of 16 tokens, as GuideLLM 0.8
// writes them: a test input derived from the real file.
func guideLLMSessions(t *testing.T) peer.Result {
	t.Helper()
	data, err := os.ReadFile(peers + "guidellm-v0.7-layout-derived-concurrent4-qwen3-4b-4req.json")
	if err != nil {
		t.Fatal(err)
	}
	const old = `"kind": "huggingface", "source": "/root/aime_2024_v2.jsonl"`
	if !strings.Contains(string(data), old) {
		t.Fatal("fixture changed")
	}
	s := strings.Replace(string(data), old, `"kind": "synthetic_text", "prompt_tokens": 128, "output_tokens": 64, "turns": 2, "prefix_buckets": [{"bucket_weight": 100, "prefix_count": 4, "prefix_tokens": 16}]`, 1)
	r, err := peer.Read(strings.NewReader(s), "guidellm-0.8.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWorkloadTurnsAndSharedPrefixes: the review of issue 28 compared a
// GuideLLM 0.8 file of 2 turns with a run of single requests and saw no
// mismatch, and "prefix cache (not stated by A)" although the file has 4
// prefixes of 16 tokens and the run was shared:4x16.
func TestWorkloadTurnsAndSharedPrefixes(t *testing.T) {
	g := guideLLMSessions(t)
	run := read(t, simulatedRun(t, 1, 20*time.Millisecond))
	run.Workload.PrefixCache = "shared:4x16"
	res := Runs(g, run, Options{})
	if !slices.Contains(res.Mismatches, Mismatch{Field: "turns", A: "2", B: "1"}) {
		t.Errorf("mismatches %v, want turns 2 vs 1", res.Mismatches)
	}
	for _, m := range res.Mismatches {
		if m.Field == "prefix cache" {
			t.Errorf("prefix cache %v: both ran 4 prefixes of 16 tokens", m)
		}
	}
	if slices.ContainsFunc(res.Unstated, func(u string) bool { return strings.HasPrefix(u, "prefix cache") }) {
		t.Errorf("unstated %v: the file states its prefixes", res.Unstated)
	}
	run.Workload.PrefixCache = "shared:8x16"
	if res := Runs(g, run, Options{}); !slices.Contains(res.Mismatches, Mismatch{Field: "prefix cache", A: "shared:4x16", B: "shared:8x16"}) {
		t.Errorf("mismatches %v, want shared:4x16 vs shared:8x16", res.Mismatches)
	}
	// Two runs of single requests say nothing of turns.
	if res := Runs(run, run, Options{}); slices.ContainsFunc(res.Mismatches, func(m Mismatch) bool { return m.Field == "turns" }) ||
		slices.ContainsFunc(res.Unstated, func(u string) bool { return strings.HasPrefix(u, "turns") }) {
		t.Errorf("single requests: %v %v", res.Mismatches, res.Unstated)
	}
}

// TestSameInputWarned: `compare A A` (one folder twice) showed every
// delta 0 with no remark. It warns that the inputs are one run.
func TestSameInputWarned(t *testing.T) {
	dir := simulatedRun(t, 1, 20*time.Millisecond)
	a, b := read(t, dir), read(t, dir+"/")
	res := Runs(a, b, Options{})
	if !slices.ContainsFunc(res.B.Warnings, func(w metrics.Warning) bool { return w.Code == WarnSameInput }) {
		t.Errorf("no same-input warning: %v", res.B.Warnings)
	}
	other := read(t, simulatedRun(t, 2, 20*time.Millisecond))
	if res := Runs(a, other, Options{}); slices.ContainsFunc(res.B.Warnings, func(w metrics.Warning) bool { return w.Code == WarnSameInput }) {
		t.Errorf("two runs warned as one: %v", res.B.Warnings)
	}
}

// TestBetweenRunsClippedAtMinus100: with few, widely spread runs the t
// interval of a latency's change reached below −100 % (a latency below
// 0). It is clipped at −A.
func TestBetweenRunsClippedAtMinus100(t *testing.T) {
	m, _ := LookupMetric("ttft_p99")
	o := Options{}.withDefaults()
	r := levelRow(m, repeated(10, 200), repeated(5, 100), o, 1)
	if r.Method != MethodBetweenRuns {
		t.Fatalf("row %+v, want between runs", r)
	}
	if r.DiffCI.Lo != -r.A.V || !(r.DiffCI.Hi > 0) {
		t.Errorf("change %v with A %v: want its low end clipped at -A (-100 %%)", r.DiffCI, r.A)
	}
}
