package compare

import (
	"slices"
	"strings"
	"testing"
)

// TestLoadStatedByNeither: the review of issue 28 saw "workload
// mismatch: load not stated vs not stated" comparing an AIPerf CSV
// export (which holds no load settings) with itself. Two levels that
// state no load do not differ: the load is listed as stated by neither.
func TestLoadStatedByNeither(t *testing.T) {
	a := read(t, peers+"aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.csv")
	res := Runs(a, a, Options{})
	if len(res.Mismatches) != 0 {
		t.Errorf("mismatches %v, want none", res.Mismatches)
	}
	if !slices.Contains(res.Unstated, "load (stated by neither)") {
		t.Errorf("unstated %v, want the load stated by neither", res.Unstated)
	}
}

// TestParseFailOnRefusesOddLimits: the review of issue 28 found
// "ttft_p99:+NaN%" accepted (and the gate then exited 5), "1_0"
// accepted, a blank expression called an extra comma, and a metric given
// two limits accepted silently. Each is refused naming the term.
func TestParseFailOnRefusesOddLimits(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ttft_p99:+NaN%", `term "ttft_p99:+NaN%": limit "NaN%"`},
		{"ttft_p99:nan%", `term "ttft_p99:nan%": limit "nan%"`},
		{"ttft_p99:+NaNms", `term "ttft_p99:+NaNms"`},
		{"error_rate:+NaN%", `term "error_rate:+NaN%"`},
		{"output_tps:-NaN%", `term "output_tps:-NaN%"`},
		{"ttft_p99:+Inf%", `term "ttft_p99:+Inf%"`},
		{"ttft_p99:+1_0%", `term "ttft_p99:+1_0%": limit "1_0%"`},
		{"ttft_p99:+1e1%", `limit "1e1%"`},
		{"ttft_p99:+0x1p3%", `limit "0x1p3%"`},
		{" ", "empty: want comma-separated METRIC:LIMIT terms"},
		{"ttft_p99:+5%,ttft_p99:+10%", `column 14, term "ttft_p99:+10%": ttft_p99 has a limit already (column 1)`},
	} {
		ths, err := ParseFailOn(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseFailOn(%q) = %v, %v; want an error saying %q", tt.in, ths, err, tt.want)
		}
	}
	if _, err := ParseFailOn("ttft_p99:+.5%,e2e_p99:+2.5s"); err != nil {
		t.Errorf("plain decimals refused: %v", err)
	}
}
