package enginemetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/sync/errgroup"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// Snapshot is one scrape of an engine's /metrics, summed over every series
// of a family (all engine cores of a data-parallel vLLM, all models).
// Counters are cumulative since the engine started.
type Snapshot struct {
	// Engine is "vllm", "sglang" or "" (neither family seen).
	Engine string `json:"engine"`

	PromptTokens     float64 `json:"prompt_tokens"`     // vllm:prompt_tokens_total, sglang:prompt_tokens_total
	GenerationTokens float64 `json:"generation_tokens"` // vllm:generation_tokens_total, sglang:generation_tokens_total
	// Requests counts finished requests by finished_reason
	// (vllm:request_success_total); SGLang has no reason: key "total"
	// (sglang:num_requests_total) and "abort" (sglang:num_aborted_requests_total).
	Requests map[string]float64 `json:"requests"`
	// PrefixQueries and PrefixHits are prefix-cache tokens queried and hit:
	// vllm:prefix_cache_queries_total / _hits_total; SGLang:
	// sglang:prompt_tokens_total / sglang:cached_tokens_total (all sources).
	PrefixQueries float64 `json:"prefix_queries"`
	PrefixHits    float64 `json:"prefix_hits"`
	// KVCacheUsage is the KV-cache fill, 0..1 (vllm:kv_cache_usage_perc,
	// older vllm:gpu_cache_usage_perc; sglang:token_usage); the maximum
	// over engine cores.
	KVCacheUsage float64 `json:"kv_cache_usage"`
	Waiting      float64 `json:"waiting"` // vllm:num_requests_waiting, sglang:num_queue_reqs
	Running      float64 `json:"running"` // vllm:num_requests_running, sglang:num_running_reqs
	// TTFTCount and TTFTSum are the engine's TTFT histogram count and sum, s.
	TTFTCount float64 `json:"ttft_count"`
	TTFTSum   float64 `json:"ttft_sum_s"`
}

// Parse reads one /metrics body (Prometheus text format, as
// prometheus_client prints it: "1.227423e+06" values and *_created gauges,
// which are ignored). It is safe for concurrent use.
func Parse(r io.Reader) (Snapshot, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("engine /metrics text: %w", err)
	}
	sum := func(name string) (float64, bool) {
		f := fams[name]
		if f == nil {
			return 0, false
		}
		t := 0.0
		for _, m := range f.GetMetric() {
			t += value(m)
		}
		return t, true
	}
	maxOf := func(name string) (float64, bool) {
		f := fams[name]
		if f == nil {
			return 0, false
		}
		v := math.Inf(-1)
		for _, m := range f.GetMetric() {
			v = math.Max(v, value(m))
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
	s := Snapshot{Requests: map[string]float64{}}
	switch {
	case fams["vllm:generation_tokens_total"] != nil || fams["vllm:prompt_tokens_total"] != nil:
		s.Engine = "vllm"
		s.PromptTokens = first(sum, "vllm:prompt_tokens_total")
		s.GenerationTokens = first(sum, "vllm:generation_tokens_total")
		if f := fams["vllm:request_success_total"]; f != nil {
			for _, m := range f.GetMetric() {
				s.Requests[label(m, "finished_reason")] += value(m)
			}
		}
		s.PrefixQueries = first(sum, "vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total")
		s.PrefixHits = first(sum, "vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total")
		s.KVCacheUsage = first(maxOf, "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
		s.Waiting = first(sum, "vllm:num_requests_waiting")
		s.Running = first(sum, "vllm:num_requests_running")
		s.TTFTCount, s.TTFTSum = histogram(fams["vllm:time_to_first_token_seconds"])
	case fams["sglang:generation_tokens_total"] != nil || fams["sglang:prompt_tokens_total"] != nil:
		s.Engine = "sglang"
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
		s.TTFTCount, s.TTFTSum = histogram(fams["sglang:time_to_first_token_seconds"])
	}
	return s, nil
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

func label(m *dto.Metric, name string) string {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == name {
			return lp.GetValue()
		}
	}
	return ""
}

func histogram(f *dto.MetricFamily) (count, sum float64) {
	if f == nil {
		return 0, 0
	}
	for _, m := range f.GetMetric() {
		count += float64(m.GetHistogram().GetSampleCount())
		sum += m.GetHistogram().GetSampleSum()
	}
	return count, sum
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
// went backwards (engine restart) gives a warning and a 0 delta.
func Diff(before, after Snapshot, during ...Snapshot) Delta {
	d := Delta{Engine: after.Engine, Requests: map[string]float64{}, Samples: 2 + len(during)}
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
		if k != "total" && !(after.Engine == "sglang" && k == "abort") {
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

// tolerance is the relative disagreement CrossCheck tolerates (SPEC §5: 1 %).
const tolerance = 0.01

// CrossCheck compares the engine's token counts over the window with the
// client's (prompt and output tokens of the window's requests) and returns
// an "engine_token_mismatch" warning for each that differs by more than
// 1 %. A zero client count is not checked. Note the engine also counts
// requests from other clients, and tokens of requests that straddle the
// window's edges.
func CrossCheck(d Delta, promptTokens, outputTokens int64) []metrics.Warning {
	var ws []metrics.Warning
	check := func(what string, engine float64, ours int64) {
		if ours <= 0 {
			return
		}
		if diff := math.Abs(engine-float64(ours)) / float64(ours); diff > tolerance {
			ws = append(ws, metrics.Warning{Code: WarnTokenMismatch, Level: -1,
				Message: fmt.Sprintf("the engine counted %.0f %s tokens in the window, the client %d (%.2f %% apart): other clients, or requests straddling the window", engine, what, ours, 100*diff)})
		}
	}
	check("prompt", d.PromptTokens, promptTokens)
	check("generation", d.GenerationTokens, outputTokens)
	return ws
}

// Scraper reads an engine's /metrics. It is safe for concurrent use.
type Scraper struct {
	url    string
	client *http.Client
}

// NewScraper returns a Scraper of url (e.g. http://127.0.0.1:8000/metrics;
// the path defaults to /metrics). client nil means a private client with a
// 10 s timeout.
func NewScraper(url string, client *http.Client) *Scraper {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	if i := strings.Index(url, "://"); i >= 0 && !strings.Contains(url[i+3:], "/") {
		url += "/metrics"
	}
	return &Scraper{url: url, client: client}
}

// Scrape reads and parses one /metrics body.
func (s *Scraper) Scrape(ctx context.Context) (Snapshot, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return Snapshot{}, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return Snapshot{}, fmt.Errorf("scraping %s: %w", s.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Snapshot{}, fmt.Errorf("scraping %s: HTTP %d", s.url, resp.StatusCode)
	}
	snap, err := Parse(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return Snapshot{}, fmt.Errorf("scraping %s: %w", s.url, err)
	}
	return snap, nil
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
