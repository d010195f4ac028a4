package report

import (
	"math"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// TestLevelTableRoundsEveryIntervalledColumn: a reviewer saw the console
// print "req/s 1.41" where run.json had req_s_ci [0.97, 1.84], and "lag
// p99 28.6" with [13.19, null]; the rounding rule gives 1.4 and 29 (a
// half-width of 15.4 keeps two figures, as 1 leads). And an
// SLO judging ttft_p95 saw TTFT p99's interval instead of the p95 judged.
func TestLevelTableRoundsEveryIntervalledColumn(t *testing.T) {
	obj, err := slo.Parse("ttft_p95<=500ms")
	if err != nil {
		t.Fatal(err)
	}
	var s metrics.Summary
	s.Requests.OK = 40
	s.TTFT = metrics.Distribution{Count: 40, P50: 10, P50CI: stats.Interval{Lo: 9, Hi: 11},
		P95: 41.37, P95CI: stats.Interval{Lo: 38.2, Hi: 47.9}, P99: 89.1, P99CI: stats.Interval{Lo: 60, Hi: math.Inf(1)}}
	s.RequestsPerSecond, s.RequestsPerSecondCI = 1.41, stats.Interval{Lo: 0.97, Hi: 1.84}
	s.Lag = metrics.Distribution{Count: 40, P99: 28.6, P99CI: stats.Interval{Lo: 13.19, Hi: math.Inf(1)}}
	res := sweep.Result{Objective: obj, Levels: []sweep.LevelOutcome{{Summary: s, Verdict: obj.Evaluate(s)}}}
	tb := levelTable(res, nil)
	cell := map[string]string{}
	for i, c := range tb.cols {
		cell[c.group+" "+c.name] = tb.rows[0][i]
	}
	for col, want := range map[string]string{
		"output req/s":         "1.4",
		"lag ms p99":           "29", // half-width 15.4: two figures (PDG), so to 1
		"TTFT ms p95 [95% CI]": "41 [38, 48]",
	} {
		if got, ok := cell[col]; !ok || got != want {
			t.Errorf("column %q = %q (present %v), want %q; row %q", col, got, ok, want, cell)
		}
	}
}

// TestRepeatSpreadShown: with --repeat the between-run spread was in
// run.json (repeats: mean, sd, between_ci, within_ci) but neither the
// console nor report.html showed it.
func TestRepeatSpreadShown(t *testing.T) {
	obj, _ := slo.Parse("ttft_p99<=500ms")
	s := metrics.Summary{Requests: metrics.RequestCounts{Sent: 300, OK: 300}}
	s.Repeats = &metrics.Repeats{Runs: 3, Figures: []metrics.RepeatFigure{
		metrics.NewRepeatFigure("ttft_p99", metrics.UnitMS, []float64{790.4, 812.2, 834.9}, stats.Interval{Lo: 800.1, Hi: 825.3}),
	}}
	run := results.Run{RunID: "r", Config: results.Config{Command: "run", Model: "m"},
		Result: sweep.Result{Kind: sweep.KindLevels, Objective: obj, Levels: []sweep.LevelOutcome{{Index: 2, Summary: s, Verdict: obj.Evaluate(s)}}}}
	// The between-run half-width, 54 ms, sets the step: 10 ms.
	want := "level 2, 3 runs: ttft_p99 ms: runs 790, 810, 830; mean 810, sd 20; between-run [760, 870], within-run [800, 830]"
	var console strings.Builder
	if err := WriteConsole(&console, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(console.String(), want) {
		t.Errorf("console lacks %q:\n%s", want, console.String())
	}
	var page strings.Builder
	if err := WriteHTML(&page, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "between-run") || !strings.Contains(page.String(), "runs 790, 810, 830") {
		t.Errorf("report.html lacks the between-run spread")
	}
}

// TestZeroRoundsToZero: ITL p50 printed "0.0000" where chunks read
// together share a kernel stamp and the median gap is 0 ms; a value that
// rounds to zero at its interval's precision is "0", and a small negative
// one is not "-0.0".
func TestZeroRoundsToZero(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		ci   stats.Interval
		want string
	}{
		{0, stats.Interval{Lo: 0, Hi: 0.0004}, "0 [0, 0.0004]"},
		{0.00002, stats.Interval{Lo: 0, Hi: 0.0004}, "0 [0, 0.0004]"},
		{-0.01, stats.Interval{Lo: -0.4, Hi: 0.3}, "0 [-0.4, 0.3]"},
		{0.25, stats.Interval{Lo: 0.2, Hi: 0.3}, "0.25 [0.20, 0.30]"},
	} {
		if got := fmtEstimate(tc.v, tc.ci); got != tc.want {
			t.Errorf("fmtEstimate(%v, %v) = %q, want %q", tc.v, tc.ci, got, tc.want)
		}
	}
}

// TestNoNegativeZero: a change of -0.001 ms printed "-0.00", and a tiny
// negative rate or share "-0" and "-0%": a sign with no digit behind it.
func TestNoNegativeZero(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{fmtMs(-0.001), "0.00"},
		{fmtMs(-0.01), "-0.01"},
		{fmtRate(-0.001), "0"},
		{fmtPercent(-0.00001), "0%"},
		{fmtPercent(-0.01), "-1%"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestFloatNoiseIsNoPrecision: compare printed our output tok/s at a
// constant 4 req/s (issue 29's cross-check) as "256.23963036970889
// [256.23963036970883, 256.23963036970883]": an interval whose width is
// floating-point noise supports no digits; it is printed to 3 significant
// figures, as a degenerate interval is.
func TestFloatNoiseIsNoPrecision(t *testing.T) {
	v := 256.23963036970889
	ci := stats.Interval{Lo: 256.23963036970883, Hi: 256.23963036970883}
	if got, want := fmtEstimate(v, ci), "256 [256, 256]"; got != want {
		t.Errorf("fmtEstimate = %q, want %q", got, want)
	}
}
