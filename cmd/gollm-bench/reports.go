package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// liveView feeds the live progress: on a terminal a sweep-wide header
// and the level's line, updated in place, and each level's verdict as it
// ends; plain lines otherwise; nothing with --quiet.
func liveView(e env, quiet bool) (func(harness.Progress), func(sweep.Event)) {
	p := report.TerminalProgress(e.stderr, quiet)
	return p.Harness, p.Sweep
}

// runsFlags are the flags of `report A B [C...]`.
func runsFlags(e env) (*pflag.FlagSet, *string, *string) {
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	format := fs.String("format", "html", "output: html (one page with the runs side by side)")
	out := fs.StringP("output", "o", "", "the page to write, e.g. cmp.html")
	return fs, format, out
}

// manyRuns reports whether a `report` command line names several results
// folders: it asks for the comparison page.
func manyRuns(args []string) bool {
	fs, _, _ := runsFlags(env{stderr: &bytes.Buffer{}})
	fs.ParseErrorsAllowlist.UnknownFlags = true
	return fs.Parse(args) == nil && fs.NArg() > 1
}

// runReportRuns writes one page comparing several results folders:
// `gollm-bench report A B [C...] --format html -o cmp.html`.
func runReportRuns(e env, args []string) error {
	fs, format, out := runsFlags(e)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench report A B [C...] --format html -o FILE\n\nOne page with the runs side by side: their verdicts and headline cards, and\ntheir load curves overlaid, one colour per run. The first run is the baseline\nof the workload check; runs that measured another workload are flagged.\n\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	var errs []error
	if *format != "html" {
		errs = append(errs, fmt.Errorf("--format %q: several runs render only as html (one page); give --format html", *format))
	}
	if *out == "" {
		errs = append(errs, errors.New("-o is empty: name the page to write, e.g. -o cmp.html"))
	}
	if len(errs) > 0 {
		return usageErr(errors.Join(errs...))
	}
	runs, err := report.ReadOverlayRuns(fs.Args())
	if err != nil {
		return usageErr(err)
	}
	var buf bytes.Buffer
	if err := report.WriteOverlayHTML(&buf, runs); err != nil {
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-o %s: %w", *out, err)
	}
	for _, w := range report.OverlayWarnings(runs) {
		fmt.Fprintf(e.stderr, "warning: not comparable: %s\n", w)
	}
	fmt.Fprintf(e.stderr, "%d runs -> %s\n", len(runs), *out)
	return nil
}
