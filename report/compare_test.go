package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/compare"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/stats"
)

// comparisonFixture: A and B at concurrency 4 with spreads and counts
// (Welch for the ITL mean, Newcombe for the error rate, no interval for
// the summary percentiles), a workload mismatch, and a level only A has.
func comparisonFixture() Comparison {
	lat := func(p50, p99, mean, sd float64, n int64) peer.Stats {
		return peer.Stats{P50: peer.Some(p50), P99: peer.Some(p99), Mean: peer.Some(mean), Std: peer.Some(sd), N: peer.Known(n)}
	}
	a := peer.Result{Tool: "gollm-bench", ToolVersion: "0.3.0", File: "a/run.json",
		Workload: peer.Workload{Endpoint: "chat", Warmup: "10%"},
		Levels: []peer.Level{
			{Label: "level 0", Mode: loadgen.ModeConcurrent, Concurrency: 4, TTFT: lat(41.2, 512.3, 60, 30, 400), ITL: lat(10, 12, 10.2, 1, 400),
				OutputTokPerSec: peer.Some(1834.5678), Requests: peer.Requests{Completed: peer.Known(400), Failed: peer.Known(0)}, Definitions: peer.Native(),
				ISL: peer.Stats{Mean: peer.Some(256)}},
			{Label: "level 1", Mode: loadgen.ModePoisson, Rate: peer.Some(7.4123), MaxConcurrency: 64, Definitions: peer.Native()},
		}}
	b := peer.Result{Tool: "AIPerf", File: "b.json",
		Workload: peer.Workload{Endpoint: "completions", Warmup: "10%"},
		Levels: []peer.Level{
			{Label: "c4", Mode: loadgen.ModeConcurrent, Concurrency: 4, TTFT: lat(40.0, 530, 61, 30, 300), ITL: lat(11, 13, 11.2, 1, 300),
				OutputTokPerSec: peer.Some(2000), Requests: peer.Requests{Completed: peer.Known(280), Failed: peer.Known(20)}, Definitions: peer.Native(),
				ISL: peer.Stats{Mean: peer.Some(81)}},
		}}
	ths, _ := compare.ParseFailOn("itl_mean:+5%,error_rate:+1%")
	ms, err := compare.ParseMetrics("ttft_p50,ttft_p99,itl_mean,output_tps,error_rate")
	if err != nil {
		panic(err)
	}
	res := compare.Runs(a, b, compare.Options{Metrics: ms})
	return Comparison{Results: []compare.Result{res}, FailOn: "itl_mean:+5%,error_rate:+1%", Regressions: [][]compare.Check{compare.Regressions(res, ths)}}
}

