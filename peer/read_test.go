package peer

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

const dir = "../testdata/peers/"

// want lists values picked by hand from each file (the full literal stored in
// the file; the shared fixtures README quotes them rounded).
type want struct {
	file              string
	tool, version     string
	levels            int
	mode              loadgen.Mode
	concurrency       int
	rate              Value
	ttftP99, itlMean  Value
	iclMean, outTok   Value
	completed, failed Count
	incomplete        Count
	itlKind           Kind
	warning           string // a warning code expected on the result
}

func TestReadFixtures(t *testing.T) {
	tests := []want{
		{file: "guidellm-v0.2-dev-f1dfdc6-stripped-sweep-synchronous.json", tool: "GuideLLM", levels: 1,
			mode: loadgen.ModeSynchronous, concurrency: 1,
			ttftP99: Some(21.281957626342773), itlMean: Some(4.941609043733832), outTok: Some(198.13346751788123),
			completed: Known(46), failed: Known(0), incomplete: Known(1), itlKind: KindITLPerRequest},
		{file: "guidellm-v0.2-dev-f1dfdc6-stripped-sweep-synchronous.yaml", tool: "GuideLLM", levels: 1,
			mode: loadgen.ModeSynchronous, concurrency: 1,
			ttftP99: Some(21.281957626342773), itlMean: Some(4.941609043733832), outTok: Some(198.13346751788123),
			completed: Known(46), failed: Known(0), incomplete: Known(1), itlKind: KindITLPerRequest},
		{file: "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json", tool: "GuideLLM", version: "0.5.0.dev0", levels: 1,
			mode: loadgen.ModeConcurrent, concurrency: 4,
			ttftP99: Some(172.63293266296387), itlMean: Some(24.17877651496134), outTok: Some(165.59511945248636),
			completed: Known(4), failed: Known(0), incomplete: Known(0), itlKind: KindITLTokenWeighted},
		{file: "guidellm-v0.7-layout-derived-concurrent4-qwen3-4b-4req.json", tool: "GuideLLM", version: "0.5.0.dev0", levels: 1,
			mode: loadgen.ModeConcurrent, concurrency: 4,
			ttftP99: Some(172.63293266296387), itlMean: Some(24.17877651496134), outTok: Some(165.59511945248636),
			completed: Known(4), failed: Known(0), incomplete: Known(0), itlKind: KindITLTokenWeighted},
		{file: "guidellm-v0.5.0.dev0-synchronous-qwen3-30b-a3b.json", tool: "GuideLLM", version: "0.5.0.dev0", levels: 1,
			mode: loadgen.ModeSynchronous, concurrency: 1,
			ttftP99: Some(72.79777526855469), itlMean: Some(38.65124784686373), outTok: Some(25.859765493102046),
			completed: Known(19), failed: Known(0), incomplete: Known(0), itlKind: KindITLTokenWeighted},
		{file: "aiperf-0.1.1-7c31f57-run1-profile_export_aiperf.json", tool: "AIPerf", levels: 1,
			mode: loadgen.ModeConcurrent, concurrency: 100,
			ttftP99: Some(3833.3894000399996), itlMean: Some(27.763065454471807), iclMean: Some(27.755153106189347),
			outTok: Some(2320.7222350404572), completed: Known(89), failed: Known(0), incomplete: Known(11), itlKind: KindITLPerRequest},
		{file: "aiperf-0.8.0-mock-nonstreaming-c4-profile_export_aiperf.json", tool: "AIPerf", version: "0.8.0", levels: 1,
			mode: loadgen.ModeConcurrent, concurrency: 4,
			outTok: Some(1022443.0554692096), completed: Known(64), failed: Known(0)},
		{file: "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.json", tool: "AIPerf", version: "0.11.0", levels: 1,
			mode: loadgen.ModeConcurrent, concurrency: 16,
			ttftP99: Some(66.76023583999999), itlMean: Some(8.77927431816552), iclMean: Some(8.84740421014943),
			outTok: Some(1792.2310692134672), completed: Known(2044), failed: Known(0), itlKind: KindITLPerRequest},
		{file: "genai-perf-sdk24.12-trtllm-kserve-c100-streaming-profile_export_genai_perf.json", tool: "GenAI-Perf", levels: 1,
			mode: loadgen.ModeConcurrent, concurrency: 100,
			ttftP99: Some(425.02943662), itlMean: Some(2.1767344516666665), outTok: Some(44190.56002502682),
			itlKind: KindITLPerRequest},
		{file: "genai-perf-sdk24.12-trtllm-kserve-c100-nonstreaming-profile_export_genai_perf.json", tool: "GenAI-Perf", levels: 1,
			mode: loadgen.ModeConcurrent, concurrency: 100,
			outTok: Some(12277.70340876071), warning: "non_streaming_ttft"},
		{file: "vllm-benchmark_serving-f504e17-h100-llama3.1-8b-c1-isl512-osl85.json", tool: "vLLM", levels: 1,
			mode: loadgen.ModePoisson, rate: Some(10),
			ttftP99: Some(42.20107963033116), itlMean: Some(10.474291404404886), iclMean: Some(10.474300794761414),
			outTok: Some(92.67103923299682), completed: Known(100), failed: Known(0), itlKind: KindITLPerRequest},
		{file: "vllm-benchmark_serving-f504e17-h100-llama3.1-8b-c64-isl512-osl85.json", tool: "vLLM", levels: 1,
			mode: loadgen.ModePoisson, rate: Some(10),
			ttftP99: Some(82.01265025018078), itlMean: Some(13.546514463452286), iclMean: Some(13.546524863095545),
			outTok: Some(828.7312243979729), completed: Known(100), failed: Known(0), itlKind: KindITLPerRequest},
		{file: "vllm-bench-serve-v0.25.1-cpu-opt125m-c2.json", tool: "vLLM", levels: 1,
			mode: loadgen.ModeConcurrent, concurrency: 2,
			ttftP99: Some(734.4049174101428), itlMean: Some(11.265828258331112), iclMean: Some(11.265836941667354),
			outTok: Some(82.89297074037474), completed: Known(8), failed: Known(0), itlKind: KindITLPerRequest},
		{file: "vllm-bench-serve-v0.25.1-cpu-opt125m-all-failed.json", tool: "vLLM", levels: 1,
			mode: loadgen.ModeThroughput, completed: Known(0), failed: Known(8), warning: "no_successful_requests"},
		{file: "vllm-bench-sweep-serve-v0.25.1-cpu-opt125m-seqs4-c2-run0.json", tool: "vLLM", levels: 1,
			mode: loadgen.ModeConcurrent, concurrency: 2,
			ttftP99: Some(762.4942294094944), itlMean: Some(8.204553624697533), iclMean: Some(8.204563008257537),
			outTok: Some(93.74767963046673), completed: Known(8), failed: Known(0), itlKind: KindITLPerRequest},
		{file: "vllm-bench-sweep-serve-v0.25.1-cpu-opt125m-seqs4-c2-summary.json", tool: "vLLM", levels: 2,
			mode: loadgen.ModeConcurrent, concurrency: 2,
			ttftP99: Some(762.4942294094944), itlMean: Some(8.204553624697533), iclMean: Some(8.204563008257537),
			outTok: Some(93.74767963046673), completed: Known(8), failed: Known(0), itlKind: KindITLPerRequest},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := ReadFile(dir + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if r.Tool != tt.tool || r.ToolVersion != tt.version || r.File != dir+tt.file {
				t.Errorf("tool %q %q file %q, want %q %q", r.Tool, r.ToolVersion, r.File, tt.tool, tt.version)
			}
			if len(r.Levels) != tt.levels {
				t.Fatalf("%d levels, want %d", len(r.Levels), tt.levels)
			}
			l := r.Levels[0]
			checks := []struct {
				name      string
				got, want Value
			}{
				{"rate", l.Rate, tt.rate},
				{"TTFT p99", l.TTFT.P99, tt.ttftP99},
				{"ITL mean", l.ITL.Mean, tt.itlMean},
				{"ICL mean", l.ICL.Mean, tt.iclMean},
				{"output tok/s", l.OutputTokPerSec, tt.outTok},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				}
			}
			if l.Mode != tt.mode || l.Concurrency != tt.concurrency {
				t.Errorf("mode %q concurrency %d, want %q %d", l.Mode, l.Concurrency, tt.mode, tt.concurrency)
			}
			if l.Requests != (Requests{Completed: tt.completed, Failed: tt.failed, Incomplete: tt.incomplete}) {
				t.Errorf("requests %+v, want completed %v failed %v incomplete %v", l.Requests, tt.completed, tt.failed, tt.incomplete)
			}
			if l.Definitions.ITL.Kind != tt.itlKind {
				t.Errorf("ITL kind %q, want %q", l.Definitions.ITL.Kind, tt.itlKind)
			}
			if l.ITL.Mean.OK && l.Definitions.ITL.Source == "" {
				t.Error("ITL present without a source")
			}
			found := tt.warning == ""
			for _, w := range r.Warnings {
				found = found || string(w.Code) == tt.warning
			}
			if !found {
				t.Errorf("warnings %v, want code %q", r.Warnings, tt.warning)
			}
		})
	}
}

