package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// runReport re-renders a results folder offline.
func runReport(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	formats := fs.StringSlice("format", []string{"console", "csv", "html"}, "outputs: console (to standard output), csv (levels.csv), html (report.html), json (run.json to standard output)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench report DIR [--format console,csv,html,json]\n\nRe-renders results/<run-id>/ from its run.json, with no network and no tokenizer.\n\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageErr(errors.New("give one results folder (or its run.json)"))
	}
	for _, f := range *formats {
		if !slices.Contains([]string{"console", "csv", "html", "json"}, f) {
			return usageErr(fmt.Errorf("--format %q: want console, csv, html or json", f))
		}
	}
	path := fs.Arg(0)
	run, err := results.Read(path)
	if err != nil {
		return usageErr(err)
	}
	dir := path
	if filepath.Base(path) == results.RunJSON {
		dir = filepath.Dir(path)
	}
	if err := run.Check(); err != nil {
		file := path
		if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			file = filepath.Join(path, results.RunJSON)
		}
		return usageErr(fmt.Errorf("%s: %w; the file is damaged: re-run, or restore it from a copy", file, err))
	}
	if slices.Contains(*formats, "json") {
		if err := report.WriteJSON(e.stdout, run); err != nil {
			return err
		}
	}
	rest := slices.DeleteFunc(slices.Clone(*formats), func(f string) bool { return f == "json" })
	return writeFormats(e.stdout, results.Folder{Path: dir}, run, rest)
}

// writeFormats renders run into dir (levels.csv, report.html) and the
// console table onto stdout, as formats asks; json is run.json itself.
func writeFormats(stdout io.Writer, dir results.Folder, run results.Run, formats []string) error {
	var errs []error
	scorecardJSON, _ := os.ReadFile(filepath.Join(dir.Path, scorecard.FileName))
	for _, f := range formats {
		var buf bytes.Buffer
		switch f {
		case "console":
			errs = append(errs, report.WriteConsole(stdout, run))
			continue
		case "csv":
			if err := report.WriteLevelsCSV(&buf, run); err != nil {
				errs = append(errs, err)
				continue
			}
			errs = append(errs, dir.WriteFile(results.LevelsCSV, buf.Bytes()))
		case "html":
			if err := report.WriteHTML(&buf, run, report.HTMLOptions{Scorecard: scorecardJSON}); err != nil {
				errs = append(errs, err)
				continue
			}
			errs = append(errs, dir.WriteFile(results.ReportHTML, buf.Bytes()))
		}
	}
	return errors.Join(errs...)
}

// writeParetoHTML draws the Pareto chart of `gollm-bench pareto --html`.
func writeParetoHTML(path string, frontier []scorecard.Scorecard, dropped []scorecard.Dropped, basis scorecard.CostBasis) error {
	var pts []report.ParetoPoint
	add := func(sc scorecard.Scorecard, on bool) {
		p := report.ParetoPoint{RunID: sc.Metadata.RunID, OnFrontier: on}
		if v, ok := scorecard.Figure(sc, basis.Key()); ok {
			p.CPM = v
		}
		if v := sc.Performance.TTFTP99Ms; v != nil {
			p.TTFTP99Ms = *v
		}
		if v := sc.Energy.WhPerToken; v != nil {
			p.WhPerToken = *v
		}
		pts = append(pts, p)
	}
	for _, sc := range frontier {
		add(sc, true)
	}
	for _, d := range dropped {
		add(d.Scorecard, false)
	}
	var buf bytes.Buffer
	if err := report.WriteParetoHTML(&buf, pts); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// progressPrinter feeds the live progress line (SPEC §10: a live line per
// level on a TTY, plain lines otherwise, nothing with --quiet).
func (b *bench) progressPrinter() func(harness.Progress) {
	isTTY := false
	if f, ok := b.e.stderr.(*os.File); ok {
		isTTY = term.IsTerminal(int(f.Fd()))
	}
	pr := report.NewProgress(b.e.stderr, isTTY, b.f.quiet)
	return func(p harness.Progress) {
		line := report.ProgressLine{
			Level:     p.Level,
			Label:     profileLabel(p.Profile),
			Elapsed:   p.Elapsed,
			Requests:  p.Live.Done,
			Errors:    p.Live.Failed,
			TTFTP99Ms: p.Live.TTFTP99,
		}
		if p.Expected > p.Elapsed {
			line.ETA = p.Expected - p.Elapsed
		}
		if p.Repeats > 1 {
			line.Run = fmt.Sprintf("run %d/%d", p.Repeat+1, p.Repeats)
		}
		if pp := p.Precision; pp != nil {
			line.Precision = precisionText(*pp)
			if pp.ETA > 0 && (line.ETA == 0 || pp.ETA < line.ETA) {
				line.ETA = pp.ETA // the level ends when precise enough
			}
		}
		if s := p.Elapsed.Seconds(); s > 0 {
			line.TokPerSec = float64(p.Live.OutputTokens) / s
		}
		if p.Final {
			pr.Done(line, "")
			return
		}
		pr.Update(line)
	}
}

// precisionText is a precision-driven level's progress for the live line:
// each target's current relative half-width against its goal, and the SLO
// terms still undecided.
func precisionText(p harness.PrecisionProgress) string {
	var parts []string
	for _, st := range p.Targets {
		hw := "unbounded"
		if !math.IsInf(st.RelativeHalfWidth, 0) && !math.IsNaN(st.RelativeHalfWidth) {
			hw = fmt.Sprintf("±%.0f%%", 100*st.RelativeHalfWidth)
		}
		mark := ""
		if st.Met {
			mark = " ok"
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s%s", st.Target.Term.Name(), hw, strconv.FormatFloat(100*st.Target.Fraction, 'g', 3, 64)+"%", mark))
	}
	if len(p.Undecided) > 0 {
		parts = append(parts, "undecided "+strings.Join(p.Undecided, ","))
	}
	if p.Failing {
		parts = append(parts, "a term fails")
	}
	return strings.Join(parts, ", ")
}

func profileLabel(p loadgen.Profile) string {
	switch p.Mode {
	case loadgen.ModeConstant, loadgen.ModePoisson:
		return fmt.Sprintf("%s %.4g req/s", p.Mode, p.Rate)
	case loadgen.ModeConcurrent:
		return fmt.Sprintf("concurrent %d", p.Concurrency)
	case loadgen.ModeThroughput:
		return fmt.Sprintf("throughput (max %d in flight)", max(p.MaxConcurrency, loadgen.DefaultThroughputConcurrency))
	}
	return string(p.Mode)
}
