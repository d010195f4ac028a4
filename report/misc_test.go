package report

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		f    func(float64) string
		in   float64
		want string
	}{
		{fmtMs, math.Inf(1), "inf"},
		{fmtMs, math.NaN(), "nan"},
		{fmtMs, 7.456, "7.46"},
		{fmtMs, 38.24, "38.2"},
		{fmtMs, 412.6, "413"},
		{fmtMs, 1234567, "1,234,567"},
		{fmtMs, 1e21, "1e+21"},
		{fmtRate, 3120.4, "3,120"},
		{fmtRate, 7.4, "7.4"},
		{fmtRate, 7.0, "7"},
		{fmtRate, 12.34, "12.3"},
		{fmtRate, math.Inf(1), "inf"},
		{fmtPercent, 0.0084, "0.84%"},
		{num, math.Inf(1), "inf"},
		{num, math.NaN(), ""},
		{num, 0.1, "0.1"},
	}
	for _, tt := range tests {
		if got := tt.f(tt.in); got != tt.want {
			t.Errorf("format(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := fmtLoad(24, "concurrency"); got != "concurrency 24" {
		t.Errorf("fmtLoad = %q", got)
	}
	if got := thousands(-1234.5, 1); got != "-1,234.5" {
		t.Errorf("thousands = %q", got)
	}
}

// TestConsoleInfinity renders a level where failures push the
// error-adjusted p99 to +Inf (metrics encodes it as "inf" in JSON).
func TestConsoleInfinity(t *testing.T) {
	run := fixtureRun(t)
	l := &run.Result.Levels[1]
	l.Summary.Requests.Failed = 400
	l.Summary.TTFTErrorAdjusted.P99 = math.Inf(1)
	l.Summary.E2EErrorAdjusted.P99 = math.Inf(1)
	l.Summary.ITL.P95 = math.NaN()
	var buf bytes.Buffer
	if err := WriteConsole(&buf, run); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "1  grid") {
			row = line
		}
	}
	if !strings.Contains(row, " inf ") || !strings.Contains(row, " nan ") {
		t.Errorf("level 1 row lacks inf and nan: %q", row)
	}
	buf.Reset()
	if err := WriteLevelsCSV(&buf, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), ",inf,") {
		t.Error("levels.csv lacks inf for the error-adjusted p99")
	}
	var h bytes.Buffer
	if err := WriteHTML(&h, run, HTMLOptions{}); err != nil {
		t.Fatalf("WriteHTML with +Inf and NaN: %v", err)
	}
}

// TestTelemetryLinesAbsent: no energy source and no cost give no lines; a
// source without a valid reading says so instead of a figure.
func TestTelemetryLinesAbsent(t *testing.T) {
	run := fixtureRun(t)
	if got := telemetryLines(run, scorecard.Scorecard{Energy: scorecard.Energy{Source: "none"}}); len(got) != 0 {
		t.Errorf("no source, no cost: got %q, want no lines", got)
	}
	got := telemetryLines(run, scorecard.Scorecard{Energy: scorecard.Energy{Source: "nvml", GPUCount: 1, GPUName: "NVIDIA H200"}})
	want := []string{"energy at the knee (level 6): no valid reading (nvml, 1 × NVIDIA H200): per-token figures withheld"}
	if !slices.Equal(got, want) {
		t.Errorf("invalid reading: got %q, want %q", got, want)
	}
}

