package enginemetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/prom"
)

// Engine names a family of /metrics names that Parse recognises.
const (
	EngineVLLM     = "vllm"     // vllm:* (V1 engine; summed over the "engine" label)
	EngineSGLang   = "sglang"   // sglang:*
	EngineLlamaCpp = "llamacpp" // llama.cpp's llama-server, llamacpp:* (needs --metrics)
	EngineTGI      = "tgi"      // Hugging Face text-generation-inference, tgi_*
)

// Snapshot is one scrape of an engine's /metrics, summed over every series
// of a family (all engine cores of a data-parallel vLLM, all models).
// Counters are cumulative since the engine started. A field the engine
// does not export stays 0.
type Snapshot struct {
	// Engine is EngineVLLM, EngineSGLang, EngineLlamaCpp, EngineTGI, or ""
	// when the page carries none of their families (nothing else is read).
	Engine string `json:"engine"`

	// PromptTokens are prompt tokens the engine took in: vllm: and sglang:
	// prompt_tokens_total; llama.cpp: llamacpp:prompt_tokens_total (those
	// it computed) plus llamacpp:prompt_tokens_cached_total (those reused
	// from its cache); TGI: the sum of the tgi_request_input_length
	// histogram.
	PromptTokens float64 `json:"prompt_tokens"`
	// GenerationTokens are output tokens: vllm: and sglang:
	// generation_tokens_total, llamacpp:tokens_predicted_total, the sum of
	// TGI's tgi_request_generated_tokens histogram. llama.cpp and TGI add a
	// request's tokens when it ends, vLLM and SGLang as they are generated.
	GenerationTokens float64 `json:"generation_tokens"`
	// Requests counts finished requests by finished_reason
	// (vllm:request_success_total); SGLang has no reason: key "total"
	// (sglang:num_requests_total) and "abort" (sglang:num_aborted_requests_total);
	// TGI: "success" (tgi_request_success) and "failure"
	// (tgi_request_failure). llama.cpp counts no requests.
	Requests map[string]float64 `json:"requests"`
	// PrefixQueries and PrefixHits are prefix-cache tokens queried and hit:
	// vllm:prefix_cache_queries_total / _hits_total; SGLang:
	// sglang:prompt_tokens_total / sglang:cached_tokens_total (all sources);
	// llama.cpp: PromptTokens / llamacpp:prompt_tokens_cached_total.
	PrefixQueries float64 `json:"prefix_queries"`
	PrefixHits    float64 `json:"prefix_hits"`
	// KVCacheUsage is the KV-cache fill, 0..1 (vllm:kv_cache_usage_perc,
	// older vllm:gpu_cache_usage_perc; sglang:token_usage; older llama.cpp
	// builds' llamacpp:kv_cache_usage_ratio); the maximum over engine
	// cores. TGI exports none.
	KVCacheUsage float64 `json:"kv_cache_usage"`
	// Waiting is requests queued: vllm:num_requests_waiting,
	// sglang:num_queue_reqs, llamacpp:requests_deferred, tgi_queue_size.
	Waiting float64 `json:"waiting"`
	// Running is requests being served: vllm:num_requests_running,
	// sglang:num_running_reqs, llamacpp:requests_processing (busy slots),
	// tgi_batch_current_size.
	Running float64 `json:"running"`
	// TTFTCount and TTFTSum are the engine's TTFT histogram count and sum, s
	// (vLLM and SGLang only).
	TTFTCount float64 `json:"ttft_count"`
	TTFTSum   float64 `json:"ttft_sum_s"`
}

// Parse reads one /metrics body (the Prometheus text format, read by
// prom.ParseText: prometheus_client's "1.227423e+06" values and *_created
// gauges, which are ignored). It is safe for concurrent use.
func Parse(r io.Reader) (Snapshot, error) {
	page, err := prom.ParseText(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("engine /metrics: %w", err)
	}
	return fromPage(page), nil
}

