package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/stats"
)

// TestGateCriesNoWolf is what issue 28 saw: two runs of one mock,
// "TTFT p99 21.71 [21.61, 21.87] vs 22.9 [22.1, 23.4], delta +5% [+1%,
// +7%], significant (bootstrap)", and --fail-on ttft_p99:+5% exited 3: a
// change of 1 % was enough to fail a 5 % gate. A gate is now
// three-valued: regressed only when the whole interval lies beyond the
// limit, within when it lies wholly inside, undecided otherwise.
func TestGateCriesNoWolf(t *testing.T) {
	m, _ := LookupMetric("ttft_p99")
	ths, _ := ParseFailOn("ttft_p99:+5%")
	row := func(level string, rel, lo, hi float64) Row {
		return Row{Metric: m, Level: level, Verdict: VerdictWorse, Method: MethodBootstrap,
			A: peer.Some(21.71), B: peer.Some(21.71 * (1 + rel)), NA: peer.Known(400), NB: peer.Known(400),
			Diff: peer.Some(21.71 * rel), DiffCI: stats.Interval{Lo: 21.71 * lo, Hi: 21.71 * hi},
			Rel: peer.Some(rel), RelCI: stats.Interval{Lo: lo, Hi: hi}}
	}
	for _, tt := range []struct {
		name string
		row  Row
		want Outcome
	}{
		{"the issue's pair", row("seen", 0.055, 0.01, 0.07), OutcomeUndecided},
		{"wholly beyond", row("beyond", 0.45, 0.41, 0.48), OutcomeRegressed},
		{"wholly inside", row("inside", 0.01, -0.02, 0.04), OutcomeWithin},
		{"an improvement", Row{Metric: m, Level: "better", Verdict: VerdictBetter, Method: MethodBootstrap, A: peer.Some(20), B: peer.Some(10),
			Diff: peer.Some(-10), DiffCI: stats.Interval{Lo: -11, Hi: -9}, Rel: peer.Some(-0.5), RelCI: stats.Interval{Lo: -0.55, Hi: -0.45}}, OutcomeWithin},
		{"~ but wide", Row{Metric: m, Level: "wide", Verdict: VerdictSame, Method: MethodBootstrap, A: peer.Some(20), B: peer.Some(20),
			Diff: peer.Some(0), DiffCI: stats.Interval{Lo: -4, Hi: 4}, Rel: peer.Some(0), RelCI: stats.Interval{Lo: -0.2, Hi: 0.2}}, OutcomeUndecided},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := Checks(Result{Rows: []Row{tt.row}}, ths)
			if len(cs) != 1 || cs[0].Outcome != tt.want {
				t.Fatalf("checks %+v, want one %s", cs, tt.want)
			}
			if regs := Regressions(Result{Rows: []Row{tt.row}}, ths); (len(regs) > 0) != (tt.want == OutcomeRegressed) {
				t.Errorf("regressions %v", regs)
			}
		})
	}
	// Undecided says what would decide it: the pair needs its
	// interval's lower half (4.5 %) inside the 0.5 % between the change
	// and the limit, (4.5/0.5)² = 81 times the requests.
	cs := Checks(Result{Rows: []Row{row("seen", 0.055, 0.01, 0.07)}}, ths)
	if got := cs[0].String(); !strings.Contains(got, "undecided") || !strings.Contains(got, "more requests a side") {
		t.Errorf("undecided line %q", got)
	}
	if f := cs[0].Factor; f < 80 || f > 82 {
		t.Errorf("factor %v, want 81", f)
	}
}

// repeated is a level whose summary pooled runs with the given TTFT
// p99s.
func repeated(p99s ...float64) peer.Level {
	s := &metrics.Summary{Repeats: &metrics.Repeats{Runs: len(p99s), Figures: []metrics.RepeatFigure{
		metrics.NewRepeatFigure("ttft_p99", metrics.UnitMS, p99s, stats.Interval{Lo: 21.5, Hi: 22.5}),
	}}}
	return peer.Level{Summary: s, TTFT: peer.Stats{P99: peer.Some(22)}}
}

