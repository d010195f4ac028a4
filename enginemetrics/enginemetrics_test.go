package enginemetrics

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "telemetry", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, name string) Snapshot {
	t.Helper()
	s, err := Parse(bytes.NewReader(fixture(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseVLLM(t *testing.T) {
	tests := []struct {
		file                       string
		prompt, gen, queries, hits float64
		stop, length, abort        float64
		ttftCount                  float64
	}{
		{"vllm-before.prom", 2118440, 806115, 2118440, 612352, 2410, 1287, 3, 3796},
		{"vllm-after.prom", 3222952, 1227423, 3222952, 944128, 3441, 1728, 3, 5268},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			s := parse(t, tc.file)
			if s.Engine != "vllm" || s.PromptTokens != tc.prompt || s.GenerationTokens != tc.gen ||
				s.PrefixQueries != tc.queries || s.PrefixHits != tc.hits || s.TTFTCount != tc.ttftCount {
				t.Errorf("snapshot = %+v", s)
			}
			if s.Requests["stop"] != tc.stop || s.Requests["length"] != tc.length || s.Requests["abort"] != tc.abort {
				t.Errorf("requests = %v", s.Requests)
			}
		})
	}
}

func TestDiffVLLM(t *testing.T) {
	before, after := parse(t, "vllm-before.prom"), parse(t, "vllm-after.prom")
	mid := after
	mid.KVCacheUsage, mid.Waiting, mid.Running = 0.91, 17, 128
	d := Diff(before, after, mid)
	// testdata/telemetry/FIXTURES.md, section 2.
	if d.GenerationTokens != 421308 || d.PromptTokens != 1104512 {
		t.Errorf("tokens: generation %v prompt %v, want 421308 and 1104512", d.GenerationTokens, d.PromptTokens)
	}
	if d.Requests["stop"] != 1031 || d.Requests["length"] != 441 || d.Requests["abort"] != 0 || d.RequestsTotal != 1472 {
		t.Errorf("requests %v total %v, want 1031/441/0, 1472", d.Requests, d.RequestsTotal)
	}
	if math.Abs(d.PrefixCacheHitRatio-331776.0/1104512) > 1e-12 || math.Round(d.PrefixCacheHitRatio*10000)/100 != 30.04 {
		t.Errorf("hit ratio = %v, want 30.04 %%", d.PrefixCacheHitRatio)
	}
	if math.Abs(d.MeanTTFTSeconds-0.19760) > 5e-6 {
		t.Errorf("mean TTFT = %v s, want 0.19760", d.MeanTTFTSeconds)
	}
	if d.PeakKVCacheUsage != 0.91 || d.PeakWaiting != 17 || d.PeakRunning != 128 || d.Samples != 3 {
		t.Errorf("peaks kv %v waiting %v running %v samples %d", d.PeakKVCacheUsage, d.PeakWaiting, d.PeakRunning, d.Samples)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings %v", d.Warnings)
	}
	// Reversed: every counter goes backwards.
	if r := Diff(after, before); len(r.Warnings) == 0 || r.Warnings[0].Code != "engine_counter_reset" || r.GenerationTokens != 0 {
		t.Errorf("reversed diff = %+v", r)
	}
}

const sglangText = `# HELP sglang:prompt_tokens_total Number of prefill tokens processed.
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="m"} 8.128902e+06
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="m"} 7.557572e+06
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{cache_source="device",model_name="m"} 1.0e+06
sglang:cached_tokens_total{cache_source="host",model_name="m"} 2.0e+05
# TYPE sglang:num_requests_total counter
sglang:num_requests_total{model_name="m"} 9000
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="m"} 0.28
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="m"} 4
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m"} 64
`

func TestParseSGLang(t *testing.T) {
	s, err := Parse(strings.NewReader(sglangText))
	if err != nil {
		t.Fatal(err)
	}
	want := Snapshot{Engine: "sglang", PromptTokens: 8128902, GenerationTokens: 7557572,
		PrefixQueries: 8128902, PrefixHits: 1.2e6, KVCacheUsage: 0.28, Waiting: 4, Running: 64}
	if s.Engine != want.Engine || s.PromptTokens != want.PromptTokens || s.GenerationTokens != want.GenerationTokens ||
		s.PrefixQueries != want.PrefixQueries || s.PrefixHits != want.PrefixHits || s.KVCacheUsage != want.KVCacheUsage ||
		s.Waiting != want.Waiting || s.Running != want.Running || s.Requests["total"] != 9000 {
		t.Errorf("snapshot = %+v", s)
	}
	if s, _ := Parse(strings.NewReader("# nothing\nup 1\n")); s.Engine != "" {
		t.Errorf("unknown engine = %q", s.Engine)
	}
}

// The llama.cpp and TGI fixtures are composed by hand from the metric
// names in llama.cpp's server source and TGI's metrics reference (see
// testdata/telemetry/README.md).
func TestParseLlamaCpp(t *testing.T) {
	tests := []struct {
		file                       string
		prompt, gen, queries, hits float64
		kv, waiting, running       float64
	}{
		// prompt = computed + cached; the cached counter is the prefix hit.
		{"llamacpp-before.prom", 52480 + 1024, 13312, 53504, 1024, 0, 3, 8},
		{"llamacpp-after.prom", 1040640 + 9216, 262400, 1049856, 9216, 0, 0, 5},
		// Older builds: no cached counter, a KV-cache gauge.
		{"llamacpp-legacy-kv.prom", 6886, 3469, 0, 0, 0.42, 0, 1},
		// A real capture from llama-server v0.4.0 after a sweep.
		{"llamacpp-real-v0.4.0.prom", 762288 + 8643, 106019, 770931, 8643, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			s := parse(t, tc.file)
			if s.Engine != EngineLlamaCpp || s.PromptTokens != tc.prompt || s.GenerationTokens != tc.gen ||
				s.PrefixQueries != tc.queries || s.PrefixHits != tc.hits ||
				s.KVCacheUsage != tc.kv || s.Waiting != tc.waiting || s.Running != tc.running {
				t.Errorf("snapshot = %+v", s)
			}
			if len(s.Requests) != 0 {
				t.Errorf("requests = %v: llama.cpp counts none", s.Requests)
			}
		})
	}
}

func TestDiffLlamaCpp(t *testing.T) {
	before, after := parse(t, "llamacpp-before.prom"), parse(t, "llamacpp-after.prom")
	d := Diff(before, after)
	// 7,784 requests of 128 prompt and 32 output tokens.
	if d.Engine != EngineLlamaCpp || d.PromptTokens != 7784*128 || d.GenerationTokens != 7784*32 {
		t.Errorf("delta = %+v, want 996352 prompt and 249088 generation tokens", d)
	}
	if want := 8192.0 / 996352; math.Abs(d.PrefixCacheHitRatio-want) > 1e-12 {
		t.Errorf("hit ratio = %v, want %v", d.PrefixCacheHitRatio, want)
	}
	if d.PeakRunning != 8 || d.PeakWaiting != 3 || len(d.Warnings) != 0 {
		t.Errorf("peaks running %v waiting %v, warnings %v", d.PeakRunning, d.PeakWaiting, d.Warnings)
	}
	if ws := CrossCheck(d, 7784*128, 7784*32); len(ws) != 0 {
		t.Errorf("exact counts: warnings %v", ws)
	}
	ws := CrossCheck(d, 7784*128, 7000*32)
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "when it ends") {
		t.Errorf("generation 10 %% off: warnings %v, want one naming end-of-request counting", ws)
	}
}

