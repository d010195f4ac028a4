package prom_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/promfake"
	"github.com/gollm-bench/gollm-bench/prom"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "telemetry", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t testing.TB, text string) prom.Snapshot {
	t.Helper()
	s, err := prom.ParseText(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The window of the fixtures: 2026-02-17T10:00:00Z to 10:02:00Z.
var (
	t0 = time.Unix(1771322400, 0).UTC()
	t1 = time.Unix(1771322520, 0).UTC()
)

func TestIncreaseQueryAlignment(t *testing.T) {
	tests := []struct {
		name       string
		start, end time.Time
		want, at   string
	}{
		{"whole seconds", t0, t1, `increase(x_total{a="b"}[120000ms])`, "1771322520.000"},
		{"fractions kept to the ms", t0.Add(250 * time.Millisecond), t1.Add(750*time.Millisecond + 999*time.Microsecond), `increase(x_total{a="b"}[120500ms])`, "1771322520.750"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, at, err := prom.IncreaseQuery("x_total", []prom.Matcher{prom.Eq("a", "b")}, tc.start, tc.end)
			if err != nil {
				t.Fatal(err)
			}
			if q != tc.want || prom.FormatTime(at) != tc.at {
				t.Errorf("got %s at %s, want %s at %s", q, prom.FormatTime(at), tc.want, tc.at)
			}
		})
	}
	if _, _, err := prom.IncreaseQuery("x", nil, t1, t1); err == nil {
		t.Error("an empty window must be an error")
	}
}

// The query a Prometheus window sends starts at the window's start and
// ends at its end, to the second (here, to the millisecond).
func TestPrometheusWindowEdges(t *testing.T) {
	before := parse(t, "# TYPE j_total counter\nj_total{pod=\"a\"} 100\nj_total{pod=\"b\"} 5\n")
	after := parse(t, "# TYPE j_total counter\nj_total{pod=\"a\"} 160.5\nj_total{pod=\"b\"} 9\n")
	srv := promfake.New(before, after)
	defer srv.Close()
	w := prom.NewQueryWindow(prom.NewAPI(srv.URL+"/", nil))
	ctx := context.Background()
	if _, err := w.Increase(ctx, "j_total"); err == nil {
		t.Error("Increase before End must fail")
	}
	start, end := t0.Add(400*time.Millisecond), t1.Add(400*time.Millisecond)
	if err := w.Begin(ctx, start); err != nil {
		t.Fatal(err)
	}
	if err := w.End(ctx, end); err != nil {
		t.Fatal(err)
	}
	got, err := w.Increase(ctx, "j_total", prom.Eq("pod", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Increase != 60.5 {
		t.Errorf("increase = %+v, want one series of 60.5", got)
	}
	qs := srv.Queries()
	if len(qs) != 1 {
		t.Fatalf("queries = %+v", qs)
	}
	q := qs[0]
	if !q.Start().Equal(start) || !q.Time.Equal(end) {
		t.Errorf("query window %v .. %v, want %v .. %v", q.Start(), q.Time, start, end)
	}
	if q.Start().Unix() != start.Unix() || q.Time.Unix() != end.Unix() {
		t.Errorf("query window not aligned to the second: %v .. %v", q.Start(), q.Time)
	}
	// No matching series: an empty answer, not a zero.
	got, err = w.Increase(ctx, "j_total", prom.Eq("pod", "c"))
	if err != nil || len(got) != 0 {
		t.Errorf("no match: %+v, %v", got, err)
	}
	// An API error is an *APIError.
	_, err = w.Increase(ctx, "bad name")
	var api *prom.APIError
	if !errors.As(err, &api) || api.Type != "bad_data" {
		t.Errorf("bad query: %v", err)
	}
}

func TestScrapeWindow(t *testing.T) {
	body := "# TYPE c_total counter\nc_total{m=\"x\"} 10\n"
	srv := newText(t, &body)
	w := prom.NewScrapeWindow(srv, nil)
	ctx := context.Background()
	if err := w.Begin(ctx, t0); err != nil {
		t.Fatal(err)
	}
	body = "# TYPE c_total counter\nc_total{m=\"x\"} 25\nc_total{m=\"y\"} 7\n"
	if err := w.End(ctx, t1); err != nil {
		t.Fatal(err)
	}
	got, err := w.Increase(ctx, "c_total")
	if err != nil {
		t.Fatal(err)
	}
	if prom.Sum(got) != 15+7 {
		t.Errorf("increase = %+v, want 15 (x) + 7 (y, new in the window)", got)
	}
}

func TestDiff(t *testing.T) {
	before := parse(t, "# TYPE c counter\nc{a=\"1\"} 50\nc{a=\"2\"} 10\nc{a=\"3\"} 1\n")
	after := parse(t, "# TYPE c counter\nc{a=\"1\"} 75\nc{a=\"2\"} 4\nc{a=\"4\"} 2\n")
	got := prom.Diff(before, after, "c")
	want := map[string]prom.Series{
		"1": {Increase: 25},
		"2": {Increase: 4, Reset: true},
		"4": {Increase: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for _, s := range got {
		w := want[s.Labels["a"]]
		if s.Increase != w.Increase || s.Reset != w.Reset {
			t.Errorf("series a=%s: %+v, want %+v", s.Labels["a"], s, w)
		}
	}
	re := prom.Diff(before, after, "c", prom.Matcher{Label: "a", Value: "1|4", Regex: true})
	if prom.Sum(re) != 27 {
		t.Errorf("regex matcher: %+v", re)
	}
}

func TestDecodeQueryFixtures(t *testing.T) {
	res, err := prom.DecodeQuery(fixture(t, "prom-query-energy-increase.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 || prom.Sum(toSeries(res)) != 333637666 {
		t.Errorf("energy increase: %d series, sum %v mJ, want 4 and 333637666", len(res), prom.Sum(toSeries(res)))
	}
	_, err = prom.DecodeQuery(fixture(t, "prom-error-bad-data.json"))
	var api *prom.APIError
	if !errors.As(err, &api) || api.Type != "bad_data" {
		t.Errorf("error envelope: %v", err)
	}
	if _, err := prom.DecodeQuery(fixture(t, "prom-query-range-total-power.json")); err == nil || !strings.Contains(err.Error(), "matrix") {
		t.Errorf("a matrix must be refused: %v", err)
	}
}

func toSeries(s []prom.Sample) []prom.Series {
	out := make([]prom.Series, len(s))
	for i, x := range s {
		out[i] = prom.Series{Labels: x.Labels, Increase: x.Value}
	}
	return out
}

func TestParseMatcher(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  string
	}{
		{"pod_namespace=inference", `pod_namespace="inference"`, ""},
		{" pod_name =~ vllm-.* ", `pod_name=~"vllm-.*"`, ""},
		{`model=a"b`, `model="a\"b"`, ""},
		{"novalue=", "", "empty"},
		{"9bad=x", "", "label name"},
		{"pod=~(", "", "missing closing"},
		{"nothing", "", "label=value"},
	} {
		m, err := prom.ParseMatcher(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want one containing %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case m.String() != tc.want:
			t.Errorf("%q: %s, want %s", tc.in, m, tc.want)
		}
	}
}

// Histograms and summaries are kept as their _count and _sum series, with
// the family's labels; counters and gauges keep their names.
func TestParseTextHistograms(t *testing.T) {
	s, err := prom.ParseText(bytes.NewReader(fixture(t, "vllm-after.prom")))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{
		"vllm:time_to_first_token_seconds_count": 5268,
		"vllm:time_to_first_token_seconds_sum":   1003.4110900878907,
		"vllm:generation_tokens_total":           1227423,
	} {
		got := s.Samples(name, prom.Eq("engine", "0"))
		if len(got) != 1 || got[0].Value != want || got[0].Labels["model_name"] != "meta-llama/Llama-3.1-70B-Instruct" {
			t.Errorf("%s = %+v, want one sample of %v with model_name", name, got, want)
		}
	}
	if s.Has("vllm:time_to_first_token_seconds") || s.Has("vllm:time_to_first_token_seconds_bucket") {
		t.Error("a histogram's own name and its buckets are not kept")
	}
	sum := parse(t, "# TYPE d summary\nd{q=\"x\",quantile=\"0.5\"} 3\nd_sum{q=\"x\"} 12.5\nd_count{q=\"x\"} 4\n")
	if c, v := sum.Samples("d_count"), sum.Samples("d_sum"); len(c) != 1 || c[0].Value != 4 || len(v) != 1 || v[0].Value != 12.5 || c[0].Labels["q"] != "x" {
		t.Errorf("summary: count %+v sum %+v", c, v)
	}
	if sum.Has("d") {
		t.Error("a summary's quantiles are not kept")
	}
	// A histogram's _count grows like a counter: Diff reads it.
	before := parse(t, "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1.5\nh_count 2\n")
	after := parse(t, "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 7\nh_sum 4\nh_count 7\n")
	if d := prom.Sum(prom.Diff(before, after, "h_count")); d != 5 {
		t.Errorf("h_count increase = %v, want 5", d)
	}
	if _, err := prom.ParseText(strings.NewReader("up{ 1\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("malformed line: %v, want an error naming line 1", err)
	}
}

func TestDecodeQuery(t *testing.T) {
	res, err := prom.DecodeQuery(fixture(t, "prom-query-energy-increase-sum-joules.json"))
	if err != nil || len(res) != 1 || res[0].Value != 333637.666 || res[0].Labels["Hostname"] != "gpu-node-01" {
		t.Errorf("sum-joules = %+v, %v", res, err)
	}
	for _, bad := range []string{``, `<html>`, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}}`,
		`{"status":"pending"}`, `{"status":"success","data":{"resultType":"string","result":[1,"x"]}}`} {
		if _, err := prom.DecodeQuery([]byte(bad)); err == nil {
			t.Errorf("DecodeQuery(%q): want an error", bad)
		}
	}
	res, err = prom.DecodeQuery([]byte(`{"status":"success","data":{"resultType":"scalar","result":[1771322520,"42.5"]}}`))
	if err != nil || len(res) != 1 || res[0].Value != 42.5 || res[0].Time != 1771322520 || res[0].Labels == nil {
		t.Errorf("scalar = %+v, %v", res, err)
	}
}

// An error envelope is an *APIError whatever the status, and the error
// names the query and the status.
func TestQueryErrorEnvelope(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write(fixture(t, "prom-error-bad-data.json"))
	}))
	defer srv.Close()
	_, err := prom.NewAPI(srv.URL+"/api/v1/", nil).Query(context.Background(), "up", t1)
	var api *prom.APIError
	if !errors.As(err, &api) || api.Type != "bad_data" || !strings.Contains(err.Error(), "HTTP 400") || !strings.Contains(err.Error(), `"up"`) {
		t.Fatalf("error = %v, want a bad_data APIError naming the query and HTTP 400", err)
	}
}
