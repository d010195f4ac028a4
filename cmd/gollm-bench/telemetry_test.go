package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// fastServer starts the fixed-latency mock and returns it with its URL.
func fastServer(t *testing.T) (*mockserver.Server, string) {
	t.Helper()
	cfg, err := mockserver.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	s, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts.URL
}

// fakeLiteLLM serves a LiteLLM proxy's /metrics for the requests the mock
// has completed: like LiteLLM, it counts a request when it ends. Every
// request of these tests has 8 prompt and 4 output tokens; skew scales
// both counts (1.02: a 2 % disagreement).
func fakeLiteLLM(t *testing.T, s *mockserver.Server, skew float64) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := s.Stats()
		done := float64(st.SuccessLength + st.SuccessStop)
		in, out := 8*done*skew, 4*done*skew
		labels := `end_user="None",hashed_api_key="x",api_key_alias="bench",requested_model="mock-model",team="None",team_alias="None",user="u",model="hosted_vllm/mock-model"`
		spendLabels := `end_user="None",hashed_api_key="x",api_key_alias="bench",model="hosted_vllm/mock-model",team="None",team_alias="None",user="u"`
		for _, f := range []struct {
			name, labels string
			v            float64
		}{
			{"litellm_input_tokens_metric_total", labels, in},
			{"litellm_output_tokens_metric_total", labels, out},
			{"litellm_total_tokens_metric_total", labels, in + out},
			{"litellm_spend_metric_total", spendLabels, (in*0.5 + out*1.5) / 1e6},
		} {
			fmt.Fprintf(w, "# HELP %s x\n# TYPE %s counter\n%s{%s} %v\n", f.name, f.name, f.name, f.labels, f.v)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// keplerScrapes serves Kepler's exporter: the t0 reading, then t1.
func keplerScrapes(t *testing.T) string {
	t.Helper()
	var bodies [][]byte
	for _, name := range []string{"kepler-v0.11-t0.prom", "kepler-v0.11-t1.prom"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "telemetry", name))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	var n atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bodies[min(int(n.Add(1))-1, 1)])
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

func levelWarning(run results.Run, code metrics.WarningCode) *metrics.Warning {
	for _, lv := range run.Result.Levels {
		for _, w := range lv.Summary.Warnings {
			if w.Code == code {
				return &w
			}
		}
	}
	return nil
}