func TestParseTGI(t *testing.T) {
	before, after := parse(t, "tgi-before.prom"), parse(t, "tgi-after.prom")
	if before.Engine != EngineTGI || before.PromptTokens != 614400 || before.GenerationTokens != 153600 ||
		before.Waiting != 2 || before.Running != 31 || before.Requests["success"] != 1200 || before.Requests["failure"] != 10 {
		t.Errorf("before = %+v", before)
	}
	d := Diff(before, after)
	// 1,198 successful requests of 512 prompt and 128 output tokens, 2 failures.
	if d.PromptTokens != 1198*512 || d.GenerationTokens != 1198*128 || d.Requests["success"] != 1198 ||
		d.Requests["failure"] != 2 || d.RequestsTotal != 1200 || d.PeakRunning != 31 || len(d.Warnings) != 0 {
		t.Errorf("delta = %+v", d)
	}
	// Rust's exporter writes a histogram without buckets as a summary.
	s, err := Parse(strings.NewReader("# TYPE tgi_request_generated_tokens summary\n" +
		"tgi_request_generated_tokens{quantile=\"0.5\"} 128\ntgi_request_generated_tokens_sum 2560\ntgi_request_generated_tokens_count 20\n"))
	if err != nil || s.Engine != EngineTGI || s.GenerationTokens != 2560 {
		t.Errorf("summary form: %+v, %v", s, err)
	}
}

