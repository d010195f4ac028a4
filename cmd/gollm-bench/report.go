package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// runReport re-renders a results folder offline.
func runReport(_ context.Context, e env, args []string) error {
	if manyRuns(args) {
		return runReportRuns(e, args)
	}
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	formats := fs.StringSlice("format", []string{"console", "csv", "html"}, "outputs: console (to standard output), csv (levels.csv), html (report.html), json (run.json to standard output)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench report DIR [--format console,csv,html,json]\n       gollm-bench report A B [C...] --format html -o FILE\n\nRe-renders a run's folder (OUTPUT-DIR/RUN-ID/) from its run.json, with no network and no tokenizer;\nwith several folders, writes one page comparing them.\n\n%s", fs.FlagUsages())
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
	return report.WriteFormats(e.stdout, results.Folder{Path: dir}, run, rest)
}

// writeParetoHTML draws the Pareto chart of `gollm-bench pareto --html`.
func writeParetoHTML(path string, frontier []scorecard.Scorecard, dropped []scorecard.Dropped, basis scorecard.CostBasis) error {
	var buf bytes.Buffer
	if err := report.WriteParetoHTML(&buf, report.ParetoPoints(frontier, dropped, basis)); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