// --price on the mock: 20 requests of 8 prompt tokens (3 of them cached,
// the mock's cached-tokens fault) and 4 output tokens, at 0.50, 1.50 and
// 0.10 EUR per 1M input, output and cached input tokens. By hand, one
// request costs (5 × 0.50 + 3 × 0.10 + 4 × 1.50) / 1e6 = 8.8e-6 EUR; the
// window 20 × 8.8e-6 = 1.76e-4 EUR; per 1M output tokens 1.76e-4 × 1e6 / 80
// = 2.2 EUR (input 0.625 + cached 0.075 + output 1.5); per 1M tokens of any
// type 1.76e-4 × 1e6 / 240 = 0.7333 EUR.
func TestPriceByTokenTypeOnMock(t *testing.T) {
	t.Parallel()
	_, url := fastServer(t)
	dir := t.TempDir()
	code, stdout, stderr := cli(t, context.Background(), "run", "--target", url, "--profile", "concurrent", "--rate", "2", "--max-requests", "20",
		"--data", "prompt_tokens=8,output_tokens=4", "--energy", "none", "--output-dir", dir, "--run-id", "price",
		"--header", mockserver.FaultHeader+"=cached-tokens=3,response-cost=0.0000088", "--warmup", "0", "--cooldown", "0", "--max-lag", lenientLag,
		"--price", "input=0.50,output=1.50,cached_input=0.10")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	sc, err := scorecard.Read(filepath.Join(dir, "price"))
	if err != nil {
		t.Fatal(err)
	}
	c := sc.Cost.Tokens
	if c == nil {
		t.Fatalf("no cost by token type: %+v", sc.Cost)
	}
	if c.InputTokens != 160 || c.CachedInputTokens != 60 || c.OutputTokens != 80 {
		t.Errorf("tokens in %d cached %d out %d, want 160, 60, 80", c.InputTokens, c.CachedInputTokens, c.OutputTokens)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*want }
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"window EUR", c.WindowEUR, 20 * 8.8e-6}, {"input EUR", c.InputEUR, 100 * 0.5e-6}, {"cached EUR", c.CachedInputEUR, 60 * 0.1e-6},
		{"output EUR", c.OutputEUR, 80 * 1.5e-6}, {"CPM", *c.CPMEUR1M, 2.2}, {"CPM input", c.CPMByType.Input, 0.625},
		{"CPM cached", c.CPMByType.CachedInput, 0.075}, {"CPM output", c.CPMByType.Output, 1.5},
		{"blended", *c.BlendedEUR1M, 176.0 / 240}, {"per request", *c.CostPerRequestEUR, 8.8e-6},
	} {
		if !near(f.got, f.want) {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	if c.CPMEUR1MCI == nil || !c.CPMEUR1MCI.Contains(2.2) {
		t.Errorf("CPM interval %v", c.CPMEUR1MCI)
	}
	// Each record carries its cached tokens and the proxy's cost.
	f, err := os.Open(filepath.Join(dir, "price", results.RequestsJSONL))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := loadgen.NewDecoder(f)
	n := 0
	for {
		var r loadgen.Record
		if err := dec.Decode(&r); err != nil {
			break
		}
		n++
		if r.Status == loadgen.StatusOK && (r.CachedPromptTokens() != 3 || r.ResponseCost == nil || *r.ResponseCost != 8.8e-6) {
			t.Fatalf("record %d: cached %d, response cost %v", r.Seq, r.CachedPromptTokens(), r.ResponseCost)
		}
	}
	if n != 20 {
		t.Errorf("%d records, want 20", n)
	}
	// aggregate --cost-basis tokens adds the basis and its CPM.
	code, stdout, stderr = cli(t, context.Background(), "aggregate", dir, "-o", "-", "--cost-basis", "tokens")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitcode.OK || len(lines) != 2 || !strings.Contains(lines[0], ",cost_basis,cpm_1m") || !strings.Contains(lines[1], ",tokens,2.2") {
		t.Errorf("aggregate: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// With a LiteLLM exporter whose counts equal the client's, no warning; with
// 25 % more (5 requests of 20, more than the 2 in flight at an edge that
// the cross-check tolerates), litellm_token_mismatch. Kepler's pod energy (the fixture pair,
// no GPU counter: --energy none) gives the scorecard's Wh/token, on the
// pod basis, and the reference's factor-2 check flags it.
func TestLiteLLMAndPodEnergyOnMock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		skew     float64
		mismatch bool
	}{{"equal", 1, false}, {"25 % more", 1.25, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, url := fastServer(t)
			lite := fakeLiteLLM(t, s, tc.skew)
			dir := t.TempDir()
			code, stdout, stderr := cli(t, context.Background(), "run", "--target", url, "--profile", "concurrent", "--rate", "2", "--max-requests", "20",
				"--data", "prompt_tokens=8,output_tokens=4", "--energy", "none", "--output-dir", dir, "--run-id", "lite",
				"--warmup", "0", "--cooldown", "0", "--max-lag", lenientLag,
				"--litellm-metrics", lite+",requested_model=mock-model,model=hosted_vllm/mock-model",
				"--pod-energy", "kepler="+keplerScrapes(t)+",namespace=inference",
				"--reference", "wh_per_token=0.00044,source=a made-up reference, for the test")
			if code != exitcode.OK {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			run, err := results.Read(filepath.Join(dir, "lite"))
			if err != nil {
				t.Fatal(err)
			}
			if w := levelWarning(run, "litellm_token_mismatch"); (w != nil) != tc.mismatch {
				t.Errorf("litellm_token_mismatch %v, want %v", w, tc.mismatch)
			}
			sc, err := scorecard.Read(filepath.Join(dir, "lite"))
			if err != nil {
				t.Fatal(err)
			}
			l := sc.Cost.LiteLLM
			if l == nil || l.InputTokens == nil || *l.InputTokens != 160*tc.skew || *l.OutputTokens != 80*tc.skew || l.CPM1M == nil {
				t.Fatalf("litellm cost %+v", l)
			}
			if want := (0.5*160 + 1.5*80) / 80.0; math.Abs(*l.CPM1M-want) > 1e-9 {
				t.Errorf("LiteLLM CPM %v, want %v", *l.CPM1M, want)
			}
			e := sc.Energy
			if e.Pod == nil || !e.Pod.Valid || math.Abs(*e.Pod.EnergyJ-325147.666) > 1e-6 || e.WhPerTokenBasis != scorecard.BasisPod || e.Source != "kepler" {
				t.Fatalf("energy %+v, pod %+v", e, e.Pod)
			}
			if e.Plausibility == nil || e.Plausibility.Verdict != scorecard.VerdictImplausible ||
				!slices.ContainsFunc(sc.Warnings, func(w metrics.Warning) bool { return w.Code == scorecard.WarnImplausibleEnergy }) {
				t.Errorf("plausibility %+v", e.Plausibility)
			}
		})
	}
}

// A LiteLLM proxy as version 1.108.7 behaves by default, in front of the
// mock: /metrics answers 401 without the proxy's key, and a stream's cost
// comes in its usage object, not in a header. --litellm-metrics target
// sends the run's --api-key to /metrics, and each record keeps its
// response's cost.
func TestLiteLLMProxyBehindItsKey(t *testing.T) {
	t.Parallel()
	s, url := fastServer(t)
	lite := fakeLiteLLM(t, s, 1)
	var refused atomic.Int64
	mock, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	upstream := httputil.NewSingleHostReverseProxy(mock)
	upstream.FlushInterval = -1
	// Its own transport: the parallel tests' httptest servers close
	// http.DefaultTransport's idle connections as they shut down, which
	// can close one just taken for a request (seen: "unexpected EOF" on
	// one record in about thirty runs).
	own := &http.Transport{}
	t.Cleanup(own.CloseIdleConnections)
	upstream.Transport = own
	scrape := &http.Client{Transport: own}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-proxy-key" {
			refused.Add(1)
			http.Error(w, `{"error":"Authentication Error, No api key passed in."}`, http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/metrics" {
			upstream.ServeHTTP(w, r)
			return
		}
		resp, err := scrape.Get(lite)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(front.Close)
	dir := t.TempDir()
	code, stdout, stderr := cli(t, context.Background(), "run", "--target", front.URL+"/v1", "--api-key", "sk-proxy-key",
		"--profile", "concurrent", "--rate", "2", "--max-requests", "20", "--data", "prompt_tokens=8,output_tokens=4", "--energy", "none",
		"--output-dir", dir, "--run-id", "lite", "--warmup", "0", "--cooldown", "0", "--max-lag", lenientLag,
		"--header", mockserver.FaultHeader+"=usage-cost=0.0000088", "--litellm-metrics", "target,requested_model=mock-model")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "lite"))
	if err != nil {
		t.Fatal(err)
	}
	if refused.Load() != 0 || levelWarning(run, "litellm_failed") != nil {
		t.Fatalf("%d requests refused; litellm_failed %v", refused.Load(), levelWarning(run, "litellm_failed"))
	}
	// The key reached /metrics: a valid reading. Its count is the mock's
	// finished requests when the window closed, which the last one or two
	// may not have reached yet on a loaded machine (76 of 80 was seen), so
	// the test asks for a count, not for all 80.
	if l := run.Telemetry; len(l) == 0 || l[0].LiteLLM == nil || !l[0].LiteLLM.Valid || l[0].LiteLLM.OutputTokens == nil ||
		*l[0].LiteLLM.OutputTokens < 40 || *l[0].LiteLLM.OutputTokens > 80 {
		t.Fatalf("litellm reading %+v", l)
	}
	f, err := os.Open(filepath.Join(dir, "lite", "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := loadgen.NewDecoder(f)
	// About one run in fifteen, under parallel tests, the test's reverse
	// proxy loses one stream from the mock ("use of closed network
	// connection" on its upstream read; not understood, the product's
	// client is not in that connection) and the record is, rightly, an
	// error with no cost: the check is on the records that succeeded.
	n, ok := 0, 0
	for {
		var r loadgen.Record
		if err := dec.Decode(&r); err != nil {
			break
		}
		n++
		if r.Status != loadgen.StatusOK {
			continue
		}
		ok++
		if r.ResponseCost == nil || *r.ResponseCost != 8.8e-6 {
			t.Fatalf("record %d (%s %q, %d tokens): response cost %v, want the usage object's 8.8e-6", r.Seq, r.Status, r.ErrorMessage, r.OutputTokens, r.ResponseCost)
		}
	}
	if n != 20 || ok < 18 {
		t.Errorf("%d records, %d ok; want 20, at least 18 ok", n, ok)
	}
}

// A review against a default LiteLLM 1.108.7 proxy: its /metrics answers
// 401 without the proxy's key. A /metrics URL source sends none (by
// design), and the warning quoted only LiteLLM's own advice; with target
// and a key the proxy refuses, the same. Each now says what to do, in the
// flags' words.
func TestLiteLLMMetricsRefused(t *testing.T) {
	t.Parallel()
	_, url := fastServer(t)
	mock, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	upstream := httputil.NewSingleHostReverseProxy(mock)
	upstream.FlushInterval = -1
	// Its own transport: the parallel tests' httptest servers close
	// http.DefaultTransport's idle connections as they shut down, which
	// can close one just taken for a request (seen: "unexpected EOF" on
	// one record in about thirty runs).
	own := &http.Transport{}
	t.Cleanup(own.CloseIdleConnections)
	upstream.Transport = own
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			upstream.ServeHTTP(w, r)
			return
		}
		http.Error(w, `"Unauthorized access to metrics endpoint: To allow unauthenticated access, set `+"`litellm_settings.require_auth_for_metrics_endpoint: false`"+` in your proxy_config.yaml."`, http.StatusUnauthorized)
	}))
	t.Cleanup(front.Close)
	for _, tc := range []struct{ source, want string }{
		{front.URL + "/metrics", "use --litellm-metrics target, which sends the run's key to the target's own /metrics"},
		{"target", "the proxy refused the run's key (--api-key, $OPENAI_API_KEY or an Authorization --header)"},
	} {
		dir := t.TempDir()
		code, stdout, stderr := cli(t, context.Background(), "run", "--target", front.URL+"/v1", "--api-key", "sk-user",
			"--profile", "concurrent", "--rate", "1", "--max-requests", "4", "--data", "prompt_tokens=8,output_tokens=4", "--energy", "none",
			"--output-dir", dir, "--run-id", "lite", "--warmup", "0", "--cooldown", "0", "--max-lag", lenientLag,
			"--litellm-metrics", tc.source)
		if code != exitcode.OK {
			t.Fatalf("%s: exit %d\n%s\n%s", tc.source, code, stdout, stderr)
		}
		run, err := results.Read(filepath.Join(dir, "lite"))
		if err != nil {
			t.Fatal(err)
		}
		w := levelWarning(run, "litellm_failed")
		if w == nil || !strings.Contains(w.Message, "HTTP 401") || !strings.Contains(w.Message, tc.want) {
			t.Errorf("%s: litellm_failed %+v, want %q", tc.source, w, tc.want)
		}
	}
}

