package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
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

// telemetryRun is a one-level run with GPU energy, Kepler's pod energy
// (and its gap) and a reference 10× below the measured Wh/token.
func telemetryRun() results.Run {
	s := metrics.Summary{Level: 0, OutputTokensPerSecond: 1000, WindowSeconds: 10, Requests: metrics.RequestCounts{OK: 100},
		TTFT: metrics.Distribution{Unit: "ms", Count: 100, P99: 40}}
	return results.Run{
		Result: sweep.Result{Kind: sweep.KindLevels, Levels: []sweep.LevelOutcome{{Index: 0, OfferedLoad: 4, Unit: "req/s", Summary: s}}},
		Telemetry: []results.LevelTelemetry{{Level: 0,
			Energy: &energy.Reading{Source: "nvml", Valid: true, GrossEnergyJ: 36000, EnergyJ: 36000, GPUCount: 1, WindowSeconds: 10},
			Pod: &energy.PodReading{Source: "kepler", Via: "prometheus", Scope: "pod", Selector: "namespace=bench,pod=mock-0",
				Valid: true, EnergyJ: 30000, CPUJ: 5000, GPUJ: 25000, WindowSeconds: 10},
			PodGap: &energy.PodGap{GPUSource: "nvml", GPUJ: 36000, PodGPUJ: 25000, GapJ: 11000, GapFraction: 11000.0 / 36000,
				Reason: "Kepler attributes only active power"},
		}},
		Reference: &scorecard.Reference{WhPerToken: 0.0001, Source: "MLPerf test figure"},
	}
}

// TestReportShowsPodEnergyAndPlausibility: pod energy, its gap to the GPU
// counters and the plausibility verdict were in scorecard.json only;
// report.html's scorecard section and energy card, and the console's
// warnings, must show them (implausible_energy above all).
func TestReportShowsPodEnergyAndPlausibility(t *testing.T) {
	t.Parallel()
	run := telemetryRun()
	sc := run.Scorecard()
	if sc.Energy.Plausibility == nil || sc.Energy.Plausibility.Verdict != scorecard.VerdictImplausible {
		t.Fatalf("fixture: plausibility %+v, want implausible", sc.Energy.Plausibility)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Pod energy (Kepler)", "namespace=bench,pod=mock-0", "GPU counters − pod GPU (gap)", "gap, share of the GPU counters",
		"Kepler attributes only active power", "Plausibility", "MLPerf test figure", "implausible",
		"pod (Kepler) 0.833 mWh/token, GPU gap 30.56%; 10× the reference (MLPerf test figure): implausible", "implausible_energy"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	var con bytes.Buffer
	if err := WriteConsole(&con, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(con.String(), "implausible_energy") {
		t.Errorf("console warnings lack implausible_energy:\n%s", con.String())
	}
}

// TestProgressDrainKeepsTotalETA: the sweep's total ETA jumped by the
// drain timeout while a level drained (00:20 → 00:48 → 00:18): a drain
// counts as ending now in the total, and the level line keeps its bound.
func TestProgressDrainKeepsTotalETA(t *testing.T) {
	prof := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 4}
	hp := func(el time.Duration) harness.Progress {
		return harness.Progress{Level: 1, Repeats: 1, Profile: prof, Elapsed: el, Expected: 10 * time.Second, Drain: 30 * time.Second}
	}
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var buf bytes.Buffer
	p := NewProgress(&buf, true, false, WithClock(clk.now))
	p.Sweep(sweep.Event{Type: sweep.LevelStart, Index: 0, Phase: sweep.PhaseGrid, Profile: prof, Expected: 3})
	clk.advance(10 * time.Second)
	p.Sweep(sweep.Event{Type: sweep.LevelEnd, Index: 0, Phase: sweep.PhaseGrid, Profile: prof, Expected: 3})
	p.Sweep(sweep.Event{Type: sweep.LevelStart, Index: 1, Phase: sweep.PhaseGrid, Profile: prof, Expected: 3})
	clk.advance(8 * time.Second)
	buf.Reset()
	p.Harness(hp(8 * time.Second))
	if want := "ETA 00:12"; !strings.Contains(buf.String(), want) { // 2 s left + one 10 s level
		t.Fatalf("running: %q lacks %q", buf.String(), want)
	}
	clk.advance(3 * time.Second)
	buf.Reset()
	p.Harness(hp(11 * time.Second))
	got := buf.String()
	if want := "ETA 00:10"; !strings.Contains(got, want) || !strings.Contains(got, "draining ≤ 00:29") {
		t.Errorf("draining: %q: want the total %q (no jump by the drain timeout) and the level's bound", got, want)
	}
}

// TestProgressArrivalLabel: ramp and trace levels were labelled
// "constant N req/s" in the live view and the console's table.
func TestProgressArrivalLabel(t *testing.T) {
	prof := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 11}
	var buf bytes.Buffer
	p := NewProgress(&buf, true, false)
	p.Harness(harness.Progress{Level: 0, Repeats: 1, Profile: prof, Label: "ramp linear 2→20 req/s over 10s", Elapsed: time.Second, Expected: 10 * time.Second})
	if want := "level 0 ramp linear 2→20 req/s over 10s  00:01"; !strings.Contains(buf.String(), want) {
		t.Errorf("live line %q lacks %q", buf.String(), want)
	}
	run := results.Run{Config: results.Config{Arrivals: &results.Arrivals{Trace: &results.TraceReplay{Format: "mooncake", Speedup: 1}}},
		Result: sweep.Result{Levels: []sweep.LevelOutcome{{Index: 0, Profile: prof, OfferedLoad: 11, Unit: "req/s"}}}}
	var con bytes.Buffer
	if err := WriteConsole(&con, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(con.String(), "trace mooncake 1×") || strings.Contains(con.String(), "constant 11") {
		t.Errorf("console table labels the trace level as:\n%s", con.String())
	}
}
