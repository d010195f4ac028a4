package compare

import (
	"fmt"
	"slices"
	"strings"
)

// Metric is one figure a comparison decides on. Key is its name in
// --fail-on and --metrics and in JSON ("ttft_p99", "goodput", "cpm"),
// Label its name for people, Unit the unit of its values (the delta's
// relative form is in %). HigherIsBetter says which way is an
// improvement: lower latency, cost and energy; higher throughput,
// goodput and knee.
type Metric struct {
	Key            string `json:"key"`
	Label          string `json:"label"`
	Unit           string `json:"unit"`
	HigherIsBetter bool   `json:"higher_is_better"`

	// What it reads: a latency distribution and a statistic, a rate, a
	// fraction, or a headline figure.
	dist  distKind // for latency metrics
	stat  float64  // the percentile (0.99), or 0 for the mean
	kind  metricKind
	level bool // measured per level (else only in the summary)
}

type distKind int

const (
	distNone distKind = iota
	distTTFT
	distITL
	distICL
	distE2E
)

type metricKind int

const (
	kindLatency metricKind = iota
	kindOutputRate
	kindReqRate
	kindGoodput
	kindErrorRate
	kindKnee
	kindCPM
	kindWhPerToken
)

// Metrics returns every metric compare knows, in table order: the
// latency statistics of TTFT, ITL, ICL and E2E (p50, p90, p95, p99 and
// the mean), the rates, the error rate, then the headline figures (knee,
// CPM, Wh/token) that only the summary block has. A fresh slice each
// call.
func Metrics() []Metric {
	var out []Metric
	for _, d := range []struct {
		dist        distKind
		key, label  string
		percentiles []float64
	}{
		{distTTFT, "ttft", "TTFT", []float64{0.5, 0.9, 0.95, 0.99}},
		{distITL, "itl", "ITL", []float64{0.5, 0.9, 0.95, 0.99}},
		{distICL, "icl", "ICL", []float64{0.5, 0.9, 0.95, 0.99}},
		{distE2E, "e2e", "E2E", []float64{0.5, 0.9, 0.95, 0.99}},
	} {
		for _, p := range d.percentiles {
			n := fmt.Sprintf("p%d", int(p*100+0.5))
			out = append(out, Metric{Key: d.key + "_" + n, Label: d.label + " " + n, Unit: "ms", dist: d.dist, stat: p, kind: kindLatency, level: true})
		}
		out = append(out, Metric{Key: d.key + "_mean", Label: d.label + " mean", Unit: "ms", dist: d.dist, kind: kindLatency, level: true})
	}
	return append(out,
		Metric{Key: "output_tps", Label: "output tok/s", Unit: "tok/s", HigherIsBetter: true, kind: kindOutputRate, level: true},
		Metric{Key: "req_s", Label: "req/s", Unit: "req/s", HigherIsBetter: true, kind: kindReqRate, level: true},
		Metric{Key: "goodput", Label: "goodput tok/s", Unit: "tok/s", HigherIsBetter: true, kind: kindGoodput, level: true},
		Metric{Key: "error_rate", Label: "error rate", Unit: "%", kind: kindErrorRate, level: true},
		Metric{Key: "knee", Label: "knee", Unit: "load", HigherIsBetter: true, kind: kindKnee},
		Metric{Key: "cpm", Label: "CPM EUR/1M tok", Unit: "EUR/1M", kind: kindCPM},
		Metric{Key: "wh_per_token", Label: "Wh/token", Unit: "Wh", kind: kindWhPerToken},
	)
}

// LookupMetric returns the metric named key, and false for an unknown key.
// "output_tok_s" and "tps" are accepted for output_tps, "goodput_tok_s"
// for goodput, "cpm_eur_1m" for cpm.
func LookupMetric(key string) (Metric, bool) {
	key = strings.ToLower(strings.TrimSpace(key))
	switch key {
	case "output_tok_s", "tps", "throughput":
		key = "output_tps"
	case "goodput_tok_s":
		key = "goodput"
	case "cpm_eur_1m":
		key = "cpm"
	}
	ms := Metrics()
	i := slices.IndexFunc(ms, func(m Metric) bool { return m.Key == key })
	if i < 0 {
		return Metric{}, false
	}
	return ms[i], true
}

// MetricKeys lists every metric key, for error messages.
func MetricKeys() string {
	var ks []string
	for _, m := range Metrics() {
		ks = append(ks, m.Key)
	}
	return strings.Join(ks, ", ")
}

// defaultLevelMetrics are the rows each matched level gets unless
// Options.Metrics says otherwise: the tail latencies an SLO names, the
// throughput, goodput and error rate. Rows that neither side holds are
// left out.
var defaultLevelMetrics = []string{"ttft_p50", "ttft_p99", "itl_p95", "e2e_p99", "output_tps", "goodput", "error_rate"}

// DefaultLevelMetrics returns the default per-level rows' keys.
func DefaultLevelMetrics() []string { return slices.Clone(defaultLevelMetrics) }

// ParseMetrics reads a comma-separated list of per-level metric keys
// (--metrics), reporting every unknown key at once.
func ParseMetrics(s string) ([]Metric, error) {
	var out []Metric
	var bad []string
	for _, k := range strings.Split(s, ",") {
		if strings.TrimSpace(k) == "" {
			continue
		}
		m, ok := LookupMetric(k)
		if !ok || !m.level {
			bad = append(bad, strings.TrimSpace(k))
			continue
		}
		out = append(out, m)
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("unknown per-level metric %s (known: %s)", strings.Join(quoteAll(bad), ", "), levelKeys())
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no metric named: give a list, e.g. %s", strings.Join(defaultLevelMetrics, ","))
	}
	return out, nil
}

func levelKeys() string {
	var ks []string
	for _, m := range Metrics() {
		if m.level {
			ks = append(ks, m.Key)
		}
	}
	return strings.Join(ks, ", ")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
