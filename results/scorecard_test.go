package results_test

import (
	"testing"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// TestScorecardWithoutKneeSaysSo: when a sweep under an SLO finds no knee
// (against llama-server: the first open-loop level failed, "knee below the
// tested range"), the scorecard still fills knee_level with the
// highest-throughput level; a warning must say that level is not a knee.
func TestScorecardWithoutKneeSaysSo(t *testing.T) {
	t.Parallel()
	obj, err := slo.Parse("ttft_p99<=2000ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		knee *sweep.Knee
		want bool
	}{
		{"no knee", nil, true},
		{"knee", &sweep.Knee{Level: 0, OfferedLoad: 4, Unit: "req/s", BracketLo: 4}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := results.Run{Result: sweep.Result{Objective: obj, Knee: tt.knee, Levels: []sweep.LevelOutcome{
				{Index: 0, OfferedLoad: 4, Unit: "req/s", Summary: metrics.Summary{OutputTokensPerSecond: 260}, Verdict: slo.Verdict{Pass: true}},
				{Index: 1, OfferedLoad: 5, Unit: "req/s", Summary: metrics.Summary{OutputTokensPerSecond: 200}},
			}}}
			sc := run.Scorecard()
			got := false
			for _, w := range sc.Warnings {
				got = got || w.Code == "no_knee"
			}
			if got != tt.want {
				t.Errorf("no_knee warning %v, want %v; warnings %v", got, tt.want, sc.Warnings)
			}
		})
	}
}
