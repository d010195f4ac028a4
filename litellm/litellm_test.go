package litellm_test

import (
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
	if len(qs) != 4 {
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
	if ws := litellm.CrossCheck(r, 10, 10); len(ws) != 0 {
		t.Errorf("an invalid reading is not cross-checked: %v", ws)
	}
}

func TestCrossCheck(t *testing.T) {
	in, out := 1104512.0, 421308.0
	r := litellm.Reading{Valid: true, InputTokens: &in, OutputTokens: &out}
	if ws := litellm.CrossCheck(r, 1104512, 421308); len(ws) != 0 {
		t.Errorf("equal counts warned: %v", ws)
	}
	if ws := litellm.CrossCheck(r, int64(in/1.009), 421308); len(ws) != 0 {
		t.Errorf("0.9 %% apart warned: %v", ws)
	}
	ws := litellm.CrossCheck(r, 1104512, int64(out/1.02))
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
		ws := litellm.CrossCheck(r, 0, 600)
		if len(ws) != 1 || !strings.Contains(ws[0].Message, tc.want) || strings.Contains(ws[0].Message, "()") {
			t.Errorf("filter %q: %v, want a message with %q", tc.filter, ws, tc.want)
		}
	}
}
