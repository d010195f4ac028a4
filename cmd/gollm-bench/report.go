package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// runReport re-renders a results folder offline, or writes one page
// comparing several.
func runReport(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	formats := fs.StringSlice("format", []string{"console", "csv", "html"}, "outputs: console (to standard output), csv (levels.csv), html (report.html), json (run.json to standard output); several folders: html only")
	out := fs.StringP("output", "o", "", "with several folders: the page to write, e.g. cmp.html")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench report DIR [--format console,csv,html,json]\n       gollm-bench report A B [C...] --format html -o FILE\n\nRe-renders a run's folder (OUTPUT-DIR/RUN-ID/) from its run.json, with no network and no tokenizer;\na folder without run.json (a run killed before writing it) is re-rendered from its records, marked partial.\nWith several folders, writes one page with the runs side by side: their verdicts and headline\ncards, and their load curves overlaid, one colour per run; the first run is the baseline of\nthe workload check, and runs that measured another workload are flagged.\n\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 1 {
		return reportRuns(e, fs.Args(), *formats, fs.Changed("format"), *out)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageErr(errors.New("give one results folder (or its run.json), or several to compare"))
	}
	for _, f := range *formats {
		if !slices.Contains([]string{"console", "csv", "html", "json"}, f) {
			return usageErr(fmt.Errorf("--format %q: want console, csv, html or json", f))
		}
	}
	run, dir, recovered, err := report.OpenRun(fs.Arg(0))
	if err != nil {
		return usageErr(err)
	}
	if recovered != nil {
		fmt.Fprintf(e.stderr, "report: %s has no run.json (the run was killed before it wrote it): re-rendered from its records alone, marked partial: %s\n", dir, recovered)
	}
	if slices.Contains(*formats, "json") {
		if err := report.WriteJSON(e.stdout, run); err != nil {
			return err
		}
	}
	rest := slices.DeleteFunc(slices.Clone(*formats), func(f string) bool { return f == "json" })
	return report.WriteFormats(e.stdout, results.Folder{Path: dir}, run, rest)
}

// reportRuns writes one page comparing several results folders:
// `gollm-bench report A B [C...] --format html -o cmp.html`.
func reportRuns(e env, dirs, formats []string, formatGiven bool, out string) error {
	var errs []error
	if formatGiven && !slices.Equal(formats, []string{"html"}) {
		errs = append(errs, fmt.Errorf("--format %q: several runs render only as html (one page); give --format html", strings.Join(formats, ",")))
	}
	if out == "" {
		errs = append(errs, errors.New("-o is empty: name the page to write, e.g. -o cmp.html"))
	}
	if len(errs) > 0 {
		return usageErr(errors.Join(errs...))
	}
	runs, err := report.ReadOverlayRuns(dirs)
	if err != nil {
		return usageErr(err)
	}
	var buf bytes.Buffer
	if err := report.WriteOverlayHTML(&buf, runs); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-o %s: %w", out, err)
	}
	for _, w := range report.OverlayWarnings(runs) {
		fmt.Fprintf(e.stderr, "warning: not comparable: %s\n", w)
	}
	fmt.Fprintf(e.stderr, "%d runs -> %s\n", len(runs), out)
	return nil
}

// liveView feeds the live progress: on a terminal a sweep-wide header
// and the level's line, updated in place, and each level's verdict as it
// ends; plain lines otherwise; nothing with --quiet.
func liveView(e env, quiet bool) (func(harness.Progress), func(sweep.Event)) {
	p := report.TerminalProgress(e.stderr, quiet)
	return p.Harness, p.Sweep
}
