package prom_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/gollm-bench/gollm-bench/prom"
)

func FuzzParseText(f *testing.F) {
	// A few lines of each fixture: whole exposition files as seeds make
	// the expfmt-based worker look stalled while it minimises.
	for _, name := range []string{"kepler-v0.11-t1.prom", "kepler-legacy-v0.7-t0.prom", "litellm-t1.prom"} {
		b := fixture(f, name)
		if i := bytes.LastIndexByte(b[:min(len(b), 1200)], '\n'); i > 0 {
			b = b[:i+1]
		}
		f.Add(b)
	}
	f.Add([]byte("# TYPE c counter\nc{a=\"1\"} NaN\n"))
	f.Add([]byte("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 3\nh_sum 4.5\nh_count 3\n" +
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 2\ns_count 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := prom.ParseText(bytes.NewReader(b))
		if err != nil {
			return
		}
		// Diff of a snapshot with itself: every increase is 0 (or NaN).
		for name := range familyNames(b) {
			for _, x := range prom.Diff(s, s, name) {
				if x.Increase != 0 && !math.IsNaN(x.Increase) && !x.Reset {
					t.Fatalf("%s: self-diff %v", name, x.Increase)
				}
			}
		}
	})
}

// familyNames guesses the family names in a text body (the first word of
// each sample line).
func familyNames(b []byte) map[string]bool {
	out := map[string]bool{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		end := bytes.IndexAny(line, "{ ")
		if end > 0 {
			out[string(line[:end])] = true
		}
	}
	return out
}

func FuzzDecodeQuery(f *testing.F) {
	for _, name := range []string{"prom-query-energy-increase.json", "prom-query-avg-power.json",
		"prom-error-bad-data.json", "prom-query-range-total-power.json", "prom-query-energy-increase-sum-joules.json"} {
		f.Add(fixture(f, name))
	}
	f.Add([]byte(`{"status":"success","data":{"resultType":"scalar","result":[1,"NaN"]}}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := prom.DecodeQuery(b)
		if err == nil {
			for _, s := range res {
				if s.Labels == nil {
					t.Fatal("nil labels")
				}
			}
		}
	})
}

func FuzzParseMatcher(f *testing.F) {
	f.Add("pod_name=~vllm-.*")
	f.Add("model=x")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := prom.ParseMatcher(s)
		if err != nil {
			return
		}
		// What parses can be written and parsed back the same.
		back, err := prom.ParseMatcher(m.Label + map[bool]string{true: "=~", false: "="}[m.Regex] + m.Value)
		if err != nil || back != m {
			t.Fatalf("%q -> %+v -> %+v, %v", s, m, back, err)
		}
	})
}