// An engine whose names are unknown gave engine "" with zeros and a
// mismatch warning ("the engine counted 0 prompt tokens, the client
// 16384"): now it says the metrics were not recognised, and checks nothing.
func TestUnrecognised(t *testing.T) {
	s, err := Parse(strings.NewReader("# TYPE myengine_tokens_total counter\nmyengine_tokens_total 4096\nup 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Engine != "" {
		t.Fatalf("engine = %q", s.Engine)
	}
	d := Diff(s, s)
	if len(d.Warnings) != 1 || d.Warnings[0].Code != WarnUnrecognised || !strings.Contains(d.Warnings[0].Message, "not recognised") {
		t.Errorf("warnings = %v, want one %s", d.Warnings, WarnUnrecognised)
	}
	if ws := CrossCheck(d, 16384, 4096); len(ws) != 0 {
		t.Errorf("CrossCheck of unrecognised metrics = %v, want none", ws)
	}
}

func TestCrossCheck(t *testing.T) {
	d := Delta{Engine: EngineVLLM, PromptTokens: 1104512, GenerationTokens: 421308}
	tests := []struct {
		name           string
		prompt, output int64
		warnings       int
	}{
		{"exact", 1104512, 421308, 0},
		{"within 1 %", 1100000, 418000, 0},
		{"output 2 % off", 1104512, 413000, 1},
		{"both off", 900000, 300000, 2},
		{"no client counts", 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := CrossCheck(d, tc.prompt, tc.output)
			if len(ws) != tc.warnings {
				t.Errorf("warnings %v, want %d", ws, tc.warnings)
			}
			for _, w := range ws {
				if w.Code != "engine_token_mismatch" {
					t.Errorf("code %q", w.Code)
				}
			}
		})
	}
}

func TestMonitor(t *testing.T) {
	bodies := [][]byte{fixture(t, "vllm-before.prom"), fixture(t, "vllm-after.prom")}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Write(bodies[min(int(n.Add(1))-1, 1)])
	}))
	defer srv.Close()
	m := NewMonitor(NewScraper(srv.URL, nil), 0)
	ctx := context.Background()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := m.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d.GenerationTokens != 421308 || d.Engine != "vllm" {
		t.Errorf("delta = %+v", d)
	}
	if _, err := m.Stop(ctx); err == nil {
		t.Error("Stop twice: want an error")
	}
	m = NewMonitor(NewScraper(srv.URL, nil), time.Millisecond)
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestScrapeErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			w.Write([]byte("vllm:x{ 1\n"))
			return
		}
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer srv.Close()
	if _, err := NewScraper(srv.URL, nil).Scrape(context.Background()); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("404: %v", err)
	}
	if _, err := NewScraper(srv.URL+"/bad", nil).Scrape(context.Background()); err == nil {
		t.Error("bad text: want an error")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(fixture(f, "vllm-before.prom"))
	f.Add(fixture(f, "vllm-after.prom"))
	f.Add([]byte(sglangText))
	f.Add(fixture(f, "llamacpp-after.prom"))
	f.Add(fixture(f, "llamacpp-real-v0.4.0.prom"))
	f.Add(fixture(f, "tgi-after.prom"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		d := Diff(s, s)
		if !math.IsNaN(s.GenerationTokens) && !math.IsInf(s.GenerationTokens, 0) && d.GenerationTokens != 0 {
			t.Fatalf("self-diff = %v", d.GenerationTokens)
		}
	})
}
