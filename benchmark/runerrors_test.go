package benchmark

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// quickRun is a run against the instant built-in mock that writes
// nothing: a few requests at one level.
func quickRun() Settings {
	s := DefaultSettings(CommandRun)
	s.MockPreset, s.Energy, s.OutputDir = "instant", "none", ""
	s.Rates, s.MaxRequests, s.MaxLag = []float64{5}, 4, time.Second
	return s
}

// Seen (issue 26, review): a runner that failed (here Options.Progress
// panicked) gave Code Partial and a nil error, the log said "interrupted"
// and the panic's message was nowhere. The results are still kept and
// marked partial, but Run returns the runner's error, and run.json and
// the log say what stopped it.
func TestRunReturnsTheRunnersError(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	b, err := New(context.Background(), quickRun(), Options{Log: &log, Progress: func(harness.Progress) { panic("boom progress") }})
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "boom progress") {
		t.Fatalf("Run: code %d, error %v; want the runner's error with the panic's message", out.Code, err)
	}
	if out.Code != exitcode.Failure {
		t.Errorf("code %d, want %d (a runtime failure)", out.Code, exitcode.Failure)
	}
	if !out.Run.Partial || !strings.Contains(out.Run.PartialReason, "boom progress") || len(out.Run.Result.Levels) != 1 {
		t.Errorf("partial %v, reason %q, levels %d: want the level kept, marked partial, with the reason", out.Run.Partial, out.Run.PartialReason, len(out.Run.Result.Levels))
	}
	if strings.Contains(log.String(), "interrupted") {
		t.Errorf("the log says the run was interrupted; nothing interrupted it:\n%s", log.String())
	}
}

