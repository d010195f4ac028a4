package slo

import (
	"math"
	"strings"
	"testing"
)

// TestValidateDuplicates: a statistic constrained twice is refused, naming
// both terms; different statistics of one metric are not duplicates.
func TestValidateDuplicates(t *testing.T) {
	for _, tt := range []struct {
		expr string
		want []string // in the error; nil: valid
	}{
		{"ttft_p99<=1s,ttft_p95<=500ms,itl_p99<=50ms,error_rate<=1%,output_tps>=100", nil},
		{"ttft_p99<=1s,ttft_p99<=2s", []string{"ttft_p99", "ttft_p99<=1s", "ttft_p99<=2s"}},
		{"ttft_p99<=1s, TTFT_P99 <= 1000ms", []string{"ttft_p99"}},
		{"error_rate<=1%,error_rate<0.5%", []string{"error_rate"}},
		{"itl_mean<=5ms,itl_mean<=6ms,e2e_p50<=1s,e2e_p50<=2s", []string{"itl_mean", "e2e_p50"}},
	} {
		o, err := Parse(tt.expr)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.expr, err)
		}
		err = o.Validate()
		if tt.want == nil {
			if err != nil {
				t.Errorf("%q: %v", tt.expr, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%q: accepted", tt.expr)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %q lacks %q", tt.expr, err, w)
			}
		}
	}
}

func TestStreamed(t *testing.T) {
	for m, want := range map[Metric]bool{
		MetricTTFT: true, MetricTTFTCorrected: true, MetricITL: true, MetricICL: true, MetricTTFOT: true,
		MetricE2E: false, MetricErrorRate: false, MetricOutputTPS: false,
	} {
		if got := m.Streamed(); got != want {
			t.Errorf("%s.Streamed() = %v, want %v", m, got, want)
		}
	}
}

// TestValidateHandBuiltTerms: an Objective built by hand gets Parse's
// rules. Seen (issue 26, review): Percentile 150, a NaN or negative
// threshold, no operator, metric "speed" and a latency term with no
// statistic were all accepted, and judged levels.
func TestValidateHandBuiltTerms(t *testing.T) {
	for _, tt := range []struct {
		term Term
		want string // in the error; "": valid
	}{
		{Term{Metric: MetricTTFT, Percentile: 99, Op: OpLE, Threshold: 500}, ""},
		{Term{Metric: MetricITL, Mean: true, Op: OpLT, Threshold: 0}, ""},
		{Term{Metric: MetricErrorRate, Op: OpLE, Threshold: 0.01}, ""},
		{Term{Metric: MetricOutputTPS, Op: OpGE, Threshold: 1000}, ""},
		{Term{Metric: MetricTTFT, Percentile: 150, Op: OpLE, Threshold: 10}, "percentile 150 is out of range: set Percentile in (0, 100]"},
		{Term{Metric: MetricTTFT, Percentile: math.NaN(), Op: OpLE, Threshold: 10}, "percentile NaN is out of range"},
		{Term{Metric: MetricTTFT, Op: OpLE, Threshold: 10}, "percentile 0 is out of range"},
		{Term{Metric: MetricTTFT, Percentile: 99, Mean: true, Op: OpLE, Threshold: 10}, "one statistic"},
		{Term{Metric: MetricTTFT, Percentile: 99, Op: OpLE, Threshold: math.NaN()}, "threshold NaN: want a finite number >= 0 (ms)"},
		{Term{Metric: MetricTTFT, Percentile: 99, Op: OpLE, Threshold: -1}, "threshold -1"},
		{Term{Metric: MetricTTFT, Percentile: 99, Op: OpLE, Threshold: math.Inf(1)}, "threshold +Inf"},
		{Term{Metric: MetricTTFT, Percentile: 99, Threshold: 10}, `operator ""`},
		{Term{Metric: MetricTTFT, Percentile: 99, Op: OpGE, Threshold: 10}, "ttft_p99 is an upper bound"},
		{Term{Metric: MetricOutputTPS, Op: OpLE, Threshold: 10}, "output_tps is a lower bound"},
		{Term{Metric: MetricErrorRate, Op: OpLE, Threshold: 5}, "error_rate is a fraction in [0, 1]"},
		{Term{Metric: MetricErrorRate, Percentile: 99, Op: OpLE, Threshold: 0.1}, "error_rate takes no statistic"},
		{Term{Metric: "speed", Percentile: 99, Op: OpLE, Threshold: 10}, `unknown metric "speed"`},
	} {
		err := Objective{Terms: []Term{tt.term}}.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v", tt.term, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "term 1")):
			t.Errorf("%+v: %v, want an error naming term 1 with %q", tt.term, err, tt.want)
		}
	}
}