// The README's quick-reference table quotes each headline value rounded; the
// parsed values must round to it.
func TestReadmeRounding(t *testing.T) {
	r, err := ReadFile(dir + "guidellm-v0.2-dev-f1dfdc6-stripped-sweep-synchronous.json")
	if err != nil {
		t.Fatal(err)
	}
	l := r.Levels[0]
	for _, c := range []struct {
		got    Value
		want   float64
		places float64
	}{
		{l.TTFT.P99, 21.2820, 4}, {l.ITL.Mean, 4.9416, 4}, {l.OutputTokPerSec, 198.133, 3},
		{l.TTFT.Mean, 16.79, 2}, {l.TTFT.P50, 16.38, 2}, // p50 falls back to median (no p50 key)
	} {
		k := math.Pow(10, c.places)
		if math.Round(c.got.V*k)/k != c.want {
			t.Errorf("%v rounds to %v, want %v", c.got, math.Round(c.got.V*k)/k, c.want)
		}
	}
	if got, want := l.E2E.P99, Some(0.6891846656799316*1000); got != want {
		t.Errorf("E2E p99 = %v ms, want %v (request_latency is in s)", got, want)
	}
	if l.Definitions.TPOT.Kind != KindTPOTWithFirst {
		t.Errorf("GuideLLM TPOT kind %q, want %q", l.Definitions.TPOT.Kind, KindTPOTWithFirst)
	}
}