// TestGateBetweenRuns: with --repeat on either side, the interval of the
// change comes from the spread between runs (each run one sample, as
// benchstat takes each benchmark run), not from the pooled requests, whose
// interval ignores run-to-run variance (GuideLLM #243: p99 ±23.5 % over 12
// identical runs).
func TestGateBetweenRuns(t *testing.T) {
	m, _ := LookupMetric("ttft_p99")
	o := Options{}.withDefaults()
	a := repeated(21, 23, 22, 21.5, 22.5)
	b := repeated(22, 24, 23, 22.5, 23.5)
	r := levelRow(m, a, b, o, 1)
	if r.Method != MethodBetweenRuns || r.NA.N != 5 || r.NB.N != 5 {
		t.Fatalf("row %+v, want between runs over 5 a side", r)
	}
	want := stats.WelchIntervalOf([]float64{21, 23, 22, 21.5, 22.5}, []float64{22, 24, 23, 22.5, 23.5}, stats.Confidence)
	if r.DiffCI != want || r.A.V != 22 || r.B.V != 23 {
		t.Errorf("diff %v (A %v, B %v), want %v from the runs' values", r.DiffCI, r.A, r.B, want)
	}
	ths, _ := ParseFailOn("ttft_p99:+5%")
	cs := Checks(Result{Rows: []Row{r}}, ths)
	if len(cs) != 1 || cs[0].Outcome != OutcomeUndecided || !strings.Contains(cs[0].String(), "more runs a side") {
		t.Errorf("checks %v", cs)
	}
	// One side repeated: the other run is taken as one more draw of the
	// repeated side's spread.
	single := peer.Level{TTFT: peer.Stats{P99: peer.Some(30)}}
	r = levelRow(m, a, single, o, 1)
	if r.Method != MethodBetweenRuns || !(r.DiffCI.Lo > 0) || !(r.DiffCI.Lo < 8) {
		t.Errorf("one side repeated: %+v", r)
	}
}

// TestGateOnSimulatedRuns measures the gate's false-alarm and detection
// counts without a machine's run-to-run noise: 40 pairs of simulated runs
// of one fixed-TTFT server (as TestSameServerTrials) are never
// regressed at ttft_p99:+5%, and 20 pairs of a 20 ms against a 30 ms
// server always are. The counts of each outcome are logged
// (docs/compare.md quotes them).
func TestGateOnSimulatedRuns(t *testing.T) {
	skipUnderRace(t)
	ths, _ := ParseFailOn("ttft_p99:+5%")
	count := func(a, b time.Duration, pairs int, seed0 uint64) map[Outcome]int {
		out := map[Outcome]int{}
		for i := range pairs {
			x := read(t, simulatedRun(t, seed0+uint64(2*i+1), a))
			y := read(t, simulatedRun(t, seed0+uint64(2*i+2), b))
			for _, c := range Checks(Runs(x, y, Options{}), ths) {
				out[c.Outcome]++
			}
		}
		return out
	}
	same := count(20*time.Millisecond, 20*time.Millisecond, 40, 1000)
	shift := count(20*time.Millisecond, 30*time.Millisecond, 20, 2000)
	t.Logf("same server, 40 pairs: %d regressed, %d undecided, %d within", same[OutcomeRegressed], same[OutcomeUndecided], same[OutcomeWithin])
	t.Logf("20 ms against 30 ms, 20 pairs: %d regressed, %d undecided, %d within", shift[OutcomeRegressed], shift[OutcomeUndecided], shift[OutcomeWithin])
	if same[OutcomeRegressed] != 0 || same[OutcomeRegressed]+same[OutcomeUndecided]+same[OutcomeWithin] != 40 {
		t.Errorf("same server: %v, want no regressed of 40", same)
	}
	if shift[OutcomeRegressed] != 20 {
		t.Errorf("20 ms against 30 ms: %v, want 20 regressed of 20", shift)
	}
}
