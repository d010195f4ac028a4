package peer

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// near reports whether v holds want within a relative 1e-9.
func near(v Value, want float64) bool {
	return v.OK && math.Abs(v.V-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// TestReadCSVExports: hand-picked figures of each CSV family, read by
// column name whatever the column order, with thousands separators.
func TestReadCSVExports(t *testing.T) {
	for _, tt := range []struct {
		file              string
		tool              string
		ttftP99, itlMean  float64
		outTok            float64
		completed, failed Count
		islMean           float64
	}{
		// AIPerf 0.1.1: p1 first, no p10; 89 requests, 11 errors.
		{"aiperf-0.1.1-7c31f57-run1-profile_export_aiperf.csv", "AIPerf", 3833.39, 27.76, 2320.72, Known(89), Known(11), 550},
		// AIPerf 0.11.0: sum before p1; goodput in the scalars.
		{"aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.csv", "AIPerf", 66.76, 8.78, 1792.23, Known(2044), Count{}, 0},
		// GenAI-Perf: p99 before p95, "3,457.97" quoted, "(per sec)" units.
		{"genai-perf-pre0.0.12-cloudai13816b1-dynamo-llama405b-profile_export_genai_perf.csv", "GenAI-Perf", 3457.97, 30.35, 261.25, Known(40), Count{}, 3000.05},
	} {
		t.Run(tt.file, func(t *testing.T) {
			r, err := ReadFile(dir + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if r.Tool != tt.tool || len(r.Levels) != 1 {
				t.Fatalf("tool %q, %d levels", r.Tool, len(r.Levels))
			}
			l := r.Levels[0]
			if !near(l.TTFT.P99, tt.ttftP99) || !near(l.ITL.Mean, tt.itlMean) || !near(l.OutputTokPerSec, tt.outTok) {
				t.Errorf("TTFT p99 %v, ITL mean %v, output %v; want %v, %v, %v", l.TTFT.P99, l.ITL.Mean, l.OutputTokPerSec, tt.ttftP99, tt.itlMean, tt.outTok)
			}
			if l.Requests.Completed != tt.completed || l.Requests.Failed != tt.failed {
				t.Errorf("requests %+v", l.Requests)
			}
			if tt.islMean > 0 && !near(l.ISL.Mean, tt.islMean) {
				t.Errorf("ISL mean %v, want %v", l.ISL.Mean, tt.islMean)
			}
			if l.Mode != ModeUnknown {
				t.Errorf("mode %q: a CSV states no load", l.Mode)
			}
		})
	}
	r, err := ReadFile(dir + "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.csv")
	if err != nil || !near(r.Levels[0].GoodputReqPerSec, 6.81) {
		t.Errorf("AIPerf 0.11 goodput %v, %v; want 6.81 req/s", r.Levels[0].GoodputReqPerSec, err)
	}
	// The analyze export: one level per configuration row.
	r, err = ReadFile(dir + "genai-perf-0.0.9dev-4831e6e-analyze-gpt2-sweep-analyze_export_genai_perf.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Levels) != 5 || r.Levels[0].Concurrency != 32 || !near(r.Levels[0].TTFT.P99, 184.43) || !near(r.Levels[4].OutputTokPerSec, 1101.54) {
		t.Errorf("analyze export: %d levels, first %+v", len(r.Levels), r.Levels[0])
	}
}

// TestReadAIPerfRecords: the per-request export's 100 lines give 89
// successful requests whose figures match AIPerf's own aggregate of the
// same run, and 11 deliberate cancellations counted as incomplete.
func TestReadAIPerfRecords(t *testing.T) {
	r, err := ReadFile(dir + "aiperf-0.1.1-7c31f57-run1-profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	l := r.Levels[0]
	if l.Requests != (Requests{Completed: Known(89), Failed: Known(0), Incomplete: Known(11)}) {
		t.Errorf("requests %+v", l.Requests)
	}
	if l.Samples == nil || len(l.Samples.TTFT) != 89 || len(l.Samples.E2E) != 89 {
		t.Fatalf("samples %+v", l.Samples)
	}
	// AIPerf's aggregate: TTFT avg 2343.22, ITL avg 27.76, output 2320.72 tok/s.
	for _, c := range []struct {
		name string
		got  Value
		want float64
		tol  float64
	}{{"TTFT mean", l.TTFT.Mean, 2343.22, 0.01}, {"ITL mean", l.ITL.Mean, 27.763, 0.001}, {"output tok/s", l.OutputTokPerSec, 2320.72, 0.01}, {"ISL mean", l.ISL.Mean, 550, 0}} {
		if !c.got.OK || math.Abs(c.got.V-c.want) > c.tol {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if l.Mode != ModeUnknown {
		t.Errorf("mode %q", l.Mode)
	}
}

func TestReadRecordErrors(t *testing.T) {
	good := `{"metadata":{"credit_phase":"profiling"},"metrics":{"ttft":{"value":12,"unit":"ms"}},"error":null}`
	_, err := Read(strings.NewReader(good+"\n{oops\n"), "p.jsonl")
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a broken second line: %v", err)
	}
	r, err := Read(strings.NewReader(good+"\n"+strings.Replace(good, "profiling", "warmup", 1)+"\n"), "p.jsonl")
	if err != nil || r.Levels[0].Requests.Completed != Known(1) {
		t.Errorf("warm-up records counted: %+v, %v", r.Levels, err)
	}
	if _, err := Read(strings.NewReader("Metric,Value\nhello\n"), "p.csv"); err == nil {
		t.Error("a CSV row outside a table was accepted")
	}
}

// TestWorkloadFacts: what each family says about its load, with the
// file's keys.
func TestWorkloadFacts(t *testing.T) {
	for _, tt := range []struct {
		file string
		want Workload
	}{
		{"guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json", Workload{Profile: "concurrent", Endpoint: "completions", Stream: Stated(true),
			Model: "Qwen/Qwen3-4B-Thinking-2507", PrefixCache: "dataset", IgnoreEOS: Stated(true), Warmup: "0", Cooldown: "0",
			MaxRequests: Known(4), Dataset: "/root/aime_2024_v2.jsonl", Seed: Known(42)}},
		{"guidellm-v0.7-layout-derived-concurrent4-qwen3-4b-4req.json", Workload{Profile: "concurrent", Endpoint: "completions", Stream: Stated(true),
			Model: "Qwen/Qwen3-4B-Thinking-2507", PrefixCache: "dataset", IgnoreEOS: Stated(true), Warmup: "0", Cooldown: "0",
			MaxRequests: Known(4), Dataset: "/root/aime_2024_v2.jsonl", Seed: Known(42)}},
		{"guidellm-v0.5.0.dev0-synchronous-qwen3-30b-a3b.json", Workload{Profile: "synchronous", Endpoint: "completions", Stream: Stated(true),
			Model: "Qwen/Qwen3-30B-A3B", PrefixCache: "dataset", IgnoreEOS: Stated(true), Warmup: "10%", Cooldown: "10%",
			MaxSeconds: Some(900), MaxRequests: Known(30), Dataset: "/root/aime_2024_v2.jsonl", Seed: Known(42)}},
		{"guidellm-v0.2-dev-f1dfdc6-stripped-sweep-synchronous.json", Workload{Profile: "sweep", Endpoint: "completions", Model: "example_model",
			Tokenizer: "example_processor", Warmup: "0", Cooldown: "0", MaxSeconds: Some(30), Data: "prompt_tokens=256,output_tokens=128", Seed: Known(42)}},
		{"aiperf-0.8.0-mock-nonstreaming-c4-profile_export_aiperf.json", Workload{Profile: "concurrent", Endpoint: "chat", Stream: Stated(false),
			Model: "mock-model", Tokenizer: "gpt2", Warmup: "0", Cooldown: "0", MaxRequests: Known(64), Data: "prompt_tokens=550", Seed: Known(42)}},
		{"aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.json", Workload{Profile: "concurrent", Endpoint: "chat", Stream: Stated(true),
			Model: "qwen3-4b", Tokenizer: "Qwen/Qwen3-4B-Instruct-2507-FP8", PrefixCache: "dataset", SLO: "ttft_p99<=1500ms,itl_p99<=300ms",
			Warmup: "0", Cooldown: "0", MaxSeconds: Some(300), Dataset: "/benchmarks/sharegpt-cache/inputs-qwen3-4b.json"}},
		{"vllm-bench-serve-v0.25.1-cpu-opt125m-c2.json", Workload{Endpoint: "completions", Stream: Stated(true), Model: "facebook/opt-125m",
			Tokenizer: "facebook/opt-125m", Warmup: "0", Cooldown: "0", MaxRequests: Known(8)}},
		{"genai-perf-sdk24.12-trtllm-kserve-c100-streaming-profile_export_genai_perf.json", Workload{Profile: "concurrent", Endpoint: "kserve",
			Stream: Stated(true), Model: "ensemble", Tokenizer: "/path/to/tokenizer", Warmup: "0",
			Data: "prompt_tokens=200,prompt_tokens_stdev=20,output_tokens=500", Seed: Known(0)}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			w := mustRead(t, tt.file).Workload
			w.From, w.Unsupported = nil, nil
			if w.Profile != tt.want.Profile || w.Endpoint != tt.want.Endpoint || w.Stream != tt.want.Stream || w.Model != tt.want.Model ||
				w.Tokenizer != tt.want.Tokenizer || w.PrefixCache != tt.want.PrefixCache || w.IgnoreEOS != tt.want.IgnoreEOS ||
				w.SLO != tt.want.SLO || w.Warmup != tt.want.Warmup || w.Cooldown != tt.want.Cooldown || w.MaxSeconds != tt.want.MaxSeconds ||
				w.MaxRequests != tt.want.MaxRequests || w.Data != tt.want.Data || w.Dataset != tt.want.Dataset || w.Seed != tt.want.Seed {
				t.Errorf("got  %+v\nwant %+v", w, tt.want)
			}
		})
	}
	w := mustRead(t, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json").Workload
	if w.From["dataset"] != "args.data" {
		t.Errorf("dataset read from %q, want args.data", w.From["dataset"])
	}
	w = mustRead(t, "aiperf-0.1.1-7c31f57-run1-profile_export_aiperf.json").Workload
	if len(w.Unsupported) != 1 || !strings.Contains(w.Unsupported[0].Key, "request_cancellation_rate") {
		t.Errorf("AIPerf's deliberate cancellations not flagged: %+v", w.Unsupported)
	}
}

// TestSamplesAndSpread: per-request values where a file holds them all,
// and the spread (std, count) the decisions use.
func TestSamplesAndSpread(t *testing.T) {
	l := mustRead(t, "vllm-benchmark_serving-f504e17-h100-llama3.1-8b-c1-isl512-osl85.json").Levels[0]
	if l.Samples == nil || len(l.Samples.TTFT) != 100 || len(l.Samples.ITL) != 100 {
		t.Fatalf("vLLM legacy samples: %+v", l.Samples)
	}
	// The first request: TTFT 0.04390018 s, 84 gaps over 85 tokens.
	if math.Abs(l.Samples.TTFT[0]-43.90018000049167) > 1e-9 {
		t.Errorf("first TTFT %v ms", l.Samples.TTFT[0])
	}
	if !near(l.ISL.Mean, 464.93) || l.OSL.Mean != Some(85) || !l.TTFT.Std.OK || l.TTFT.N != Known(100) {
		t.Errorf("ISL %v OSL %v TTFT std %v n %v", l.ISL.Mean, l.OSL.Mean, l.TTFT.Std, l.TTFT.N)
	}
	g := mustRead(t, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json").Levels[0]
	if g.Samples == nil || len(g.Samples.TTFT) != 4 {
		t.Errorf("GuideLLM complete samples: %+v", g.Samples)
	}
	if g.ITL.N.OK {
		t.Errorf("token-weighted ITL kept a request count %v", g.ITL.N)
	}
	if s := mustRead(t, "guidellm-v0.5.0.dev0-synchronous-qwen3-30b-a3b.json").Levels[0].Samples; s != nil {
		t.Errorf("samples with warm-up requests (23 saved, 19 measured) were used: %d", len(s.TTFT))
	}
	if !near(g.ISL.Mean, 99) || !near(g.OSL.Mean, 1024) {
		t.Errorf("GuideLLM ISL %v OSL %v, want 99 and 1024", g.ISL.Mean, g.OSL.Mean)
	}
}

// TestLoad: a result's load as `run --like` reproduces it, and what is
// refused with the field named.
func TestLoad(t *testing.T) {
	l, bad := mustRead(t, "aiperf-0.8.0-mock-nonstreaming-c4-profile_export_aiperf.json").Load()
	if len(bad) != 0 {
		t.Fatalf("refused: %v", bad)
	}
	want := [][2]string{{"profile", "concurrent"}, {"rate", "4"}, {"data", "prompt_tokens=550,output_tokens=551"}, {"max-requests", "64"},
		{"warmup", "0"}, {"cooldown", "0"}, {"no-stream", "true"}, {"endpoint", "chat"}, {"model", "mock-model"}, {"seed", "42"}}
	if got := l.Flags(); !equalFlags(got, want) {
		t.Errorf("flags %v\nwant  %v", got, want)
	}
	_, bad = mustRead(t, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json").Load()
	if len(bad) != 1 || bad[0].Field != "args.data" || !strings.Contains(bad[0].Error(), "/root/aime_2024_v2.jsonl") || !strings.Contains(bad[0].Error(), "give dataset or data or sequence-distribution instead") {
		t.Errorf("missing dataset: %v", bad)
	}
	l, bad = mustRead(t, "guidellm-v0.2-dev-f1dfdc6-stripped-sweep-synchronous.json").Load()
	if len(bad) != 0 || l.Profile != "synchronous" || l.Data != "prompt_tokens=256,output_tokens=128" || l.MaxSeconds != 30 {
		t.Errorf("GuideLLM v0.2: %+v %v", l, bad)
	}
	l, bad = mustRead(t, "vllm-benchmark_serving-f504e17-h100-llama3.1-8b-c64-isl512-osl85.json").Load()
	if len(bad) != 0 || l.Profile != "poisson" || l.Rates[0] != 10 || l.MaxConcurrency != 64 || !strings.HasPrefix(l.Data, "prompt_tokens=") || len(l.Notes) == 0 {
		t.Errorf("vLLM: %+v %v", l, bad)
	}
	_, bad = mustRead(t, "genai-perf-sdk24.12-trtllm-kserve-c100-streaming-profile_export_genai_perf.json").Load()
	if len(bad) != 1 || bad[0].Field != "input_config.endpoint_type" {
		t.Errorf("kserve endpoint: %v", bad)
	}
	// A mixed sweep cannot be one `run`.
	mixed := Result{Levels: []Level{{Mode: loadgen.ModeSynchronous, Concurrency: 1}, {Mode: loadgen.ModeConstant, Rate: Some(2)}}}
	if _, bad := mixed.Load(); len(bad) == 0 || !strings.Contains(bad[0].Error(), "mix") {
		t.Errorf("mixed profiles: %v", bad)
	}
}

func equalFlags(a, b [][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGoodputSLO(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"ttft:500 tpot:50 e2el:2000", "ttft_p99<=500ms,itl_p99<=50ms,e2e_p99<=2000ms", ""},
		{"time_to_first_token:1500,inter_token_latency:300", "ttft_p99<=1500ms,itl_p99<=300ms", ""},
		{"ttft=0.5", "ttft_p99<=0.5ms", ""},
		{"speed:5", "", "unknown metric"},
		{"ttft", "", "NAME:MILLISECONDS"},
		{"ttft:-1", "", "NAME:MILLISECONDS"},
	} {
		got, err := GoodputSLO(tt.in)
		if got != tt.want || (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("GoodputSLO(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestReadDir: AIPerf's one folder per concurrency read as one run, in
// load order, with the per-request export attached to its level.
func TestReadDir(t *testing.T) {
	root := t.TempDir()
	put := func(sub, name, fixture string) {
		t.Helper()
		data, err := os.ReadFile(dir + fixture)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, sub, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("concurrency_16", "profile_export_aiperf.json", "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.json")
	put("concurrency_16", "profile_export_aiperf.csv", "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.csv")
	put("concurrency_100", "profile_export_aiperf.json", "aiperf-0.1.1-7c31f57-run1-profile_export_aiperf.json")
	put("concurrency_100", "profile_export.jsonl", "aiperf-0.1.1-7c31f57-run1-profile_export.jsonl")
	put("concurrency_4", "profile_export_aiperf.json", "aiperf-0.8.0-mock-nonstreaming-c4-profile_export_aiperf.json")
	r, err := ReadPath(root)
	if err != nil {
		t.Fatal(err)
	}
	var conc []int
	for _, l := range r.Levels {
		conc = append(conc, l.Concurrency)
	}
	if len(conc) != 3 || conc[0] != 4 || conc[1] != 16 || conc[2] != 100 {
		t.Fatalf("levels by concurrency %v, want [4 16 100] (the CSV beside a JSON is not read twice)", conc)
	}
	if s := r.Levels[2].Samples; s == nil || len(s.TTFT) != 89 {
		t.Errorf("the jsonl's samples are not on concurrency 100: %+v", s)
	}
	if r.File != root || r.Tool != "AIPerf" {
		t.Errorf("file %q tool %q", r.File, r.Tool)
	}
	disagree := false
	for _, w := range r.Warnings {
		disagree = disagree || w.Code == "files_disagree"
	}
	if !disagree {
		t.Errorf("three different runs merged without a warning: %v", r.Warnings)
	}
	put("other", "benchmarks.json", "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	if _, err := ReadPath(root); err == nil || !strings.Contains(err.Error(), "GuideLLM") {
		t.Errorf("mixing tools: %v", err)
	}
	if _, err := ReadPath(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no GuideLLM, AIPerf") {
		t.Errorf("empty folder: %v", err)
	}
}

// TestCompareOnlyLevels: a file that states no load pairs with the other
// side's only level.
func TestCompareOnlyLevels(t *testing.T) {
	a := mustRead(t, "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.json")
	b := mustRead(t, "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.csv")
	c := Compare(a, b)
	if len(c.Matches) != 1 || c.Matches[0].Key != OnlyLevelKey || len(c.UnmatchedA)+len(c.UnmatchedB) != 0 {
		t.Errorf("matches %+v unmatched %v %v", c.Matches, c.UnmatchedA, c.UnmatchedB)
	}
}

func FuzzReadProfileCSV(f *testing.F) {
	for _, name := range []string{
		"aiperf-0.1.1-7c31f57-run1-profile_export_aiperf.csv",
		"genai-perf-pre0.0.12-cloudai13816b1-dynamo-llama405b-profile_export_genai_perf.csv",
		"genai-perf-0.0.9dev-4831e6e-analyze-gpt2-sweep-analyze_export_genai_perf.csv",
	} {
		data, err := os.ReadFile(dir + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("Metric,Value\r\nRequest Count,\"1,0\"\r\n"))
	f.Add([]byte("Config Name,Concurrency\nx,0\n"))
	f.Add([]byte("Config Name,Concurrency\nx\n")) // a row narrower than its header: found by CI's fuzzing
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadProfileCSV(data)
		if err != nil {
			return
		}
		_, _ = r.Load()
		_ = Compare(r, r).AllRows()
	})
}

func FuzzReadAIPerfRecords(f *testing.F) {
	data, err := os.ReadFile(dir + "aiperf-0.1.1-7c31f57-run1-profile_export.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	f.Add(bytes.Join(lines[:3], nil))
	f.Add(bytes.Join(lines[20:24], nil))
	f.Add([]byte(`{"metadata":{},"metrics":{"ttft":{"value":"x","unit":"s"},"inter_chunk_latency":{"value":[1,"a"]}},"error":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadAIPerfRecords(data)
		if err != nil {
			return
		}
		_, _ = r.Load()
		_ = Compare(r, r).AllRows()
	})
}