func TestConsoleKneeLines(t *testing.T) {
	skipUnderRace(t)
	notReached := func(r *results.Run) { r.Result.Knee.Reached = false; r.Result.Knee.BracketHi = 0 }
	tests := []struct {
		name   string
		edit   func(*results.Run)
		want   string
		absent string // must not appear, or ""
	}{
		{"reached", func(*results.Run) {}, "knee: 7.4 req/s (bracket 7.4–7.8; levels 0, 2 undecided), goodput 1,830 [1,760, 1,910] tok/s under ttft_p99<=500ms,itl_p95<=50ms\n", ""},
		{"reached, all decided", func(r *results.Run) { r.Result.Undecided = nil }, "knee: 7.4 req/s (bracket 7.4–7.8), goodput 1,830 [1,760, 1,910] tok/s", ""},
		{"reached level", func(*results.Run) {}, "\n  at the knee (level 6): goodput ", "highest passing"},
		{"no slo", func(r *results.Run) { r.Result.Objective.Terms = nil; r.Result.Knee = nil }, "knee: no SLO given", ""},
		{"below range", func(r *results.Run) {
			r.Result.Knee = nil
			r.Result.Warnings = append(r.Result.Warnings, warn("knee_below_range", "the first level already fails"))
		}, "knee: below the tested range: the first level already fails", ""},
		{"not searched", func(r *results.Run) { r.Result.Knee, r.Result.Kind = nil, sweep.KindLevels }, "knee: not searched", ""},
		{"none", func(r *results.Run) { r.Result.Knee, r.Result.Undecided = nil, nil; noPass(r) }, "knee: none: no complete level passed", ""},
		{"undecided", func(r *results.Run) { r.Result.Knee = nil; noPass(r) }, "knee: undecided: no complete level passed ttft_p99<=500ms,itl_p95<=50ms, and levels 0, 2 undecided", ""},
		// Issue 25: a partial sweep said "no level passed" beside levels
		// that showed PASS.
		{"partial with passes", func(r *results.Run) { r.Result.Knee = nil }, "knee: none found: the sweep stopped early (partial) before it could bracket one; levels 3, 5, 6 passed ttft_p99<=500ms,itl_p95<=50ms; levels 0, 2 undecided", "no level passed"},
		{"not reached", notReached, "knee not reached: safe capacity unknown", "at the knee"},
		{"not reached level", notReached, "\n  at the highest passing level (level 6): goodput ", "at the knee"},
		{"partial", func(*results.Run) {}, "PARTIAL: interrupted; results cover 8 level(s)\n", ""},
		{"partial with a reason", func(r *results.Run) { r.PartialReason = "interrupted by SIGHUP (hangup)" },
			"PARTIAL: interrupted by SIGHUP (hangup); results cover 8 level(s)\n", ""},
		{"complete", func(r *results.Run) { r.Partial, r.Result.Partial = false, false }, "warnings (4)", "PARTIAL"},
		// The round-3 GPU check: a run with --energy nvml on an H200 put
		// its energy in scorecard.json and said nothing of it on the console.
		{"energy", func(*results.Run) {}, "\nenergy at the knee (level 6): 0.0676 [0.0650, 0.0704] mWh per output token; 7.69 Wh over 60.0 s, 461 W mean (nvml, 1 × NVIDIA H100 80GB HBM3)\n", ""},
		{"cost", func(*results.Run) {}, "\ncost at the knee (level 6): 0.439 [0.422, 0.457] EUR per 1M output tokens at goodput, from 2.9 EUR/h (flag)\n", ""},
		{"energy not reached", notReached, "\nenergy at level 6 (", "energy at the knee"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := fixtureRun(t)
			tt.edit(&run)
			var buf bytes.Buffer
			if err := WriteConsole(&buf, run); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), tt.want) {
				t.Errorf("console lacks %q:\n%s", tt.want, buf.String())
			}
			if tt.absent != "" && strings.Contains(buf.String(), tt.absent) {
				t.Errorf("console holds %q:\n%s", tt.absent, buf.String())
			}
		})
	}
}

