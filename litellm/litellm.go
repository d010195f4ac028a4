package litellm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/prom"
)

// LiteLLM's counter families, as its proxy exposes them on /metrics.
const (
	InputTokens  = "litellm_input_tokens_metric_total"  // tokens; labels end_user, hashed_api_key, api_key_alias, requested_model, team, team_alias, user, model
	OutputTokens = "litellm_output_tokens_metric_total" // tokens; same labels
	TotalTokens  = "litellm_total_tokens_metric_total"  // tokens; same labels
	// CachedInputTokens counts the input tokens the provider reported read
	// from its prompt cache (usage.prompt_tokens_details.cached_tokens),
	// part of InputTokens; LiteLLM creates it at the first cached token.
	CachedInputTokens = "litellm_input_cached_tokens_metric_total"
	Spend             = "litellm_spend_metric_total" // spend in LiteLLM's price currency; requested_model label only in newer releases (1.108.7 has it)
)

// ResponseCostHeader is the response header in which LiteLLM gives one
// response's cost, in the currency of its prices.
const ResponseCostHeader = "x-litellm-response-cost"

// Warning codes.
const (
	WarnNoSeries        metrics.WarningCode = "litellm_no_series"        // no token series matched the filter: no figures
	WarnTokenMismatch   metrics.WarningCode = "litellm_token_mismatch"   // LiteLLM's token count differs from the client's by more than 1 % and the tokens of the requests at the window's edges (CrossCheck)
	WarnSpendUnfiltered metrics.WarningCode = "litellm_spend_unfiltered" // the spend counter lacks a filter label: spend covers more than the filter
	WarnCounterReset    metrics.WarningCode = "litellm_counter_reset"    // a counter went backwards: figures not valid
)

// Reading is what LiteLLM accounted over one window. Its figures are
// counter deltas over the window: measurements, like the GPU energy
// counters, not estimates. It is plain data.
type Reading struct {
	// Via is "prometheus" or "scrape".
	Via string `json:"via"`
	// Filter is the label filter applied, e.g. requested_model="llama-70b".
	Filter        string    `json:"filter,omitempty"`
	Start         time.Time `json:"start"`
	End           time.Time `json:"end"`
	WindowSeconds float64   `json:"window_s"`

	// The counters' increases over the window, tokens; nil when the
	// family had no matching series.
	InputTokens  *float64 `json:"input_tokens,omitempty"`
	OutputTokens *float64 `json:"output_tokens,omitempty"`
	TotalTokens  *float64 `json:"total_tokens,omitempty"`
	// CachedInputTokens is the increase of
	// litellm_input_cached_tokens_metric_total (tokens, part of
	// InputTokens); nil when it had no matching series, as before the
	// proxy's first cached token.
	CachedInputTokens *float64 `json:"cached_input_tokens,omitempty"`
	// Spend is the increase of litellm_spend_metric_total, in LiteLLM's
	// price currency; nil when it had no matching series.
	Spend *float64 `json:"spend,omitempty"`

	// Valid is true when a token counter matched and none was reset.
	Valid    bool              `json:"valid"`
	Warnings []metrics.Warning `json:"warnings,omitempty"`
}

// SpendCPM is LiteLLM's spend per 1M output tokens over the window,
// spend × 1e6 / LiteLLM's output tokens, in LiteLLM's price currency.
// ok is false without spend, output tokens, or a valid reading.
func (r Reading) SpendCPM() (cpm float64, ok bool) {
	if !r.Valid || r.Spend == nil || r.OutputTokens == nil || *r.OutputTokens <= 0 {
		return 0, false
	}
	return *r.Spend * 1e6 / *r.OutputTokens, true
}

// tolerance is the least relative disagreement CrossCheck tolerates: 1 %.
const tolerance = 0.01