// TestWriteComparisonConsole: the mismatches come first, one line each;
// rows give A and B with intervals, the delta relative to A with its
// interval, the verdict and the method; a level only A has is named; the
// regressions close it.
func TestWriteComparisonConsole(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteComparison(&buf, CompareConsole, comparisonFixture()); err != nil {
		t.Fatal(err)
	}
	want := `A: gollm-bench 0.3.0 (a/run.json)
B: AIPerf (b.json)

workload mismatch: ISL 256 vs 81
workload mismatch: endpoint chat vs completions
(rows marked ! compare different workloads)

level            metric                            A                     B                           delta  verdict  method
concurrency 4 !  TTFT p50 (ms)                  41.2                    40                          -2.91%  ?        none
                 TTFT p99 (ms)                   512                   530                          +3.46%  ?        none
                 ITL mean (ms)  10.20 [10.10, 10.30]  11.20 [11.09, 11.31]           +9.8% [+8.3%, +11.3%]  worse    welch
                 output tok/s                  1,835                 2,000                          +9.02%  ?        none
                 error rate            0% [0%, 1.0%]    6.7% [4.4%, 10.1%]  +6.7 pts [+4.2 pts, +10.1 pts]  worse    newcombe

levels only in A: 7.41 req/s (max 64) (level 1)

regression: itl_mean at concurrency 4: +9.8% [+8.3%, +11.3%], regressed beyond itl_mean:+5% (welch)
regression: error_rate at concurrency 4: +6.7 pts [+4.2 pts, +10.1 pts], regressed beyond error_rate:+1% (newcombe)
`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteComparisonFormats(t *testing.T) {
	c := comparisonFixture()
	var md bytes.Buffer
	if err := WriteComparison(&md, CompareMarkdown, c); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"- workload mismatch: ISL 256 vs 81\n", "| level | metric | A | B | delta | verdict | method |\n| --- | --- | ---: |", "| concurrency 4 ! | ITL mean (ms) |"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, md.String())
		}
	}
	var js bytes.Buffer
	if err := WriteComparison(&js, CompareJSON, c); err != nil {
		t.Fatal(err)
	}
	var got struct {
		SchemaVersion string `json:"schema_version"`
		Regressed     bool   `json:"regressed"`
		Comparisons   []struct {
			Mismatches []compare.Mismatch `json:"workload_mismatches"`
			Rows       []struct {
				Level  string          `json:"level"`
				Metric compare.Metric  `json:"metric"`
				DiffCI *stats.Interval `json:"diff_ci"`
				Rel    *float64        `json:"rel"`
				Method string          `json:"method"`
			} `json:"rows"`
			OnlyA []string `json:"levels_only_in_a"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, js.String())
	}
	cmp := got.Comparisons[0]
	if got.SchemaVersion != "compare/1" || !got.Regressed || len(cmp.Mismatches) != 2 || cmp.OnlyA[0] != "7.41 req/s (max 64)" {
		t.Errorf("json: %+v", got)
	}
	itl := cmp.Rows[2]
	if itl.Metric.Key != "itl_mean" || itl.Level != "concurrency 4" || itl.Method != "welch" || itl.DiffCI == nil || itl.Rel == nil || math.Abs(*itl.Rel-0.0980392) > 1e-6 {
		t.Errorf("ITL row: %+v", itl)
	}
	var cs bytes.Buffer
	if err := WriteComparison(&cs, CompareCSV, c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(CompareCSVColumns(), ",") || len(recs) != 1+2+5 {
		t.Fatalf("csv: %d lines, header %v", len(recs), recs[0])
	}
	var regressions int
	reg, gate := slices.Index(recs[0], "regression"), slices.Index(recs[0], "gate")
	for _, r := range recs[1:] {
		if r[reg] == "true" && r[gate] == "regressed" {
			regressions++
		}
	}
	if regressions != 2 {
		t.Errorf("csv marks %d regressions, want 2:\n%s", regressions, cs.String())
	}
	if err := WriteComparison(&cs, "xml", c); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestSigned(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"5% [1%, 9%]", "+5% [+1%, +9%]"},
		{"-3% [-8%, 2%]", "-3% [-8%, +2%]"},
		{"0 pts [-0.5 pts, 0.2 pts]", "0 pts [-0.5 pts, +0.2 pts]"},
		{"161% [unbounded]", "+161% [unbounded]"},
		{"0.07%", "+0.07%"},
	} {
		if got := signed(tt.in); got != tt.want {
			t.Errorf("signed(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCompareUncheckedGate: a --fail-on term on a metric neither input
// holds is reported, and exits 2, not "no regression" and 0.
func TestCompareUncheckedGate(t *testing.T) {
	fx := comparisonFixture()
	ths, err := compare.ParseFailOn("goodput:-3%,cpm:+5%")
	if err != nil {
		t.Fatal(err)
	}
	c, regressed := NewComparison(fx.Results, "goodput:-3%,cpm:+5%", ths)
	var buf bytes.Buffer
	if err := WriteComparison(&buf, CompareConsole, c); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"not checked: cpm:+5%: cpm is in neither input: the gate cannot be checked\n",
		"not checked: goodput:-3%: goodput is in neither input: the gate cannot be checked\n"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("console lacks %q:\n%s", w, buf.String())
		}
	}
	if strings.Contains(buf.String(), "no regression: every change lies within the fail-on thresholds") {
		t.Errorf("an unchecked gate is reported as passed:\n%s", buf.String())
	}
	code, err := c.Exit()
	if regressed || code != exitcode.Usage || err == nil || !strings.Contains(err.Error(), "cpm is in neither input") {
		t.Errorf("Exit() = %d, %v (regressed %v), want 2 naming cpm", code, err, regressed)
	}
	// A regression wins: it is a finding, exit 3.
	ths2, _ := compare.ParseFailOn("itl_mean:+5%,cpm:+5%")
	c2, _ := NewComparison(fx.Results, "itl_mean:+5%,cpm:+5%", ths2)
	if code, _ := c2.Exit(); code != exitcode.SLOFailed {
		t.Errorf("regression and unchecked gate: exit %d, want 3", code)
	}
	var js bytes.Buffer
	if err := WriteComparison(&js, CompareJSON, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"unchecked_gates"`) {
		t.Errorf("json lacks unchecked_gates:\n%s", js.String())
	}
}

