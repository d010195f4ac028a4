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

// TestReferenceLevelNeedsSuccesses: a demo sweep under a strict SLO found
// no knee, and its throughput probe (0 ok, FAIL no-success) was credited
// with the highest output throughput (tokens streamed into its window), so
// the scorecard and the report's cards described it: no TTFT p99, goodput
// 0. The reference level must have successful requests, and a level that
// passed comes before one that did not.
func TestReferenceLevelNeedsSuccesses(t *testing.T) {
	t.Parallel()
	obj, err := slo.Parse("ttft_p99<=500ms")
	if err != nil {
		t.Fatal(err)
	}
	level := func(i int, tokS float64, ok int64, outcome slo.Outcome) sweep.LevelOutcome {
		s := metrics.Summary{OutputTokensPerSecond: tokS, Requests: metrics.RequestCounts{OK: ok}}
		if ok > 0 {
			s.TTFT = metrics.Distribution{Unit: "ms", Count: ok, P99: 40}
		}
		return sweep.LevelOutcome{Index: i, OfferedLoad: float64(i + 1), Unit: "req/s", Summary: s,
			Verdict: slo.Verdict{Outcome: outcome, Pass: outcome == slo.OutcomePass}}
	}
	for _, tt := range []struct {
		name    string
		obj     slo.Objective
		levels  []sweep.LevelOutcome
		want    int
		wantWhy string
	}{
		{"none passed", obj, []sweep.LevelOutcome{
			level(0, 94, 3, slo.OutcomeInconclusive),
			level(1, 1300, 0, slo.OutcomeFail),
			level(2, 960, 50, slo.OutcomeInconclusive),
		}, 2, "the highest output throughput among the levels with successful requests; none passed"},
		{"one passed", obj, []sweep.LevelOutcome{
			level(0, 94, 3, slo.OutcomePass),
			level(1, 1300, 0, slo.OutcomeFail),
			level(2, 960, 50, slo.OutcomeInconclusive),
		}, 0, "the highest output throughput among the levels that passed"},
		{"no SLO", slo.Objective{}, []sweep.LevelOutcome{
			level(0, 94, 3, ""),
			level(1, 1300, 0, ""),
		}, 0, "the highest output throughput among the levels with successful requests"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := results.Run{Result: sweep.Result{Objective: tt.obj, Levels: tt.levels}}
			lv, why, ok := run.ReferenceLevel()
			if !ok || lv.Index != tt.want || why != tt.wantWhy {
				t.Errorf("ReferenceLevel = %d %q %v, want %d %q", lv.Index, why, ok, tt.want, tt.wantWhy)
			}
			sc := run.Scorecard()
			if k := sc.Performance.KneeLevel; k == nil || *k != tt.want {
				t.Fatalf("knee_level = %v, want %d", k, tt.want)
			}
			if sc.Performance.TTFTP99Ms == nil {
				t.Errorf("ttft_p99_ms absent: the scorecard describes a level without successful requests")
			}
		})
	}
}