// Ended is the client's account of the requests that completed ok in a
// window, which CrossCheck sets beside LiteLLM's. It is plain data.
type Ended struct {
	// Requests is the number of requests that completed ok in the window
	// (req/s × window: it need not be whole).
	Requests float64
	// InputTokens and OutputTokens are those requests' prompt and output
	// tokens.
	InputTokens, OutputTokens int64
	// InFlight is the mean number of requests in flight over the window
	// (the concurrency of a closed loop); 0 when unknown.
	InFlight float64
}

// edgeRequests is the number of requests CrossCheck lets straddle the
// window's edges: the requests in flight at an edge (InFlight rounded
// up), and at least 2, one at each edge.
func (e Ended) edgeRequests() float64 { return max(2, math.Ceil(e.InFlight)) }

// CrossCheck compares LiteLLM's input and output token counts over the
// window with the client's (e) and returns a WarnTokenMismatch warning for
// each that differs by more than it tolerates: the larger of 1 % of the
// client's count and the tokens of the requests that can straddle the
// window's edges, edge requests × the client's mean tokens per request,
// where edge requests is the mean in flight rounded up, and at least 2.
//
// LiteLLM adds a request's tokens to its counters when the request has
// ended (its success callback, LiteLLM 1.108.7
// litellm/integrations/prometheus.py:1518 async_log_success_event), so
// the client's counts to give are those of the requests that completed
// successfully in the window, not the tokens that arrived in it: the
// requests in flight at either edge would be in one count only. Even so
// the two windows are not the same: a window's edge is stamped before its
// scrape is answered, and a busy proxy counts the requests that end
// between the two (or runs a callback after the client has read the
// response), so a request in flight at an edge can fall in one count
// only; at ~50 requests one such request is 2 %. A zero client count, or
// a count LiteLLM does not have, is not checked. LiteLLM counts every
// client of the proxy that the filter lets through.
func CrossCheck(r Reading, e Ended) []metrics.Warning {
	if !r.Valid {
		return nil
	}
	edge := e.edgeRequests()
	var ws []metrics.Warning
	check := func(what string, theirs *float64, ours int64) {
		if theirs == nil || ours <= 0 {
			return
		}
		slack := tolerance * float64(ours)
		if e.Requests > 0 {
			slack = max(slack, edge*float64(ours)/e.Requests)
		}
		if d := math.Abs(*theirs - float64(ours)); d > slack {
			ws = append(ws, metrics.Warning{Code: WarnTokenMismatch, Level: -1,
				Message: fmt.Sprintf("LiteLLM counted %.0f %s tokens of the requests that ended in the window (%s), the client %d (%.2f %% apart, more than the %.0f tolerated: 1 %% or the tokens of %.0f requests, those that can straddle the window's edges): other clients of the proxy, requests whose lengths vary, a tokenizer that differs, or more requests ending between a window's edge and its scrape than were in flight", *theirs, what, filterWords(r.Filter), ours, 100*d/float64(ours), slack, edge)})
		}
	}
	check("input", r.InputTokens, e.InputTokens)
	check("output", r.OutputTokens, e.OutputTokens)
	return ws
}

// Meter reads LiteLLM's counters over windows (--litellm-metrics). Start
// and Stop must be called from one goroutine.
type Meter struct {
	win    prom.Window
	filter []prom.Matcher
	now    func() time.Time
	// source is what Parse read the counters from: sourceURL,
	// sourceTarget, or "" (a Prometheus, or NewMeter's window); it words
	// the advice on a refused scrape.
	source  string
	t0      time.Time
	running bool
}

// The sources of Parse whose refused scrapes get advice.
const (
	sourceURL    = "url"
	sourceTarget = "target"
)

// Option configures Parse and NewMeter.
type Option func(*options)

type options struct {
	client       *http.Client
	now          func() time.Time
	target       string
	targetHeader http.Header
}

// WithHTTPClient sets the HTTP client (default: a private client, 10 s timeout).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.client = c } }

// WithClock sets the clock that stamps windows (default time.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithTarget gives the benchmark's target base URL, which the source
// "target" scrapes at /metrics (the /v1 suffix dropped).
func WithTarget(base string) Option { return func(o *options) { o.target = base } }

