package peer

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

func mustRead(t *testing.T, file string) Result {
	t.Helper()
	r, err := ReadFile(dir + file)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCompareGuideLLMAIPerf(t *testing.T) {
	a := mustRead(t, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	b := mustRead(t, "aiperf-0.8.0-mock-nonstreaming-c4-profile_export_aiperf.json")
	c := Compare(a, b)
	if len(c.Matches) != 1 || c.Matches[0] != (Match{A: 0, B: 0, Key: "concurrency 4"}) {
		t.Fatalf("matches %+v", c.Matches)
	}
	if len(c.UnmatchedA)+len(c.UnmatchedB) != 0 {
		t.Errorf("unmatched %v %v", c.UnmatchedA, c.UnmatchedB)
	}
	rows := map[string]Row{}
	for _, r := range c.Rows() {
		rows[r.Metric] = r
	}
	// AIPerf's non-streaming run has no TTFT: shown, without a ratio.
	if r := rows["TTFT p99 (ms)"]; r.A != Some(172.63293266296387) || r.B.OK || r.Ratio.OK {
		t.Errorf("TTFT p99 row %+v", r)
	}
	if r := rows["output tok/s"]; r.Ratio != Some(1022443.0554692096/165.59511945248636) || r.Like {
		t.Errorf("output tok/s row %+v (GuideLLM's is a rate mean, AIPerf's a window figure: not like)", r)
	}
	if _, ok := rows["ICL mean (ms)"]; ok {
		t.Error("ICL row present though neither side has ICL")
	}
	wantNotes := map[string]Kind{"ITL": KindITLTokenWeighted, "TPOT": KindTPOTWithFirst, "output tok/s": KindTokPerSecRateMean, "req/s": KindReqPerSecRateMean}
	if len(c.Notes) != len(wantNotes) {
		t.Errorf("%d notes, want %d: %+v", len(c.Notes), len(wantNotes), c.Notes)
	}
	for _, n := range c.Notes {
		if k, ok := wantNotes[n.Metric]; !ok || n.A.Kind != k {
			t.Errorf("unexpected note %+v", n)
		}
	}
}

func TestCompareVLLMNaming(t *testing.T) {
	a := mustRead(t, "vllm-bench-serve-v0.25.1-cpu-opt125m-c2.json")
	b := mustRead(t, "vllm-bench-sweep-serve-v0.25.1-cpu-opt125m-seqs4-c2-summary.json")
	c := Compare(a, b)
	if len(c.Matches) != 1 || c.Matches[0].Key != "concurrency 2" || len(c.UnmatchedB) != 1 || c.UnmatchedB[0] != 1 {
		t.Fatalf("matches %+v unmatched B %v", c.Matches, c.UnmatchedB)
	}
	var icl, itl bool
	for _, n := range c.Notes {
		icl = icl || (n.Metric == "ICL" && strings.Contains(n.Text, `"ITL"`))
		itl = itl || (n.Metric == "ITL" && strings.Contains(n.Text, `"TPOT"`))
	}
	if !icl || !itl {
		t.Errorf("want notes that vLLM's ITL is our ICL and its TPOT our ITL: %+v", c.Notes)
	}
}

func TestMatchLevels(t *testing.T) {
	sync := Level{Mode: loadgen.ModeSynchronous, Concurrency: 1}
	conc := func(n int) Level { return Level{Mode: loadgen.ModeConcurrent, Concurrency: n} }
	rate := func(r float64, maxc int) Level {
		return Level{Mode: loadgen.ModePoisson, Rate: Some(r), MaxConcurrency: maxc}
	}
	tests := []struct {
		name string
		a, b Level
		ok   bool
		key  string
	}{
		{"synchronous is concurrency 1", sync, conc(1), true, "concurrency 1"},
		{"concurrency exact", conc(4), conc(4), true, "concurrency 4"},
		{"concurrency differs", conc(4), conc(5), false, ""},
		{"rate within 5%", rate(10, 0), rate(10.49, 0), true, "rate 10 req/s"},
		{"rate outside 5%", rate(10, 0), rate(10.6, 0), false, ""},
		{"constant vs poisson same rate", Level{Mode: loadgen.ModeConstant, Rate: Some(2)}, rate(2, 0), true, "rate 2 req/s"},
		{"caps disagree", rate(10, 1), rate(10, 64), false, ""},
		{"cap on one side only", rate(10, 64), rate(10, 0), true, "rate 10 req/s"},
		{"closed vs open", conc(1), rate(1, 0), false, ""},
		{"throughput", Level{Mode: loadgen.ModeThroughput}, Level{Mode: loadgen.ModeThroughput, MaxConcurrency: 512}, true, "throughput"},
		{"unknown never matches", Level{}, Level{}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, _, ok := matchLevels(tt.a, tt.b)
			if ok != tt.ok || key != tt.key {
				t.Errorf("got %q %v, want %q %v", key, ok, tt.key, tt.ok)
			}
		})
	}
}

// Closest rate wins, and each level is used once; the rest is listed.
func TestCompareClosestAndUnmatched(t *testing.T) {
	a := Result{Levels: []Level{
		{Mode: loadgen.ModePoisson, Rate: Some(10)},
		{Mode: loadgen.ModeConcurrent, Concurrency: 8},
	}}
	b := Result{Levels: []Level{
		{Mode: loadgen.ModePoisson, Rate: Some(10.4)},
		{Mode: loadgen.ModePoisson, Rate: Some(9.9)},
		{Mode: loadgen.ModeConcurrent, Concurrency: 16},
	}}
	c := Compare(a, b)
	if len(c.Matches) != 1 || c.Matches[0].B != 1 {
		t.Errorf("matches %+v, want A0↔B1 (closest rate)", c.Matches)
	}
	if len(c.UnmatchedA) != 1 || c.UnmatchedA[0] != 1 || len(c.UnmatchedB) != 2 {
		t.Errorf("unmatched A %v B %v", c.UnmatchedA, c.UnmatchedB)
	}
}

// AllRows: the matched rows, then every lone level's metrics with the
// other side missing; a lone level without metrics still gets a row.
func TestCompareAllRows(t *testing.T) {
	a := Result{Levels: []Level{
		{Label: "a0", Mode: loadgen.ModeConcurrent, Concurrency: 4, TTFT: Stats{P50: Some(40)}, ReqPerSec: Some(2)},
		{Label: "a1", Mode: loadgen.ModeConcurrent, Concurrency: 8, TTFT: Stats{P99: Some(90)}},
	}}
	b := Result{Levels: []Level{
		{Label: "b0", Mode: loadgen.ModeThroughput},
		{Label: "b1", Mode: loadgen.ModeConcurrent, Concurrency: 4, TTFT: Stats{P50: Some(50)}},
	}}
	type row struct {
		level, metric, unit string
		a, b, ratio         Value
		la, lb              int
	}
	var got []row
	for _, r := range Compare(a, b).AllRows() {
		got = append(got, row{r.Level, r.Metric, r.Unit, r.A, r.B, r.Ratio, r.LevelA, r.LevelB})
	}
	want := []row{
		{"concurrency 4", "TTFT p50 (ms)", "ms", Some(40), Some(50), Some(1.25), 0, 1},
		{"concurrency 4", "req/s", "req/s", Some(2), Value{}, Value{}, 0, 1},
		{"a1", "TTFT p99 (ms)", "ms", Some(90), Value{}, Value{}, 1, -1},
		{"b0", "", "", Value{}, Value{}, Value{}, -1, 0},
	}
	if !slices.Equal(got, want) {
		t.Errorf("AllRows:\n got %+v\nwant %+v", got, want)
	}
}

func TestWriteText(t *testing.T) {
	a := mustRead(t, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	b := mustRead(t, "aiperf-0.1.1-7c31f57-run1-profile_export_aiperf.json")
	var buf bytes.Buffer
	if err := WriteText(&buf, Compare(a, b)); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"unmatched in A: concurrent 4", "unmatched in B: concurrent 100"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, buf.String())
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{
		"guidellm-v0.2-dev-f1dfdc6-stripped-sweep-synchronous.json",
		"aiperf-0.1.1-7c31f57-run1-profile_export_aiperf.json",
		"genai-perf-sdk24.12-trtllm-kserve-c100-streaming-profile_export_genai_perf.json",
		"vllm-bench-serve-v0.25.1-cpu-opt125m-c2.json",
		"vllm-bench-sweep-serve-v0.25.1-cpu-opt125m-seqs4-c2-summary.json",
		"inference-perf/stage_0_lifecycle_metrics.json",
	} {
		data, err := os.ReadFile(dir + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("benchmarks:\n- metrics: {time_to_first_token_ms: {successful: {mean: 1}}}\n"))
	f.Add([]byte(`{"records": {"ttft": {"avg": "x"}}, "input_config": {"loadgen": 3}}`))
	f.Add([]byte(`[{"completed": 1, "request_rate": "inf", "max_concurrency": -4}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Read(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		c := Compare(r, r)
		_ = c.Rows()
		if err := WriteText(&bytes.Buffer{}, c); err != nil {
			t.Fatal(err)
		}
	})
}
