package litellm_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/promfake"
	"github.com/gollm-bench/gollm-bench/litellm"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/prom"
)

var (
	t0 = time.Unix(1771322400, 0).UTC()
	t1 = t0.Add(120 * time.Second)
)

const llamaModel = "hosted_vllm/meta-llama/Llama-3.1-70B-Instruct"

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "telemetry", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func edgeClock() func() time.Time {
	var n atomic.Int32
	return func() time.Time {
		if n.Add(1) == 1 {
			return t0
		}
		return t1
	}
}

// scrapes serves the bodies in order at /metrics, then repeats the last.
func scrapes(t *testing.T, bodies ...[]byte) string {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		i := min(int(n.Add(1))-1, len(bodies)-1)
		w.Write(bodies[i])
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func measure(t *testing.T, m *litellm.Meter) litellm.Reading {
	t.Helper()
	ctx := context.Background()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := m.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func has(ws []metrics.Warning, code metrics.WarningCode) bool {
	for _, w := range ws {
		if w.Code == code {
			return true
		}
	}
	return false
}

func eq(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-6 }

func TestFixtureScrape(t *testing.T) {
	url := scrapes(t, fixture(t, "litellm-t0.prom"), fixture(t, "litellm-t1.prom"))
	m, err := litellm.Parse(url+",requested_model=llama-70b", litellm.WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	r := measure(t, m)
	if !r.Valid || r.Via != "scrape" || r.WindowSeconds != 120 {
		t.Fatalf("reading = %+v", r)
	}
	if !eq(r.InputTokens, 1104512) || !eq(r.OutputTokens, 421308) || !eq(r.TotalTokens, 1525820) {
		t.Errorf("tokens in %v out %v total %v", *r.InputTokens, *r.OutputTokens, *r.TotalTokens)
	}
	// The spend counter has no requested_model: it covers both models.
	if !eq(r.Spend, 1.184218+0.0054) || !has(r.Warnings, litellm.WarnSpendUnfiltered) {
		t.Errorf("spend %v, warnings %v", *r.Spend, r.Warnings)
	}

	// Filtering by model as well narrows the spend to the proxy's model.
	url = scrapes(t, fixture(t, "litellm-t0.prom"), fixture(t, "litellm-t1.prom"))
	m, err = litellm.Parse(url+",requested_model=llama-70b,model="+llamaModel, litellm.WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	r = measure(t, m)
	if !eq(r.Spend, 1.184218) || !eq(r.OutputTokens, 421308) {
		t.Errorf("spend %v, output %v", r.Spend, r.OutputTokens)
	}
	if cpm, ok := r.SpendCPM(); !ok || math.Abs(cpm-2.810813) > 5e-7 {
		t.Errorf("spend CPM %v, %v; want 2.810813", cpm, ok)
	}
	// Unfiltered: every model.
	url = scrapes(t, fixture(t, "litellm-t0.prom"), fixture(t, "litellm-t1.prom"))
	m, _ = litellm.Parse(url, litellm.WithClock(edgeClock()))
	if r := measure(t, m); !eq(r.OutputTokens, 421308+6000) || len(r.Warnings) != 0 {
		t.Errorf("unfiltered: %+v", r)
	}
}

func TestPrometheusWindow(t *testing.T) {
	before, _ := prom.ParseText(strings.NewReader(string(fixture(t, "litellm-t0.prom"))))
	after, _ := prom.ParseText(strings.NewReader(string(fixture(t, "litellm-t1.prom"))))
	srv := promfake.New(before, after)
	defer srv.Close()
	m, err := litellm.Parse("prometheus="+srv.URL+",requested_model=~llama.*", litellm.WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	r := measure(t, m)
	if !r.Valid || r.Via != "prometheus" || !eq(r.InputTokens, 1104512) || !eq(r.OutputTokens, 421308) {
		t.Fatalf("reading = %+v", r)
	}
	qs := srv.Queries()
	if len(qs) != 5 { // input, output, total, cached input, spend
		t.Fatalf("%d queries: %+v", len(qs), qs)
	}
	for _, q := range qs {
		if !q.Start().Equal(t0) || !q.Time.Equal(t1) {
			t.Errorf("%s: window %v .. %v", q.Expr, q.Start(), q.Time)
		}
	}
}

// A filter that matches nothing is a warning and no figures, never zeros.
func TestNoSeries(t *testing.T) {
	url := scrapes(t, fixture(t, "litellm-t0.prom"), fixture(t, "litellm-t1.prom"))
	m, _ := litellm.Parse(url+",requested_model=nope", litellm.WithClock(edgeClock()))
	r := measure(t, m)
	if r.Valid || r.InputTokens != nil || r.Spend != nil || !has(r.Warnings, litellm.WarnNoSeries) || !strings.Contains(r.Warnings[0].Message, `requested_model="nope"`) {
		t.Errorf("reading = %+v", r)
	}
	if _, ok := r.SpendCPM(); ok {
		t.Error("no CPM without a reading")
	}
	if ws := litellm.CrossCheck(r, litellm.Ended{InputTokens: 10, OutputTokens: 10}); len(ws) != 0 {
		t.Errorf("an invalid reading is not cross-checked: %v", ws)
	}
}

func TestCrossCheck(t *testing.T) {
	in, out := 1104512.0, 421308.0
	r := litellm.Reading{Valid: true, InputTokens: &in, OutputTokens: &out}
	if ws := litellm.CrossCheck(r, litellm.Ended{InputTokens: 1104512, OutputTokens: 421308}); len(ws) != 0 {
		t.Errorf("equal counts warned: %v", ws)
	}
	if ws := litellm.CrossCheck(r, litellm.Ended{InputTokens: int64(in / 1.009), OutputTokens: 421308}); len(ws) != 0 {
		t.Errorf("0.9 %% apart warned: %v", ws)
	}
	ws := litellm.CrossCheck(r, litellm.Ended{InputTokens: 1104512, OutputTokens: int64(out / 1.02)})
	if len(ws) != 1 || ws[0].Code != litellm.WarnTokenMismatch || !strings.Contains(ws[0].Message, "output") {
		t.Errorf("2 %% apart: %v", ws)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"", "want 'target'"},
		{"litellm:4000", "want 'target'"},
		{"prometheus=prom:9090", "prometheus="},
		{"target", "no target URL"},
		{"http://litellm:4000,requested_model", "label=value"},
		{"http://litellm:4000,model=~(", "missing closing"},
	} {
		_, err := litellm.Parse(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "LiteLLM metrics") {
			t.Errorf("%q: %v, want an error naming the LiteLLM metrics with %q", tc.spec, err, tc.want)
		}
	}
	if _, err := litellm.Parse("target", litellm.WithTarget("http://127.0.0.1:4000/v1")); err != nil {
		t.Error(err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("target,requested_model=llama-70b")
	f.Add("prometheus=http://p:9090,model=~gpt.*")
	f.Fuzz(func(t *testing.T, spec string) {
		_, err := litellm.Parse(spec, litellm.WithTarget("http://127.0.0.1:4000"))
		if err != nil && !strings.Contains(err.Error(), "LiteLLM metrics") {
			t.Fatalf("error does not name the LiteLLM metrics: %v", err)
		}
	})
}

// TestCrossCheckNamesFilter: without a label filter the warning read
// "LiteLLM counted 640 output tokens in the window (), ...": it must say
// there was no filter, and name the filter when there is one.
func TestCrossCheckNamesFilter(t *testing.T) {
	out := 640.0
	for _, tc := range []struct{ filter, want string }{
		{"", "in the window (no label filter: every series)"},
		{`requested_model="m"`, `in the window (filter requested_model="m")`},
	} {
		r := litellm.Reading{Valid: true, OutputTokens: &out, Filter: tc.filter}
		ws := litellm.CrossCheck(r, litellm.Ended{OutputTokens: 600})
		if len(ws) != 1 || !strings.Contains(ws[0].Message, tc.want) || strings.Contains(ws[0].Message, "()") {
			t.Errorf("filter %q: %v, want a message with %q", tc.filter, ws, tc.want)
		}
	}
}

// The real thing: /metrics of a LiteLLM 1.108.7 proxy (prometheus callback
// on) before and after gollm-bench sent it 81 requests
// (testdata/telemetry/README.md). Its spend counter carries
// requested_model, so the filter applies to it with no warning; the
// deltas are exactly what the proxy's own spend log holds for the same
// requests.
func TestRealProxy1087(t *testing.T) {
	url := scrapes(t, fixture(t, "litellm-1.108.7-t0.prom"), fixture(t, "litellm-1.108.7-t1.prom"))
	m, err := litellm.Parse(url+",requested_model=tiny-qwen3", litellm.WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	r := measure(t, m)
	if !r.Valid || len(r.Warnings) != 0 {
		t.Fatalf("reading %+v", r)
	}
	// The proxy's own record of each request (its callback,
	// bench/litellm_spend_log.py), summed.
	var in, cached, out, spend float64
	var n int
	for _, line := range strings.Split(strings.TrimSpace(string(fixture(t, "litellm-1.108.7-spend.jsonl"))), "\n") {
		var row struct {
			Prompt       float64 `json:"prompt_tokens"`
			Cached       float64 `json:"cached_tokens"`
			Completion   float64 `json:"completion_tokens"`
			ResponseCost float64 `json:"response_cost"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		in, cached, out, spend, n = in+row.Prompt, cached+row.Cached, out+row.Completion, spend+row.ResponseCost, n+1
	}
	if n != 81 || in != 10368 || cached != 175 || out != 5184 {
		t.Fatalf("spend log: %d requests, %v input (%v cached), %v output", n, in, cached, out)
	}
	if !eq(r.InputTokens, in) || !eq(r.OutputTokens, out) || !eq(r.TotalTokens, in+out) || !eq(r.CachedInputTokens, cached) {
		t.Errorf("tokens: input %v, cached %v, output %v, total %v; the proxy's log: %v, %v, %v", *r.InputTokens, r.CachedInputTokens, *r.OutputTokens, *r.TotalTokens, in, cached, out)
	}
	// The prices: 0.50, 1.50 and 0.10 per 1M input, output and cached
	// input tokens.
	want := ((in-cached)*0.5 + cached*0.1 + out*1.5) / 1e6
	if r.Spend == nil || math.Abs(*r.Spend-spend) > 1e-12 || math.Abs(spend-want) > 1e-12 {
		t.Errorf("spend %v, the proxy's log %v, by the prices %v", r.Spend, spend, want)
	}
	// Another requested model: no series, no figures.
	m, _ = litellm.Parse(url+",requested_model=other", litellm.WithClock(edgeClock()))
	if r := measure(t, m); r.Valid || r.Spend != nil || !has(r.Warnings, litellm.WarnNoSeries) {
		t.Errorf("other model: %+v", r)
	}
}

// The spend counter of older releases has no requested_model label: the
// term is left out of its filter, with a warning, and a series set that
// mixes both is treated as the older kind.
func TestSpendWithoutRequestedModel(t *testing.T) {
	url := scrapes(t, fixture(t, "litellm-t0.prom"), fixture(t, "litellm-t1.prom"))
	m, _ := litellm.Parse(url+",requested_model=llama-70b", litellm.WithClock(edgeClock()))
	r := measure(t, m)
	if !has(r.Warnings, litellm.WarnSpendUnfiltered) || r.Spend == nil || math.Abs(*r.Spend-(1.184218+0.0054)) > 1e-9 {
		t.Errorf("older proxy: spend %v, warnings %+v", r.Spend, r.Warnings)
	}
}

// LiteLLM 1.108.7 serves /metrics only with a key by default
// (litellm_settings.require_auth_for_metrics_endpoint) and redirects
// /metrics to /metrics/: the source "target" sends the target's
// credentials (WithTargetHeader), to the target's host only; a /metrics
// URL source sends none.
func TestTargetCredentials(t *testing.T) {
	bodies := [][]byte{fixture(t, "litellm-1.108.7-t0.prom"), fixture(t, "litellm-1.108.7-t1.prom")}
	var n atomic.Int32
	var unauthorized atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			http.Redirect(w, r, "/metrics/", http.StatusTemporaryRedirect)
		case "/metrics/":
			if r.Header.Get("Authorization") != "Bearer sk-test" {
				unauthorized.Add(1)
				http.Error(w, `"Unauthorized access to metrics endpoint: No module named 'prisma' To allow unauthenticated access, set `+"`litellm_settings.require_auth_for_metrics_endpoint: false`"+` in your proxy_config.yaml."`, http.StatusUnauthorized)
				return
			}
			w.Write(bodies[min(int(n.Add(1))-1, 1)])
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	h := http.Header{}
	h.Set("Authorization", "Bearer sk-test")
	m, err := litellm.Parse("target,requested_model=tiny-qwen3", litellm.WithTarget(srv.URL+"/v1"), litellm.WithTargetHeader(h), litellm.WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	if r := measure(t, m); !eq(r.OutputTokens, 5184) || unauthorized.Load() != 0 {
		t.Errorf("target with the key: %+v, %d refused", r, unauthorized.Load())
	}
	// A URL source is not the target: no credentials, and the proxy's
	// refusal is the error.
	m, _ = litellm.Parse(srv.URL+"/metrics", litellm.WithTargetHeader(h))
	if err := m.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("URL source: %v, want the 401", err)
	}
}

// A review against a default LiteLLM 1.108.7 proxy: a /metrics URL source
// (which sends no key, by design) always got the 401 with LiteLLM's own
// advice (require_auth_for_metrics_endpoint: false) and nothing about the
// source "target"; the source "target" with a wrong key got the same text.
// Each now says what to do.
func TestRefusedScrapeAdvice(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-admin" {
			http.Error(w, `"Unauthorized access to metrics endpoint: set `+"`litellm_settings.require_auth_for_metrics_endpoint: false`"+`"`, http.StatusUnauthorized)
			return
		}
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	defer srv.Close()
	for _, tc := range []struct{ spec, key, want string }{
		{srv.URL + "/metrics", "sk-admin", `HTTP 401: "Unauthorized access to metrics endpoint: set ` + "`litellm_settings.require_auth_for_metrics_endpoint: false`" + `"; a /metrics URL is scraped without credentials: where the proxy is the target, use the source "target", which sends the run's key to the target's own /metrics`},
		{"target", "sk-user", "HTTP 401: \"Unauthorized access to metrics endpoint: set `litellm_settings.require_auth_for_metrics_endpoint: false`\"; the proxy refused the run's key"},
		{"target", "sk-admin", "HTTP 403: forbidden; the proxy refused the run's key"},
	} {
		h := http.Header{}
		h.Set("Authorization", "Bearer "+tc.key)
		m, err := litellm.Parse(tc.spec, litellm.WithTarget(srv.URL+"/v1"), litellm.WithTargetHeader(h))
		if err != nil {
			t.Fatal(err)
		}
		if err = m.Start(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with %s:\n got %v\nwant %q", tc.spec, tc.key, err, tc.want)
		}
	}
}

// The tolerance is the larger of 1 % and the tokens of the requests that
// can straddle the window's edges: the mean in flight rounded up, at least
// 2, at the client's mean tokens per request.
func TestCrossCheckEdgeRequests(t *testing.T) {
	for _, tc := range []struct {
		name     string
		theirs   float64
		e        litellm.Ended
		mismatch bool
	}{
		{"one request of 52 at concurrency 1: two edges", 53 * 64, litellm.Ended{Requests: 52, OutputTokens: 52 * 64, InFlight: 1}, false},
		{"three requests of 52 at concurrency 1", 55 * 64, litellm.Ended{Requests: 52, OutputTokens: 52 * 64, InFlight: 1}, true},
		{"four of 52 at a mean 3.2 in flight", 48 * 64, litellm.Ended{Requests: 52, OutputTokens: 52 * 64, InFlight: 3.2}, false},
		{"five of 52 at a mean 3.2 in flight", 47 * 64, litellm.Ended{Requests: 52, OutputTokens: 52 * 64, InFlight: 3.2}, true},
		{"0.9 % of 10,000 at 64 in flight: the 1 % is larger", 10090 * 64, litellm.Ended{Requests: 10000, OutputTokens: 10000 * 64, InFlight: 64}, false},
		{"no request count: 1 %", 1.02 * 6400, litellm.Ended{OutputTokens: 6400}, true},
	} {
		r := litellm.Reading{Valid: true, OutputTokens: &tc.theirs}
		if ws := litellm.CrossCheck(r, tc.e); (len(ws) == 1) != tc.mismatch {
			t.Errorf("%s: %v", tc.name, ws)
		}
	}
}
