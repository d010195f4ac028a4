package prom

import (
	"fmt"
	"io"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sample is one series' value: a line of a /metrics page, or one series of
// an instant-query result. It is plain data.
type Sample struct {
	// Labels are the series' labels, never nil. A /metrics line's do not
	// include the name; a query's answer has __name__ when the query
	// selects series by name without a function.
	Labels map[string]string
	// Time is the sample's time, Unix s: a query's evaluation time, or the
	// timestamp a /metrics line carries (0 when it carries none, the usual
	// case).
	Time float64
	// Value is the value, in the series' own unit.
	Value float64
}

// Snapshot is one /metrics page: every sample's value by the name
// Prometheus stores it under. Counters, gauges and untyped samples keep
// their family's name. A histogram or summary family f is kept as f_count
// (observations) and f_sum (their total), the two series Prometheus itself
// stores for it, so that their increase over a window reads like any
// counter's; buckets and quantiles are dropped. A Snapshot is immutable once
// parsed and safe for concurrent reads; its zero value is an empty page.
type Snapshot struct {
	families map[string][]Sample
}

// ParseText parses a /metrics body in the Prometheus text exposition format
// (version 0.0.4, what prometheus_client, dcgm-exporter, Kepler and LiteLLM
// print; "1.227423e+06" values and NaN are accepted). A malformed line is an
// error naming its line number. It is safe for concurrent use.
func ParseText(r io.Reader) (Snapshot, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("prometheus text format: %w", err)
	}
	s := Snapshot{families: make(map[string][]Sample, len(fams))}
	add := func(name string, m *dto.Metric, v float64) {
		x := Sample{Labels: labels(m), Value: v}
		if m.TimestampMs != nil {
			x.Time = float64(m.GetTimestampMs()) / 1000
		}
		s.families[name] = append(s.families[name], x)
	}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			switch {
			case m.Counter != nil:
				add(name, m, m.GetCounter().GetValue())
			case m.Gauge != nil:
				add(name, m, m.GetGauge().GetValue())
			case m.Untyped != nil:
				add(name, m, m.GetUntyped().GetValue())
			case m.Histogram != nil:
				add(name+"_count", m, float64(m.GetHistogram().GetSampleCount()))
				add(name+"_sum", m, m.GetHistogram().GetSampleSum())
			case m.Summary != nil:
				add(name+"_count", m, float64(m.GetSummary().GetSampleCount()))
				add(name+"_sum", m, m.GetSummary().GetSampleSum())
			}
		}
	}
	return s, nil
}

func labels(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, lp := range m.GetLabel() {
		out[lp.GetName()] = lp.GetValue()
	}
	return out
}

// Has reports whether the page carries at least one sample of family (for
// a histogram, ask for its _count or _sum).
func (s Snapshot) Has(family string) bool { return len(s.families[family]) > 0 }

// Samples returns the family's samples that match every matcher. The
// returned Labels maps are shared with the Snapshot and must not be
// modified.
func (s Snapshot) Samples(family string, matchers ...Matcher) []Sample {
	var out []Sample
	for _, x := range s.families[family] {
		if matchAll(x.Labels, matchers) {
			out = append(out, x)
		}
	}
	return out
}