// Malformed --price, --reference and exporter URLs exit 2 naming the flag,
// before any request.
func TestTelemetryFlagsRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no request should reach the target", http.StatusTeapot)
	}))
	t.Cleanup(ts.Close)
	run := func(args ...string) []string {
		return append([]string{"run", "--target", ts.URL, "--energy", "none", "--profile", "constant", "--rate", "1", "--max-seconds", "1"}, args...)
	}
	missing := filepath.Join(t.TempDir(), "nope.txt")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"price not a number", run("--price", "input=cheap,output=1.5"), []string{"--price", `input="cheap"`}},
		{"price without output", run("--price", "input=0.5"), []string{"--price", "output= is required"}},
		{"price of an unknown type", run("--price", "input=0.5,output=1,reasoning=2"), []string{"--price", `"reasoning" is not a token type`}},
		{"price of a misspelled type", run("--price", "input=0.50,ouput=1.50"), []string{"--price", `"ouput" is not a token type (did you mean output?)`}},
		{"reference without source", run("--reference", "wh_per_token=0.00044"), []string{"--reference", "source= is required"}},
		{"reference negative", run("--reference", "wh_per_token=-1,source=x"), []string{"--reference", "want a number > 0"}},
		{"reference file missing", run("--reference", "@"+missing), []string{"--reference @" + missing}},
		{"pod-energy URL without scheme", run("--pod-energy", "prometheus=prom:9090,namespace=inference"), []string{"--pod-energy", "http(s) URL"}},
		{"pod-energy without namespace", run("--pod-energy", "prometheus=http://127.0.0.1:9090"), []string{"--pod-energy", "namespace=NS is required"}},
		{"pod-energy unknown source", run("--pod-energy", "dcgm=http://127.0.0.1:9400,namespace=a"), []string{"--pod-energy", "prometheus=URL or kepler=URL"}},
		{"litellm URL without scheme", run("--litellm-metrics", "litellm:4000/metrics"), []string{"--litellm-metrics", "'target'"}},
		{"litellm prometheus URL", run("--litellm-metrics", "prometheus=::::"), []string{"--litellm-metrics: ", `prometheus="::::": want an http(s) URL`}},
		{"litellm bad filter", run("--litellm-metrics", "target,requested_model"), []string{"--litellm-metrics", "label=value"}},
		{"aggregate cost basis", []string{"aggregate", t.TempDir(), "--cost-basis", "usd"}, []string{"--cost-basis", "gpu_hour"}},
		{"pareto cost basis", []string{"pareto", t.TempDir(), "--cost-basis", "usd"}, []string{"--cost-basis", "gpu_hour"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := tc.args
			if args[0] == "run" {
				args = append(args, "--output-dir", out)
			}
			before := hits.Load()
			code, stdout, stderr := cli(t, context.Background(), args...)
			if code != exitcode.Usage {
				t.Errorf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if hits.Load() != before {
				t.Error("the target got requests before the refusal")
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("the output folder was created")
			}
		})
	}
}