// fromPage reads an engine's figures from a parsed /metrics page. A
// histogram family f is read from its f_count and f_sum series. It is
// safe for concurrent use.
func fromPage(page prom.Snapshot) Snapshot {
	sum := func(name string) (float64, bool) {
		if !page.Has(name) {
			return 0, false
		}
		t := 0.0
		for _, x := range page.Samples(name) {
			t += x.Value
		}
		return t, true
	}
	maxOf := func(name string) (float64, bool) {
		if !page.Has(name) {
			return 0, false
		}
		v := math.Inf(-1)
		for _, x := range page.Samples(name) {
			v = math.Max(v, x.Value)
		}
		return v, true
	}
	first := func(get func(string) (float64, bool), names ...string) float64 {
		for _, n := range names {
			if v, ok := get(n); ok {
				return v
			}
		}
		return 0
	}
	// histogram returns the observation count and sum of a histogram (or
	// summary: Rust's metrics exporter writes a histogram without
	// configured buckets as one), summed over its series.
	histogram := func(name string) (count, total float64) {
		count, _ = sum(name + "_count")
		total, _ = sum(name + "_sum")
		return count, total
	}
	s := Snapshot{Requests: map[string]float64{}}
	switch {
	case page.Has("vllm:generation_tokens_total") || page.Has("vllm:prompt_tokens_total"):
		s.Engine = EngineVLLM
		s.PromptTokens = first(sum, "vllm:prompt_tokens_total")
		s.GenerationTokens = first(sum, "vllm:generation_tokens_total")
		for _, x := range page.Samples("vllm:request_success_total") {
			s.Requests[x.Labels["finished_reason"]] += x.Value
		}
		s.PrefixQueries = first(sum, "vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total")
		s.PrefixHits = first(sum, "vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total")
		s.KVCacheUsage = first(maxOf, "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
		s.Waiting = first(sum, "vllm:num_requests_waiting")
		s.Running = first(sum, "vllm:num_requests_running")
		s.TTFTCount, s.TTFTSum = histogram("vllm:time_to_first_token_seconds")
	case page.Has("sglang:generation_tokens_total") || page.Has("sglang:prompt_tokens_total"):
		s.Engine = EngineSGLang
		s.PromptTokens = first(sum, "sglang:prompt_tokens_total")
		s.GenerationTokens = first(sum, "sglang:generation_tokens_total")
		if v, ok := sum("sglang:num_requests_total"); ok {
			s.Requests["total"] = v
		}
		if v, ok := sum("sglang:num_aborted_requests_total"); ok {
			s.Requests["abort"] = v
		}
		if v, ok := sum("sglang:cached_tokens_total"); ok {
			s.PrefixQueries, s.PrefixHits = s.PromptTokens, v
		}
		s.KVCacheUsage = first(maxOf, "sglang:token_usage")
		s.Waiting = first(sum, "sglang:num_queue_reqs")
		s.Running = first(sum, "sglang:num_running_reqs")
		s.TTFTCount, s.TTFTSum = histogram("sglang:time_to_first_token_seconds")
	case page.Has("llamacpp:tokens_predicted_total") || page.Has("llamacpp:prompt_tokens_total"):
		s.Engine = EngineLlamaCpp
		computed := first(sum, "llamacpp:prompt_tokens_total")
		s.PromptTokens = computed
		if cached, ok := sum("llamacpp:prompt_tokens_cached_total"); ok {
			// Builds that split the two count only computed tokens in
			// prompt_tokens_total; older ones count no cache at all.
			s.PromptTokens = computed + cached
			s.PrefixQueries, s.PrefixHits = s.PromptTokens, cached
		}
		s.GenerationTokens = first(sum, "llamacpp:tokens_predicted_total")
		s.KVCacheUsage = first(maxOf, "llamacpp:kv_cache_usage_ratio")
		s.Waiting = first(sum, "llamacpp:requests_deferred")
		s.Running = first(sum, "llamacpp:requests_processing")
	case page.Has("tgi_request_generated_tokens_count") || page.Has("tgi_request_input_length_count") || page.Has("tgi_request_count"):
		s.Engine = EngineTGI
		_, s.PromptTokens = histogram("tgi_request_input_length")
		_, s.GenerationTokens = histogram("tgi_request_generated_tokens")
		if v, ok := sum("tgi_request_success"); ok {
			s.Requests["success"] = v
		}
		if v, ok := sum("tgi_request_failure"); ok {
			s.Requests["failure"] = v
		}
		s.Waiting = first(sum, "tgi_queue_size")
		s.Running = first(sum, "tgi_batch_current_size")
	}
	return s
}

// Delta is what the engine itself counted over a window: counter
// differences between the window's start and end scrapes, and peaks of the
// gauges sampled in between.
type Delta struct {
	Engine           string             `json:"engine"`
	PromptTokens     float64            `json:"prompt_tokens"`
	GenerationTokens float64            `json:"generation_tokens"`
	Requests         map[string]float64 `json:"requests"` // by finished_reason
	RequestsTotal    float64            `json:"requests_total"`
	// PrefixCacheHitRatio = hits / queries over the window (vLLM's
	// definition: tokens served from the prefix cache). 0 without queries.
	PrefixCacheHitRatio float64 `json:"prefix_cache_hit_ratio"`
	PeakKVCacheUsage    float64 `json:"peak_kv_cache_usage"` // 0..1
	PeakWaiting         float64 `json:"peak_waiting"`        // requests
	PeakRunning         float64 `json:"peak_running"`        // requests
	// MeanTTFTSeconds is the engine's own mean TTFT over the window, s
	// (histogram sum delta / count delta).
	MeanTTFTSeconds float64           `json:"mean_ttft_s"`
	Samples         int               `json:"samples"`
	Warnings        []metrics.Warning `json:"warnings,omitempty"`
}

// Diff computes the window's Delta from the scrape at its start, the one
// at its end, and any scrapes in between (for the peaks). A counter that
// went backwards (engine restart) gives a warning and a 0 delta. When the
// end scrape carries no known family (Snapshot.Engine ""), the Delta is
// empty and carries an "engine_metrics_unrecognised" warning: its zeros
// are not measurements.
func Diff(before, after Snapshot, during ...Snapshot) Delta {
	d := Delta{Engine: after.Engine, Requests: map[string]float64{}, Samples: 2 + len(during)}
	if after.Engine == "" {
		d.Warnings = append(d.Warnings, metrics.Warning{Code: WarnUnrecognised, Level: -1, Message: "engine metrics not recognised: " +
			"the /metrics page has none of the vLLM (vllm:*), SGLang (sglang:*), llama.cpp (llamacpp:*) or TGI (tgi_*) counters, " +
			"so nothing was read from it; point the Scraper at the engine's own /metrics, or drop it"})
		return d
	}
	delta := func(name string, b, a float64) float64 {
		if a < b {
			d.Warnings = append(d.Warnings, metrics.Warning{Code: WarnCounterReset, Level: -1,
				Message: fmt.Sprintf("engine counter %s went backwards (%.0f → %.0f): the engine restarted during the window", name, b, a)})
			return 0
		}
		return a - b
	}
	d.PromptTokens = delta("prompt_tokens", before.PromptTokens, after.PromptTokens)
	d.GenerationTokens = delta("generation_tokens", before.GenerationTokens, after.GenerationTokens)
	reasons := make([]string, 0, len(after.Requests))
	for k := range after.Requests {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		v := delta("requests{"+k+"}", before.Requests[k], after.Requests[k])
		d.Requests[k] = v
		if k != "total" && !(after.Engine == EngineSGLang && k == "abort") {
			d.RequestsTotal += v
		}
	}
	if t, ok := d.Requests["total"]; ok {
		d.RequestsTotal = t
	}
	q := delta("prefix_queries", before.PrefixQueries, after.PrefixQueries)
	h := delta("prefix_hits", before.PrefixHits, after.PrefixHits)
	if q > 0 {
		d.PrefixCacheHitRatio = h / q
	}
	if c := after.TTFTCount - before.TTFTCount; c > 0 {
		d.MeanTTFTSeconds = (after.TTFTSum - before.TTFTSum) / c
	}
	for _, s := range append(append([]Snapshot{before}, during...), after) {
		d.PeakKVCacheUsage = math.Max(d.PeakKVCacheUsage, s.KVCacheUsage)
		d.PeakWaiting = math.Max(d.PeakWaiting, s.Waiting)
		d.PeakRunning = math.Max(d.PeakRunning, s.Running)
	}
	return d
}

// tolerance is the relative disagreement CrossCheck tolerates (1 %, as for
// the local tokenizer: docs/metrics.md#isl-and-osl).
const tolerance = 0.01

// CrossCheck compares the engine's token counts over the window with the
// client's (prompt and output tokens of the window's requests) and returns
// an "engine_token_mismatch" warning for each that differs by more than
// 1 %. A zero client count is not checked, and nothing is checked when the
// engine's metrics were not recognised (d.Engine ""). Note the engine also
// counts requests from other clients, and tokens of requests that straddle
// the window's edges; llama.cpp and TGI add a request's tokens only when it
// ends, so with them the whole of a straddling request falls on one side.
func CrossCheck(d Delta, promptTokens, outputTokens int64) []metrics.Warning {
	if d.Engine == "" {
		return nil
	}
	cause := "other clients, or requests straddling the window"
	if d.Engine == EngineLlamaCpp || d.Engine == EngineTGI {
		cause = "other clients, or requests straddling the window (this engine counts a request's tokens when it ends)"
	}
	var ws []metrics.Warning
	check := func(what string, engine float64, ours int64) {
		if ours <= 0 {
			return
		}
		if diff := math.Abs(engine-float64(ours)) / float64(ours); diff > tolerance {
			ws = append(ws, metrics.Warning{Code: WarnTokenMismatch, Level: -1,
				Message: fmt.Sprintf("the engine counted %.0f %s tokens in the window, the client %d (%.2f %% apart): %s", engine, what, ours, 100*diff, cause)})
		}
	}
	check("prompt", d.PromptTokens, promptTokens)
	check("generation", d.GenerationTokens, outputTokens)
	return ws
}

// Scraper reads an engine's /metrics page (prom.Get). It is safe for
// concurrent use.
type Scraper struct {
	url    string
	client *http.Client
}

// NewScraper returns a Scraper of url (e.g. http://127.0.0.1:8000/metrics;
// a URL without a path gets /metrics). client nil means a private client
// with a 10 s timeout.
func NewScraper(url string, client *http.Client) *Scraper {
	return &Scraper{url: prom.MetricsURL(url), client: client}
}

// Scrape reads and parses one /metrics page. Errors name the URL, with
// its credentials redacted.
func (s *Scraper) Scrape(ctx context.Context) (Snapshot, error) {
	page, err := prom.Get(ctx, s.client, s.url)
	if err != nil {
		return Snapshot{}, err
	}
	return fromPage(page), nil
}

// Monitor scrapes at a window's start and end and every interval in
// between (for the peaks). Start, Stop must be called from one goroutine.
type Monitor struct {
	scraper  *Scraper
	interval time.Duration

	mu     sync.Mutex
	before Snapshot
	during []Snapshot
	cancel context.CancelFunc
	group  *errgroup.Group
}

// NewMonitor returns a Monitor over s sampling every interval (0 or less:
// only the window's edges).
func NewMonitor(s *Scraper, interval time.Duration) *Monitor {
	return &Monitor{scraper: s, interval: interval}
}

// Start scrapes the window's start and begins sampling.
func (m *Monitor) Start(ctx context.Context) error {
	if m.cancel != nil {
		return errors.New("enginemetrics: Start called twice without Stop")
	}
	b, err := m.scraper.Scrape(ctx)
	if err != nil {
		return err
	}
	m.before, m.during = b, nil
	sctx, cancel := context.WithCancel(ctx)
	m.cancel = cancel
	m.group, sctx = errgroup.WithContext(sctx)
	if m.interval > 0 {
		m.group.Go(func() error {
			t := time.NewTicker(m.interval)
			defer t.Stop()
			for {
				select {
				case <-sctx.Done():
					return nil
				case <-t.C:
				}
				if s, err := m.scraper.Scrape(sctx); err == nil {
					m.mu.Lock()
					m.during = append(m.during, s)
					m.mu.Unlock()
				}
			}
		})
	}
	return nil
}

// Stop ends sampling, scrapes the window's end and returns the Delta.
func (m *Monitor) Stop(ctx context.Context) (Delta, error) {
	if m.cancel == nil {
		return Delta{}, errors.New("enginemetrics: Stop called without Start")
	}
	m.cancel()
	_ = m.group.Wait()
	m.cancel = nil
	a, err := m.scraper.Scrape(ctx)
	if err != nil {
		return Delta{}, err
	}
	m.mu.Lock()
	during := m.during
	m.mu.Unlock()
	return Diff(m.before, a, during...), nil
}
