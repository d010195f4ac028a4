package prom_test

import (
	"context"
	"errors"
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
	w := prom.NewPrometheus(srv.URL+"/", nil)
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
	w := prom.NewScrape(srv, nil)
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
