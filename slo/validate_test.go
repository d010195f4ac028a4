package slo

import (
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