// WithTargetHeader gives the headers the benchmark sends to its target
// (its Authorization above all). The source "target" sends them with its
// scrapes of /metrics, to the target's host only: a LiteLLM proxy asks for
// a key there by default (litellm_settings.require_auth_for_metrics_endpoint,
// true in LiteLLM 1.108.7) and answers 401 without one. Other sources
// send none. h is not modified.
func WithTargetHeader(h http.Header) Option {
	return func(o *options) { o.targetHeader = h }
}

func newOptions(opts []Option) options {
	o := options{now: time.Now}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// NewMeter returns a Meter over win keeping the series that match every
// matcher of filter. Options: WithClock.
func NewMeter(win prom.Window, filter []prom.Matcher, opts ...Option) *Meter {
	o := newOptions(opts)
	return &Meter{win: win, filter: filter, now: o.now}
}

// Parse builds the Meter the --litellm-metrics flag asks for:
//
//	SOURCE[,LABEL=VALUE|LABEL=~REGEX...]
//
// where SOURCE is a /metrics URL of the proxy (http://litellm:4000/metrics;
// the path defaults to /metrics), "target" (the /metrics of the
// benchmark's target, given by WithTarget), or prometheus=URL (a
// Prometheus server storing LiteLLM's series). The terms filter series by
// label, typically requested_model=NAME (the model name the client sends)
// or model=NAME. Every problem is reported at once (errors.Join), each
// naming the LiteLLM metrics source.
func Parse(spec string, opts ...Option) (*Meter, error) {
	const example = "target,requested_model=llama-70b"
	o := newOptions(opts)
	terms := strings.Split(spec, ",")
	src := strings.TrimSpace(terms[0])
	var win prom.Window
	kind, raw, isProm := strings.Cut(src, "=")
	switch {
	case isProm && strings.EqualFold(strings.TrimSpace(kind), "prometheus"):
		u, err := httpURL(raw)
		if err != nil {
			return nil, fmt.Errorf("LiteLLM metrics prometheus=%q: want an http(s) URL, e.g. prometheus=http://prometheus:9090", raw)
		}
		win = prom.NewQueryWindow(prom.NewAPI(u.String(), o.client))
	case src == "target":
		if o.target == "" {
			return nil, errors.New("LiteLLM metrics target: no target URL to read /metrics from (WithTarget)")
		}
		base := strings.TrimSuffix(strings.TrimSuffix(o.target, "/"), "/v1")
		client := o.client
		if len(o.targetHeader) > 0 {
			u, err := url.Parse(base)
			if err != nil {
				return nil, fmt.Errorf("LiteLLM metrics target: the target URL %q does not parse: %w", o.target, err)
			}
			client = withHeader(client, u.Host, o.targetHeader)
		}
		win = prom.NewScrapeWindow(base+"/metrics", client)
	default:
		u, err := httpURL(src)
		if err != nil {
			return nil, fmt.Errorf("LiteLLM metrics %q: want 'target', the proxy's /metrics URL or prometheus=URL, e.g. %s or http://litellm:4000/metrics", src, example)
		}
		win = prom.NewScrapeWindow(u.String(), o.client) // the path defaults to /metrics
	}
	var filter []prom.Matcher
	var errs []error
	for _, t := range terms[1:] {
		m, err := prom.ParseMatcher(strings.TrimSpace(t))
		if err != nil {
			errs = append(errs, fmt.Errorf("LiteLLM metrics: %w (e.g. %s)", err, example))
			continue
		}
		filter = append(filter, m)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	m := NewMeter(win, filter, opts...)
	if _, ok := win.(*prom.ScrapeWindow); ok {
		m.source = sourceURL
		if src == "target" {
			m.source = sourceTarget
		}
	}
	return m, nil
}

// refused adds to err, when it is a refused scrape (HTTP 401 or 403), what
// to do about it: a URL source sends no credentials, and a LiteLLM proxy
// asks for its key on /metrics by default
// (litellm_settings.require_auth_for_metrics_endpoint, true in 1.108.7),
// so the source "target", which sends the run's key to the target's own
// /metrics, is the way; the source "target" did send the run's key, which
// the proxy refused.
func (m *Meter) refused(err error) error {
	var se *prom.StatusError
	if !errors.As(err, &se) || (se.Status != http.StatusUnauthorized && se.Status != http.StatusForbidden) {
		return err
	}
	switch m.source {
	case sourceURL:
		return fmt.Errorf(`%w; a /metrics URL is scraped without credentials: where the proxy is the target, use the source "target", which sends the run's key to the target's own /metrics`, err)
	case sourceTarget:
		return fmt.Errorf("%w; the proxy refused the run's key (the target's Authorization header): give the key of the proxy, one allowed to read /metrics", err)
	}
	return err
}

// withHeader returns a client like c (nil: the private default) that adds
// h to every request it sends to host, and to no other (a redirect
// elsewhere does not carry the target's credentials).
func withHeader(c *http.Client, host string, h http.Header) *http.Client {
	out := http.Client{Timeout: prom.DefaultTimeout}
	if c != nil {
		out = *c
	}
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = headerTransport{base: base, host: host, header: h}
	return &out
}

// headerTransport adds header to the requests to host.
type headerTransport struct {
	base   http.RoundTripper
	host   string
	header http.Header
}

// RoundTrip implements http.RoundTripper; it clones a request before
// adding the headers, as the interface asks.
func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != t.host {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, vs := range t.header {
		if r.Header.Get(k) == "" {
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
	}
	return t.base.RoundTrip(r)
}

func httpURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("not an http(s) URL")
	}
	return u, nil
}

// Filter returns the meter's label filter in PromQL syntax ("" for none).
func (m *Meter) Filter() string { return filterString(m.filter) }

// filterWords names a filter (a Filter string) in a warning: "filter
// requested_model=\"m\"", or "no label filter: every series" when there is
// none.
func filterWords(f string) string {
	if f == "" {
		return "no label filter: every series"
	}
	return "filter " + f
}

// matchAll reports whether labels satisfy every matcher of ms.
func matchAll(ms []prom.Matcher, labels map[string]string) bool {
	for _, m := range ms {
		if !m.Match(labels) {
			return false
		}
	}
	return true
}

func filterString(ms []prom.Matcher) string {
	parts := make([]string, len(ms))
	for i, x := range ms {
		parts[i] = x.String()
	}
	return strings.Join(parts, ",")
}

// Start opens a window.
func (m *Meter) Start(ctx context.Context) error {
	if m.running {
		return errors.New("litellm: Start called twice without Stop")
	}
	t0 := m.now()
	if err := m.win.Begin(ctx, t0); err != nil {
		return fmt.Errorf("litellm: reading counters at the window's start: %w", m.refused(err))
	}
	m.t0, m.running = t0, true
	return nil
}

// Stop closes the window and returns LiteLLM's accounting of it. An error
// means the counters could not be read; a filter that matches nothing is a
// Reading with Valid false and a WarnNoSeries warning, never zeros.
func (m *Meter) Stop(ctx context.Context) (Reading, error) {
	if !m.running {
		return Reading{}, errors.New("litellm: Stop called without Start")
	}
	m.running = false
	t1 := m.now()
	if err := m.win.End(ctx, t1); err != nil {
		return Reading{}, fmt.Errorf("litellm: reading counters at the window's end: %w", m.refused(err))
	}
	return Read(ctx, m.win, m.filter, m.t0, t1)
}

// Read reads the four counters from a window win already closed by End.
// A requested_model term filters the spend counter only where its series
// carry that label (LiteLLM 1.108.7 does; older releases do not): else
// the term is left out of the spend's filter, with a WarnSpendUnfiltered
// warning.
func Read(ctx context.Context, win prom.Window, filter []prom.Matcher, start, end time.Time) (Reading, error) {
	r := Reading{Via: win.Name(), Filter: filterString(filter), Start: start, End: end, WindowSeconds: end.Sub(start).Seconds()}
	reset := false
	read := func(family string, ms []prom.Matcher) (*float64, error) {
		s, err := win.Increase(ctx, family, ms...)
		if err != nil {
			return nil, fmt.Errorf("litellm: %w", err)
		}
		if len(s) == 0 {
			return nil, nil
		}
		for _, x := range s {
			if x.Reset {
				reset = true
			}
		}
		v := prom.Sum(s)
		return &v, nil
	}
	var err error
	if r.InputTokens, err = read(InputTokens, filter); err != nil {
		return Reading{}, err
	}
	if r.OutputTokens, err = read(OutputTokens, filter); err != nil {
		return Reading{}, err
	}
	if r.TotalTokens, err = read(TotalTokens, filter); err != nil {
		return Reading{}, err
	}
	if r.CachedInputTokens, err = read(CachedInputTokens, filter); err != nil {
		return Reading{}, err
	}
	// The spend counter gained a requested_model label in later releases
	// (LiteLLM 1.108.7 litellm/types/integrations/prometheus.py:597,
	// litellm_spend_metric); older ones lack it. Its series are read
	// without the requested_model terms, which are then applied here
	// when every series carries the label, and dropped (with a warning)
	// when one does not.
	var spendFilter, dropped []prom.Matcher
	for _, m := range filter {
		if m.Label == "requested_model" {
			dropped = append(dropped, m)
			continue
		}
		spendFilter = append(spendFilter, m)
	}
	spend, err := win.Increase(ctx, Spend, spendFilter...)
	if err != nil {
		return Reading{}, fmt.Errorf("litellm: %w", err)
	}
	labelled := true
	for _, x := range spend {
		if _, ok := x.Labels["requested_model"]; !ok {
			labelled = false
		}
	}
	if labelled && len(dropped) > 0 {
		kept := spend[:0:0]
		for _, x := range spend {
			if matchAll(dropped, x.Labels) {
				kept = append(kept, x)
			}
		}
		spend, dropped = kept, nil
	}
	if len(spend) > 0 {
		for _, x := range spend {
			reset = reset || x.Reset
		}
		v := prom.Sum(spend)
		r.Spend = &v
	}
	if r.InputTokens == nil && r.OutputTokens == nil && r.TotalTokens == nil {
		r.Warnings = append(r.Warnings, metrics.Warning{Code: WarnNoSeries, Level: -1,
			Message: fmt.Sprintf("LiteLLM (%s) has no token series matching {%s} over the %.1f s window (looked for %s and %s): no LiteLLM figures for this window; check the filter (requested_model is the model name the client sends) and that the proxy's prometheus callback is on",
				r.Via, r.Filter, r.WindowSeconds, InputTokens, OutputTokens)})
		r.Spend, r.CachedInputTokens = nil, nil
		return r, nil
	}
	if len(dropped) > 0 && r.Spend != nil {
		spendWords := "unfiltered (every series)"
		if f := filterString(spendFilter); f != "" {
			spendWords = "with the filter {" + f + "} only"
		}
		r.Warnings = append(r.Warnings, metrics.Warning{Code: WarnSpendUnfiltered, Level: -1,
			Message: fmt.Sprintf("LiteLLM's spend counter has no requested_model label (LiteLLM releases before it was added): the spend is read %s, not by %s, and may include other models; add model=NAME to the filter",
				spendWords, filterString(dropped))})
	}
	r.Valid = !reset
	if reset {
		r.Warnings = append(r.Warnings, metrics.Warning{Code: WarnCounterReset, Level: -1,
			Message: "a LiteLLM counter went backwards in the window (proxy restart): LiteLLM's figures for this window are lower bounds and not used"})
	}
	return r, nil
}