func TestProgress(t *testing.T) {
	line := func(level int, el time.Duration) ProgressLine {
		return ProgressLine{Level: level, Label: "constant 7.4 req/s", Elapsed: el, ETA: 18 * time.Second, Requests: 1312, Errors: 2, TokPerSec: 1894.4, TTFTP99Ms: 458}
	}
	t.Run("tty", func(t *testing.T) {
		var buf bytes.Buffer
		p := NewProgress(&buf, true, false)
		p.Update(line(0, time.Second))
		p.Update(line(0, 2*time.Second))
		p.Done(line(0, 3*time.Second), "PASS")
		want := "\r\x1b[Jlevel 0 constant 7.4 req/s  00:01 ETA 00:18 | 1,312 req, 2 err | 1,894 tok/s | TTFT p99 458 ms" +
			"\r\x1b[Jlevel 0 constant 7.4 req/s  00:02 ETA 00:18 | 1,312 req, 2 err | 1,894 tok/s | TTFT p99 458 ms" +
			"\r\x1b[Jlevel 0 constant 7.4 req/s  00:03 ETA 00:18 | 1,312 req, 2 err | 1,894 tok/s | TTFT p99 458 ms  PASS\n"
		if buf.String() != want {
			t.Errorf("got %q\nwant %q", buf.String(), want)
		}
	})
	t.Run("plain", func(t *testing.T) {
		var buf bytes.Buffer
		p := NewProgress(&buf, false, false)
		for s := 0; s <= 12; s++ {
			p.Update(line(0, time.Duration(s)*time.Second))
		}
		p.Done(line(0, 13*time.Second), "")
		for s := 0; s <= 4; s++ {
			p.Update(line(1, time.Duration(s)*time.Second)) // a short level: its end only
		}
		p.Done(line(1, 4*time.Second), "")
		got := buf.String()
		if n := strings.Count(got, "\n"); n != 4 { // level 0 at 5, 10 s and its end; level 1's end
			t.Errorf("%d plain lines, want 4:\n%s", n, got)
		}
		if strings.Contains(got, "\r") || strings.Contains(got, "\x1b") {
			t.Error("plain output holds terminal control characters")
		}
	})
	t.Run("quiet", func(t *testing.T) {
		var buf bytes.Buffer
		p := NewProgress(&buf, true, true)
		p.Update(line(0, time.Second))
		p.Done(line(0, time.Second), "PASS")
		p.Sweep(sweep.Event{Type: sweep.LevelStart})
		if buf.Len() != 0 {
			t.Errorf("quiet progress wrote %q", buf.String())
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		var buf bytes.Buffer
		p := NewProgress(&buf, true, false)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				for k := range 50 {
					p.Update(line(i, time.Duration(k)*time.Second))
				}
			})
		}
		wg.Wait()
		if got := strings.Count(buf.String(), "\r\x1b[J"); got != 400 {
			t.Errorf("%d line rewrites, want 400", got)
		}
	})
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// failing is a level that failed ttft_p99<=500ms at 812 ms [790, 840].
func failing(t *testing.T, idx int) *sweep.LevelOutcome {
	term := mustObjective(t, "ttft_p99<=500ms").Terms[0]
	return &sweep.LevelOutcome{Index: idx, Verdict: slo.Verdict{Outcome: slo.OutcomeFail, Failing: []string{"ttft_p99<=500ms"},
		Terms: []slo.TermResult{{Term: term, Measured: 812, Interval: stats.Interval{Lo: 790, Hi: 840}, Outcome: slo.OutcomeFail}}}}
}

func passing(t *testing.T, idx int) *sweep.LevelOutcome {
	term := mustObjective(t, "ttft_p99<=500ms").Terms[0]
	// The window's TTFT p99 (19.5 ms) differs from the live one (458 ms,
	// every request so far, the trims included), as a reviewer saw.
	return &sweep.LevelOutcome{Index: idx, Summary: metrics.Summary{TTFT: metrics.Distribution{Count: 300, P99: 19.5}},
		Verdict: slo.Verdict{Outcome: slo.OutcomePass, Pass: true,
			Terms: []slo.TermResult{{Term: term, Measured: 210, Interval: stats.Interval{Lo: 190, Hi: 240}, Outcome: slo.OutcomePass, Pass: true}}}}
}

// TestLiveVerdictSaysFailuresCountAsInfinity: the live FAIL line showed
// "inf [inf, inf]" without saying why.
func TestLiveVerdictSaysFailuresCountAsInfinity(t *testing.T) {
	term := mustObjective(t, "ttft_p99<=500ms").Terms[0]
	inf := math.Inf(1)
	l := sweep.LevelOutcome{Summary: metrics.Summary{Requests: metrics.RequestCounts{OK: 30, Failed: 10}},
		Verdict: slo.Verdict{Outcome: slo.OutcomeFail, Failing: []string{"ttft_p99<=500ms"},
			Terms: []slo.TermResult{{Term: term, Measured: inf, Interval: stats.Interval{Lo: inf, Hi: inf}, Outcome: slo.OutcomeFail}}}}
	got := liveVerdict(l)
	if want := "FAIL ttft_p99<=500ms (inf [inf, inf] ms: failures count as +∞, 10 of 40 requests failed)"; got != want {
		t.Errorf("live verdict %q, want %q", got, want)
	}
}

