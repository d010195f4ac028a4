package slo

import (
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/metrics"
)

func TestParsePrecision(t *testing.T) {
	p, err := ParsePrecision("ttft_p99:5%, itl_p95:0.03,e2e_mean:10%")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.String(); got != "ttft_p99:5%,itl_p95:3%,e2e_mean:10%" {
		t.Errorf("String() = %q", got)
	}
	if p, err := ParsePrecision(" "); err != nil || !p.IsZero() {
		t.Errorf("blank: %v, %v", p, err)
	}
	if d, err := ParsePrecision("Decide"); err != nil || d.IsZero() || !d.Decide || len(d.Targets) != 0 || d.String() != "decide" {
		t.Errorf("decide: %+v, %v", d, err)
	}
	if !p.Decide {
		t.Errorf("targets do not imply decide: %+v", p)
	}
	for _, c := range []struct{ in, want string }{
		{"ttft_p99", "want statistic:fraction"},
		{"ttft_p99:", "is not a number"},
		{"ttft_p99:abc", "is not a number"},
		{"ttft_p99:0%", "above 0 and below 100%"},
		{"ttft_p99:-5%", "above 0 and below 100%"},
		{"ttft_p99:150%", "above 0 and below 100%"},
		{"ttft_p99:NaN", "is not a number"},
		{"tpot_p99:5%", "unknown metric"},
		{"error_rate:5%", "latency statistics"},
		{"icl_p99:5%", "ask for itl"},
		{"ttft_p100:5%", "no upper confidence bound"},
		{"ttft_p99:5%,ttft_p99:3%", "named twice"},
		{"ttft_p99:5%,", "empty target"},
		{"ttft:5%", "needs a statistic"},
	} {
		if _, err := ParsePrecision(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePrecision(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

func TestPrecisionCheck(t *testing.T) {
	p, _ := ParsePrecision("ttft_p50:7%,ttft_p99:5%")
	s := metrics.Summary{Requests: metrics.RequestCounts{Sent: 1000, OK: 1000}, TTFT: dist(t, ramp(1000)...)}
	st := p.Check(s)
	if !st[0].Met || st[0].RelativeHalfWidth > 0.07 {
		t.Errorf("p50 of 1000: %+v, want met (about ±6 %%)", st[0])
	}
	if !st[1].Met {
		t.Errorf("p99 of 1000 ramp values: %+v, want met (±1 %%)", st[1])
	}
	few := metrics.Summary{Requests: metrics.RequestCounts{Sent: 100, OK: 100}, TTFT: dist(t, ramp(100)...)}
	if p.Met(few) {
		t.Error("the p99 of 100 samples has no upper bound: precision cannot be met")
	}
}

func FuzzParsePrecision(f *testing.F) {
	for _, s := range []string{"ttft_p99:5%", "itl_p95:0.03,e2e_mean:10%", "x:y", ":", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrecision(s)
		if err != nil {
			return
		}
		back, err := ParsePrecision(p.String())
		if err != nil || back.String() != p.String() {
			t.Fatalf("round trip of %q: %q, %v", s, back.String(), err)
		}
	})
}