// Seen (issue 26, review): a second Run on one Benchmark measured the
// built-in mock the first had closed, a dead port, and returned a nil
// error; two Runs at once shared one runner. Run runs once: a second
// call, during the first or after it, is refused and runs nothing.
func TestRunRunsOnce(t *testing.T) {
	t.Parallel()
	var (
		b         *Benchmark
		duringErr error
		calls     atomic.Int32
	)
	b, err := New(context.Background(), quickRun(), Options{Progress: func(harness.Progress) {
		if calls.Add(1) == 1 {
			_, duringErr = b.Run(context.Background())
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Run(context.Background())
	if err != nil || out.Run.Result.Levels[0].Summary.Requests.OK == 0 {
		t.Fatalf("the first Run: %v", err)
	}
	if duringErr == nil || !strings.Contains(duringErr.Error(), "already called") {
		t.Errorf("a Run during the first: %v, want it refused", duringErr)
	}
	out, err = b.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "build a new one with New") || out.Code != exitcode.Failure {
		t.Errorf("a second Run: code %d, error %v; want it refused", out.Code, err)
	}
}

// Seen (issue 26, review): a run (CommandRun) took a sweep's settings
// and ignored them. Each is refused, named, when it differs from the
// run's defaults.
func TestRunRefusesSweepSettings(t *testing.T) {
	t.Parallel()
	s := quickRun()
	s.KneeTolerance, s.GridLevels, s.MaxLevels, s.EarlyStop = 0.1, 5, 8, true
	err := Check(s, Options{})
	for _, want := range []string{"Settings.KneeTolerance 0.1 applies to a sweep", "Settings.GridLevels 5 applies", "Settings.MaxLevels 8 applies", "Settings.EarlyStop true applies", "CommandSweep"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v\nwant %q", err, want)
		}
	}
	if err := Check(quickRun(), Options{}); err != nil {
		t.Errorf("a run with the defaults: %v", err)
	}
}

// Seen (issue 26, review): Settings.SLO built by hand was not checked:
// Percentile 150 or a NaN threshold judged the levels. New refuses it,
// naming Settings.SLO and the term.
func TestHandBuiltSLORefused(t *testing.T) {
	t.Parallel()
	s := quickRun()
	s.SLO = slo.Objective{Terms: []slo.Term{{Metric: slo.MetricTTFT, Percentile: 150, Op: slo.OpLE, Threshold: 10}}}
	_, err := New(context.Background(), s, Options{})
	if _, ok := err.(*InputError); !ok || !strings.Contains(err.Error(), "Settings.SLO: slo: term 1 (ttft_p150<=10ms): percentile 150 is out of range") {
		t.Errorf("New: %v, want an *InputError naming Settings.SLO", err)
	}
}

// Seen (issue 26, review): a panic in Options.SweepProgress or
// Options.OpenNVML escaped Run and New to the caller, although one in
// Options.Progress was an error. Each is now an error with the panic's
// message: SweepProgress's stops the levels and is Run's; OpenNVML's is
// New's for Energy "nvml", and a warning for "auto", which goes on.
func TestCallbackPanicsAreErrors(t *testing.T) {
	t.Parallel()
	noPanic := func(t *testing.T) {
		t.Helper()
		if v := recover(); v != nil {
			t.Fatalf("a panic escaped: %v", v)
		}
	}
	t.Run("SweepProgress", func(t *testing.T) {
		defer noPanic(t)
		b, err := New(context.Background(), quickRun(), Options{SweepProgress: func(sweep.Event) { panic("boom sweep progress") }})
		if err != nil {
			t.Fatal(err)
		}
		out, err := b.Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "Options.SweepProgress panicked: boom sweep progress") || out.Code != exitcode.Failure {
			t.Errorf("Run: code %d, error %v; want the panic as the error", out.Code, err)
		}
	})
	// Seen (issue 26, second review): a panicking Options.Log or Stdout
	// escaped Run as a panic. Its first panic is Run's error, and the
	// writer gets nothing more.
	for _, w := range []string{"Log", "Stdout"} {
		t.Run(w, func(t *testing.T) {
			defer noPanic(t)
			boom := writerFunc(func([]byte) (int, error) { panic("writer boom") })
			opt := Options{Log: io.Discard, Stdout: io.Discard}
			s := quickRun()
			if w == "Log" {
				opt.Log = boom
			} else {
				opt.Stdout, s.Formats = boom, []Format{FormatConsole}
			}
			b, err := New(context.Background(), s, opt)
			if err != nil {
				t.Fatal(err)
			}
			out, err := b.Run(context.Background())
			if err == nil || !strings.Contains(err.Error(), "Options."+w+" panicked: writer boom") || out.Code != exitcode.Failure {
				t.Errorf("Run: code %d, error %v; want the panic as the error", out.Code, err)
			}
		})
	}
	t.Run("OpenNVML", func(t *testing.T) {
		defer noPanic(t)
		s := quickRun()
		s.Energy = "nvml"
		opt := Options{OpenNVML: func() (energy.Source, error) { panic("boom nvml") }}
		_, err := New(context.Background(), s, opt)
		if err == nil || !strings.Contains(err.Error(), "Options.OpenNVML panicked: boom nvml") {
			t.Errorf("New, Energy nvml: %v, want the panic as the error", err)
		}
		s.Energy = "auto"
		b, err := New(context.Background(), s, opt)
		if err != nil {
			t.Fatalf("New, Energy auto: %v, want it to go on without NVML", err)
		}
		b.Close()
	})
}

// Seen (issue 26, review): Check passed a MockPreset that New refused,
// and with no OutputDir, Gzip, Overwrite and the file formats were
// silently no-ops. Check refuses each, naming it; the default formats
// with no OutputDir stay valid (the console table only).
func TestCheckRefusesWhatNewOrNoFolderWould(t *testing.T) {
	t.Parallel()
	s := quickRun()
	s.MockPreset, s.Gzip, s.Overwrite = "nope", true, true
	s.Formats = []Format{FormatConsole, FormatCSV, FormatHTML}
	err := Check(s, Options{})
	for _, want := range []string{"Settings.MockPreset: ", `"nope"`, "Settings.Gzip true with no Settings.OutputDir", "Settings.Overwrite true with no Settings.OutputDir",
		"Settings.Formats csv with no Settings.OutputDir", "Settings.Formats html with no"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v\nwant %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "Settings.Formats console") {
		t.Errorf("Check refused the console format: %v", err)
	}
	s = quickRun()
	s.Formats = []Format{FormatConsole}
	if err := Check(s, Options{}); err != nil {
		t.Errorf("console only, no OutputDir: %v", err)
	}
}

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
