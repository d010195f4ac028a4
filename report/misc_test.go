package report

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/sweep"
)

func TestFormat(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestConsoleKneeLines(t *testing.T) {
	t.Parallel()
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
		{"none", func(r *results.Run) { r.Result.Knee, r.Result.Undecided = nil, nil }, "knee: none: no complete level passed", ""},
		{"undecided", func(r *results.Run) { r.Result.Knee = nil }, "knee: undecided: no level passed ttft_p99<=500ms,itl_p95<=50ms, and levels 0, 2 undecided", ""},
		{"not reached", notReached, "knee not reached: safe capacity unknown", "at the knee"},
		{"not reached level", notReached, "\n  at the highest passing level (level 6): goodput ", "at the knee"},
		{"partial", func(*results.Run) {}, "PARTIAL: interrupted; results cover 8 level(s)\n", ""},
		{"partial with a reason", func(r *results.Run) { r.PartialReason = "interrupted by SIGHUP (hangup)" },
			"PARTIAL: interrupted by SIGHUP (hangup); results cover 8 level(s)\n", ""},
		{"complete", func(r *results.Run) { r.Partial, r.Result.Partial = false, false }, "warnings (4)", "PARTIAL"},
	}
	// One fixture for every case: each edits a shallow copy, whose knee
	// and warnings are its own (the edits replace or append, and
	// r.Result.Knee.Reached is set through the pointer).
	base := fixtureRun(t)
	base.Result.Warnings = slices.Clip(base.Result.Warnings)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := base
			knee := *base.Result.Knee
			run.Result.Knee = &knee
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
	t.Parallel()
	line := func(level int, el time.Duration) ProgressLine {
		return ProgressLine{Level: level, Label: "constant 7.4 req/s", Elapsed: el, ETA: 18 * time.Second, Requests: 1312, Errors: 2, TokPerSec: 1894.4, TTFTP99Ms: 458}
	}
	t.Run("tty", func(t *testing.T) {
		var buf bytes.Buffer
		p := NewProgress(&buf, true, false)
		p.Update(line(0, time.Second))
		p.Update(line(0, 2*time.Second))
		p.Done(line(0, 3*time.Second), "PASS")
		want := "\r\x1b[Klevel 0 constant 7.4 req/s  00:01 ETA 00:18 | 1,312 req, 2 err | 1,894 tok/s | TTFT p99 458 ms" +
			"\r\x1b[Klevel 0 constant 7.4 req/s  00:02 ETA 00:18 | 1,312 req, 2 err | 1,894 tok/s | TTFT p99 458 ms" +
			"\r\x1b[Klevel 0 constant 7.4 req/s  00:03 ETA 00:18 | 1,312 req, 2 err | 1,894 tok/s | TTFT p99 458 ms  PASS\n"
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
		p.Update(line(1, 0))
		got := buf.String()
		if n := strings.Count(got, "\n"); n != 5 { // at 0, 5, 10 s, Done, level 1
			t.Errorf("%d plain lines, want 5:\n%s", n, got)
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
		if got := strings.Count(buf.String(), "\r\x1b[K"); got != 400 {
			t.Errorf("%d line rewrites, want 400", got)
		}
	})
}

func TestWriteParetoHTML(t *testing.T) {
	t.Parallel()
	pts := []ParetoPoint{
		{RunID: "fp16-b64", CPM: 1.9, TTFTP99Ms: 420, WhPerToken: 0.0011, OnFrontier: true},
		{RunID: "fp8-b128", CPM: 1.2, TTFTP99Ms: 480, WhPerToken: 0.0007, OnFrontier: true},
		{RunID: "fp16-b128", CPM: 2.1, TTFTP99Ms: 510, WhPerToken: 0.0012},
		{RunID: "broken", CPM: math.Inf(1), TTFTP99Ms: 300},
	}
	var buf bytes.Buffer
	if err := WriteParetoHTML(&buf, pts); err != nil {
		t.Fatal(err)
	}
	problems, figs := offlineProblems(t, buf.Bytes())
	for _, p := range problems {
		t.Errorf("network reference: %s", p)
	}
	if len(figs) != 1 || figs[0].svgs != 1 {
		t.Fatalf("want one inline SVG figure, got %+v", figs)
	}
	for _, id := range []string{"fp16-b64", "fp8-b128", "fp16-b128"} {
		if !figs[0].hasText(id) {
			t.Errorf("chart lacks the label %s", id)
		}
	}
	if figs[0].hasText("broken") || !strings.Contains(buf.String(), "<td>broken</td>") {
		t.Error("a non-finite point should be listed in the table but not drawn")
	}
	buf.Reset()
	if err := WriteParetoHTML(&buf, nil); err != nil || !strings.Contains(buf.String(), "No run has") {
		t.Errorf("empty Pareto: %v\n%s", err, buf.String())
	}
}

func warn(code, msg string) metrics.Warning {
	return metrics.Warning{Code: code, Level: -1, Message: msg}
}