func TestVLLMAllFailedHasNoMeasurements(t *testing.T) {
	r, err := ReadFile(dir + "vllm-bench-serve-v0.25.1-cpu-opt125m-all-failed.json")
	if err != nil {
		t.Fatal(err)
	}
	l := r.Levels[0]
	if !l.TTFT.Empty() || !l.ICL.Empty() || l.OutputTokPerSec.OK || l.ReqPerSec.OK {
		t.Errorf("all-failed run kept its 0.0 figures: %+v", l)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string // substrings of the error
		unknown    bool     // an *UnknownFormatError
	}{
		{"empty", "  \n", []string{"x.json", "empty file"}, false},
		{"corrupt JSON", "{\"benchmarks\": [\n  {\"metrics\": }\n]}", []string{"x.json", "not JSON", "line 2"}, false},
		{"unknown object", `{"hello": 1}`, []string{"x.json", "not a GuideLLM benchmarks.json (no `benchmarks` array)",
			"not an AIPerf/GenAI-Perf profile export (no `records` object and no `time_to_first_token`",
			"not a vLLM serving benchmark result (no `completed` count"}, true},
		{"benchmarks without metrics", `{"benchmarks": [{"x": 1}]}`, []string{"no `benchmarks[0].metrics` object"}, true},
		{"YAML scalar", "just some text", []string{"x.json", "neither JSON"}, false},
		{"vLLM sweep with a stranger", `[{"completed": 1, "output_throughput": 2}, {"x": 1}]`, []string{"x.json", "entry 1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.data), "x.json")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var u *UnknownFormatError
			if errors.As(err, &u) != tt.unknown {
				t.Errorf("UnknownFormatError = %v, want %v (%v)", !tt.unknown, tt.unknown, err)
			}
		})
	}
}

func TestReadFileMissing(t *testing.T) {
	if _, err := ReadFile(dir + "no-such-file.json"); err == nil || !strings.Contains(err.Error(), "no-such-file.json") {
		t.Errorf("err = %v", err)
	}
}

// A caller-supplied Reader (our run.json) is tried in the given order.
func TestWithReaders(t *testing.T) {
	ours := func(data []byte) (Result, error) {
		if !strings.Contains(string(data), `"schema_version"`) || !strings.Contains(string(data), "gollm") {
			return Result{}, &MismatchError{Format: "gollm-bench run.json", Reason: "no gollm-bench schema_version"}
		}
		return Result{Tool: "gollm-bench", Levels: []Level{{Mode: loadgen.ModeSynchronous, Concurrency: 1, Definitions: Native()}}}, nil
	}
	r, err := Read(strings.NewReader(`{"schema_version": "gollm-1"}`), "run.json", WithReaders(append([]Reader{ours}, Builtin()...)...))
	if err != nil || r.Tool != "gollm-bench" || r.File != "run.json" {
		t.Fatalf("got %+v, %v", r, err)
	}
	_, err = Read(strings.NewReader(`{"x": 1}`), "run.json", WithReaders(ours))
	if err == nil || !strings.Contains(err.Error(), "not a gollm-bench run.json (no gollm-bench schema_version)") {
		t.Errorf("err = %v", err)
	}
	// The same data without our reader is a GuideLLM file no longer.
	if _, err := Read(strings.NewReader(`{"schema_version": "gollm-1"}`), "run.json"); err == nil {
		t.Error("built-ins accepted our run.json")
	}
}

func TestValueJSON(t *testing.T) {
	for _, tt := range []struct {
		v    Value
		want string
	}{{Value{}, "null"}, {Some(0), "0"}, {Some(1.5), "1.5"}, {Some(math.Inf(1)), "null"}} {
		b, err := tt.v.MarshalJSON()
		if err != nil || string(b) != tt.want {
			t.Errorf("%v → %s, %v; want %s", tt.v, b, err, tt.want)
		}
		var back Value
		if err := back.UnmarshalJSON(b); err != nil || back != tt.v {
			t.Errorf("round trip %v → %v, %v", tt.v, back, err)
		}
	}
	var c Count
	if err := c.UnmarshalJSON([]byte("7")); err != nil || c != Known(7) {
		t.Errorf("count %v %v", c, err)
	}
	if b, _ := (Count{}).MarshalJSON(); string(b) != "null" {
		t.Errorf("missing count → %s", b)
	}
}