// TestProgressSweep covers the live view of a sweep as the issue saw it
// lacking: no sweep-wide header (phase, level i of n, elapsed, total ETA),
// verdicts only at the end, an ETA that vanished while a level drained.
func TestProgressSweep(t *testing.T) {
	prof := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 7.4}
	hp := func(level int, el, expected, drain time.Duration, final bool) harness.Progress {
		return harness.Progress{Level: level, Repeats: 1, Profile: prof, Elapsed: el, Expected: expected, Drain: drain,
			Live: metrics.LiveStats{Done: 300, Failed: 1, OutputTokens: 3000, TTFTP99: 458}, Final: final}
	}
	t.Run("tty", func(t *testing.T) {
		clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		var buf bytes.Buffer
		p := NewProgress(&buf, true, false, WithClock(clk.now))
		p.Sweep(sweep.Event{Type: sweep.LevelStart, Index: 0, Phase: sweep.PhaseGrid, Profile: prof, Expected: 3})
		clk.advance(2 * time.Second)
		p.Harness(hp(0, 2*time.Second, 10*time.Second, 5*time.Second, false))
		screen := buf.String()
		for _, want := range []string{"sweep · grid · level 0 (1 of ~3) · 00:02 elapsed · ETA 00:28", "\nlevel 0 constant 7.4 req/s  00:02 ETA 00:08 |"} {
			if !strings.Contains(screen, want) {
				t.Errorf("screen lacks %q:\n%q", want, screen)
			}
		}
		// Past its planned 10 s the level drains: the ETA stays.
		clk.advance(10 * time.Second)
		buf.Reset()
		p.Harness(hp(0, 12*time.Second, 10*time.Second, 5*time.Second, false))
		if want := "00:12 draining ≤ 00:03"; !strings.Contains(buf.String(), want) {
			t.Errorf("draining level: %q lacks %q", buf.String(), want)
		}
		if !strings.HasPrefix(buf.String(), "\r\x1b[1A\x1b[J") {
			t.Errorf("the two-line block is not rewritten in place: %q", buf.String())
		}
		p.Harness(hp(0, 13*time.Second, 10*time.Second, 5*time.Second, true))
		buf.Reset()
		p.Sweep(sweep.Event{Type: sweep.LevelEnd, Index: 0, Phase: sweep.PhaseGrid, Profile: prof, Expected: 3, Outcome: failing(t, 0)})
		end := buf.String()
		if !strings.Contains(end, "level 0 constant 7.4 req/s  00:13 | 300 req, 1 err") || !strings.HasSuffix(end, "  FAIL ttft_p99<=500ms (812 [790, 840] ms)\n") {
			t.Errorf("level end: %q: want its last line kept with the verdict and the deciding term", end)
		}
		// The next level's header: one level took 12 s, two remain.
		clk.advance(time.Second)
		buf.Reset()
		p.Sweep(sweep.Event{Type: sweep.LevelStart, Index: 1, Phase: sweep.PhaseBisect, Profile: prof, Expected: 3})
		if want := "sweep · bisect · level 1 (2 of ~3) · 00:13 elapsed · ETA 00:24"; !strings.Contains(buf.String(), want) {
			t.Errorf("header %q lacks %q", buf.String(), want)
		}
	})
	t.Run("plain", func(t *testing.T) {
		clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		var buf bytes.Buffer
		p := NewProgress(&buf, false, false, WithClock(clk.now))
		for lvl := range 3 {
			p.Sweep(sweep.Event{Type: sweep.LevelStart, Index: lvl, Phase: sweep.PhaseGrid, Profile: prof, Expected: 3})
			for s := 1; s <= 3; s++ {
				clk.advance(time.Second)
				p.Harness(hp(lvl, time.Duration(s)*time.Second, 3*time.Second, 0, s == 3))
			}
			p.Sweep(sweep.Event{Type: sweep.LevelEnd, Index: lvl, Phase: sweep.PhaseGrid, Profile: prof, Expected: 3, Outcome: passing(t, lvl)})
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("%d lines for three 3-second levels, want one each:\n%s", len(lines), buf.String())
		}
		if want := "level 2 constant 7.4 req/s  00:03 | 300 req, 1 err | 1,000 tok/s | TTFT p99 19.5 ms (window)  PASS  [grid · level 2 (3 of ~3) · 00:09 elapsed · ETA 00:00]"; lines[2] != want {
			t.Errorf("last line\n%q\nwant\n%q", lines[2], want)
		}
	})
}