// TestCompareCSVRoundsP: the Mann–Whitney p-value is written to three
// significant figures, not as a long decimal.
func TestCompareCSVRoundsP(t *testing.T) {
	c := comparisonFixture()
	c.Results[0].Rows[0].P = peer.Some(1.688590359039307e-06)
	var cs bytes.Buffer
	if err := WriteComparison(&cs, CompareCSV, c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(CompareCSVColumns(), "p_location")
	for _, r := range recs[1:] {
		if r[3] == "level" && r[5] == "ttft_p50" && r[col] != "1.69e-06" {
			t.Errorf("p_location %q, want 1.69e-06", r[col])
		}
	}
}

// TestDeltaOfTooFewRowIsUnbounded: two runs of one mock that differed only
// in length printed "+27.5%" for a p99 that one side could not bound, a
// bare figure beside verdicts that read as a decided change. The change
// keeps its point figure but says its interval is unbounded.
func TestDeltaOfTooFewRowIsUnbounded(t *testing.T) {
	r := compare.Row{Diff: peer.Some(2.2), Rel: peer.Some(0.275), TooFew: true}
	if got, want := fmtDelta(r), "+27.5% [unbounded]"; got != want {
		t.Errorf("fmtDelta(too few) = %q, want %q", got, want)
	}
	r.Rel = peer.Value{}
	if got := fmtDelta(r); !strings.HasSuffix(got, "[unbounded]") {
		t.Errorf("fmtDelta(too few, from 0) = %q, want an unbounded interval", got)
	}
	r.TooFew, r.Rel, r.RelCI = false, peer.Some(0.275), stats.Interval{Lo: 0.2, Hi: 0.35}
	if got := fmtDelta(r); strings.Contains(got, "unbounded") {
		t.Errorf("fmtDelta(bounded) = %q", got)
	}
}

// TestCompareGateThreeValued: a change whose interval holds the limit is
// undecided (exit 5, with what would decide it), one wholly inside is
// within (exit 0); single runs on both sides get the note that the
// interval covers within-run noise only.
func TestCompareGateThreeValued(t *testing.T) {
	fx := comparisonFixture() // ITL mean +9.8% [+8.3%, +11.3%]
	for _, tt := range []struct {
		gate string
		code int
		want []string
	}{
		{"itl_mean:+10%", exitcode.Undecided, []string{"undecided: itl_mean at concurrency 4: +9.8% [+8.3%, +11.3%], undecided against itl_mean:+10% (welch: the interval holds the limit): about ", " more requests a side would decide it", withinRunNote}},
		{"itl_mean:+20%", exitcode.OK, []string{"no regression: every change lies within the fail-on thresholds", withinRunNote}},
	} {
		ths, err := compare.ParseFailOn(tt.gate)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := NewComparison(fx.Results, tt.gate, ths)
		var buf bytes.Buffer
		if err := WriteComparison(&buf, CompareConsole, c); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: console lacks %q:\n%s", tt.gate, w, buf.String())
			}
		}
		if code, err := c.Exit(); code != tt.code {
			t.Errorf("%s: Exit() = %d, %v, want %d", tt.gate, code, err, tt.code)
		}
		var js bytes.Buffer
		if err := WriteComparison(&js, CompareJSON, c); err != nil {
			t.Fatal(err)
		}
		if tt.code == exitcode.Undecided && !strings.Contains(js.String(), `"undecided"`) {
			t.Errorf("json lacks undecided:\n%s", js.String())
		}
	}
}
