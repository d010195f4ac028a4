package report

import (
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// TestHeadlineNoKneeDescribesSuccesses: the demo sweep under a strict SLO
// (no knee, every level undecided) had its cards describe "level 1, the
// highest output throughput (no knee)": the throughput probe with no
// successful request, so every card read "not measured" and goodput 0.
// The cards must describe a level with successes and say why.
func TestHeadlineNoKneeDescribesSuccesses(t *testing.T) {
	t.Parallel()
	obj, err := slo.Parse("ttft_p99<=500ms,itl_p95<=50ms")
	if err != nil {
		t.Fatal(err)
	}
	level := func(i int, tokS float64, ok int64, outcome slo.Outcome) sweep.LevelOutcome {
		s := metrics.Summary{Level: i, OutputTokensPerSecond: tokS, Requests: metrics.RequestCounts{OK: ok}}
		if ok > 0 {
			s.TTFT = metrics.Distribution{Unit: "ms", Count: ok, P99: 40}
			s.ITL = metrics.Distribution{Unit: "ms", Count: 10 * ok, P95: 20}
			s.Goodput = metrics.Goodput{Requests: ok, OutputTokensPerSecond: tokS}
		}
		return sweep.LevelOutcome{Index: i, OfferedLoad: float64(i + 1), Unit: "req/s", Summary: s, Verdict: slo.Verdict{Outcome: outcome}}
	}
	run := results.Run{Result: sweep.Result{Kind: sweep.KindRate, Objective: obj, Levels: []sweep.LevelOutcome{
		level(0, 94, 3, slo.OutcomeInconclusive),
		level(1, 1300, 0, slo.OutcomeFail),
		level(2, 960, 50, slo.OutcomeInconclusive),
	}, Undecided: []int{0, 2}}}
	h := headlineOf(run, run.Scorecard())
	if want := "level 2, the highest output throughput among the levels with successful requests; none passed"; h.Where != want {
		t.Errorf("Where = %q, want %q", h.Where, want)
	}
	for _, c := range h.Cards {
		if (c.Name == "TTFT p99" || c.Name == "ITL p95") && c.Missing {
			t.Errorf("card %s: %q (%s), want the figure of level 2", c.Name, c.Absent, c.Note)
		}
		if c.Name == "Goodput" && strings.HasPrefix(c.Value, "0") {
			t.Errorf("goodput card %q, want level 2's", c.Value)
		}
	}
}