// paretoCard is a scorecard with the Pareto figures (negative: absent).
func paretoCard(id string, cpm, wh, ttft float64, pass bool) scorecard.Scorecard {
	opt := func(v float64) *float64 {
		if v < 0 {
			return nil
		}
		return &v
	}
	return scorecard.Scorecard{SchemaVersion: scorecard.SchemaVersion, Metadata: scorecard.Metadata{RunID: id},
		Performance: scorecard.Performance{TTFTP99Ms: opt(ttft), SLOPass: &pass},
		Cost:        scorecard.Cost{CPMEUR1M: opt(cpm)}, Energy: scorecard.Energy{WhPerToken: opt(wh)}}
}

// TestParetoHTMLNoEnergy: a run without Wh/token was drawn as a
// "dominated" ring while the table said "no energy figure"; it is not on
// the chart, for want of the figure, and the page says so.
func TestParetoHTMLNoEnergy(t *testing.T) {
	cards := []scorecard.Scorecard{
		paretoCard("fp8", 1.2, 0.0007, 480, true),
		paretoCard("no-energy", 1.5, -1, 500, true), // no NVML
	}
	frontier, dropped := scorecard.Pareto(cards, nil)
	var buf bytes.Buffer
	if err := WriteParetoHTML(&buf, ParetoPoints(frontier, dropped, scorecard.CostGPUHour)); err != nil {
		t.Fatal(err)
	}
	_, figs := offlineProblems(t, buf.Bytes())
	if len(figs) != 1 || figs[0].hasText("no-energy") {
		t.Error("a run without an energy figure is drawn (as dominated)")
	}
	if strings.Contains(buf.String(), ">dominated<") {
		t.Error("the legend names dominated runs, but none is dominated")
	}
	for _, want := range []string{"Not on the chart: no-energy: no energy figure", "(not on the chart: no energy figure)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestWriteParetoHTML covers what `pareto --html` got wrong: a run without
// a cost figure was drawn at CPM 0 (the best spot) and listed as "0"; a
// run the SLO rejected showed only as "no"; a marker sat clipped on the
// chart's edge.
func TestWriteParetoHTML(t *testing.T) {
	cards := []scorecard.Scorecard{
		paretoCard("fp16-b64", 1.9, 0.0011, 420, true),
		paretoCard("fp8-b128", 1.2, 0.0007, 480, true),
		paretoCard("fp16-b128", 2.1, 0.0012, 510, true),  // dominated
		paretoCard("no-cost", -1, 0.0005, 300, true),     // no --gpu-cost-eur-h
		paretoCard("too-slow", 0.9, 0.0006, 2400, false), // cheapest, but fails its SLO
		paretoCard("far", 6.5, 0.0030, 3900, true),       // sets the axes' far corner
	}
	frontier, dropped := scorecard.Pareto(cards, nil)
	pts := ParetoPoints(frontier, dropped, scorecard.CostGPUHour)
	var buf bytes.Buffer
	if err := WriteParetoHTML(&buf, pts); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	problems, figs := offlineProblems(t, buf.Bytes())
	for _, p := range problems {
		t.Errorf("network reference: %s", p)
	}
	if len(figs) != 1 || figs[0].svgs != 1 {
		t.Fatalf("want one inline SVG figure, got %+v", figs)
	}
	for _, id := range []string{"fp16-b64", "fp8-b128", "fp16-b128", "too-slow"} {
		if !figs[0].hasText(id) {
			t.Errorf("chart lacks the run %s", id)
		}
	}
	if figs[0].hasText("no-cost") {
		t.Error("a run without a cost figure is drawn (at CPM 0?)")
	}
	for _, want := range []string{
		"Not on the chart: no-cost: no cost figure",
		"<td>no-cost</td><td class=\"num\">-</td>",
		`<td class="rejected">rejected: `,
		"rejected by the SLO",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Every marker lies inside the data area, none on its edge.
	c := parseChart(t, svgsOf(t, buf.Bytes())["plot-pareto"])
	markers := map[string]bool{"#FF7F0E": true, "#1F77B4": true, "#D62728": true}
	for _, p := range c.paths {
		if !markers[p.stroke] && !markers[p.fill] || len(p.pts) == 0 || p.pts[0][0] > c.area.x1 {
			continue // axes, grid, legend
		}
		for _, pt := range p.pts {
			if pt[0] < c.area.x0+1 || pt[0] > c.area.x1-1 || pt[1] < c.area.y0+1 || pt[1] > c.area.y1-1 {
				t.Errorf("marker vertex %v outside the data area %v", pt, c.area)
			}
		}
	}
	for _, tx := range c.texts {
		if tx.box.x1 > c.width || tx.box.y0 < 0 {
			t.Errorf("label %q %v runs off the chart", tx.s, tx.box)
		}
	}
	buf.Reset()
	if err := WriteParetoHTML(&buf, nil); err != nil || !strings.Contains(buf.String(), "nothing to chart") {
		t.Errorf("empty Pareto: %v\n%s", err, buf.String())
	}
}

func warn(code metrics.WarningCode, msg string) metrics.Warning {
	return metrics.Warning{Code: code, Level: -1, Message: msg}
}

// TestConsoleWarningsOnePerCode: a llama.cpp sweep of 14 levels raised 30
// warnings (14 few_samples, 13 token_count_mismatch, one per level, and a
// few others); the console ends with one line per code, naming the levels.
func TestConsoleWarningsOnePerCode(t *testing.T) {
	run := fixtureRun(t)
	run.Result.Warnings = nil
	for l := range 14 {
		run.Result.Warnings = append(run.Result.Warnings,
			metrics.Warning{Code: "few_samples", Level: l, Message: fmt.Sprintf("level %d: 24 samples: p99 unbounded", l)})
		if l > 0 {
			run.Result.Warnings = append(run.Result.Warnings,
				metrics.Warning{Code: "token_count_mismatch", Level: l, Message: fmt.Sprintf("level %d: usage and tokenizer disagree on 3 requests", l)})
		}
	}
	run.Result.Warnings = append(run.Result.Warnings,
		metrics.Warning{Code: "max_rate_fallback", Level: -1, Message: "grid spaced geometrically"},
		metrics.Warning{Code: "knee_below_range", Level: -1, Message: "level 2 failed"},
		metrics.Warning{Code: "drained", Level: 3, Message: "a probe waited 4 s"})
	var buf bytes.Buffer
	if err := WriteConsole(&buf, run); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	_, tail, ok := strings.Cut(out, "\nwarnings (30):\n")
	if !ok {
		t.Fatalf("no warnings block:\n%s", out)
	}
	block := strings.Split(strings.TrimSpace(strings.Split(tail, "\n\n")[0]), "\n")
	if len(block) != 5 {
		t.Errorf("%d warning lines for 5 codes:\n%s", len(block), strings.Join(block, "\n"))
	}
	for _, want := range []string{"few_samples (14 warnings, levels 0–13)", "token_count_mismatch (13 warnings, levels 1–13)", "drained (level 3)"} {
		if !strings.Contains(tail, want) {
			t.Errorf("warnings lack %q:\n%s", want, tail)
		}
	}
	// The page groups them the same way.
	groups := groupWarnings(run.Result.Warnings)
	if len(groups) != 5 || groups[0].Levels != "levels 0–13" || groups[0].Count != 14 {
		t.Errorf("report.html groups %+v", groups)
	}
}

// noPass makes every level of r fail its SLO and the sweep complete: a
// sweep with no knee because no level passed.
func noPass(r *results.Run) {
	r.Partial, r.Result.Partial = false, false
	for i := range r.Result.Levels {
		r.Result.Levels[i].Verdict.Pass = false
	}
}
