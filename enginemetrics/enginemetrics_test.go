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
	// fixtures/telemetry README §2.
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

func TestCrossCheck(t *testing.T) {
	d := Delta{PromptTokens: 1104512, GenerationTokens: 421308}
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
