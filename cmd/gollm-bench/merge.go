package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/exitcode"
)

// runMerge is `gollm-bench merge DIR... [--output DIR]` (benchmark.Merge).
func runMerge(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("merge", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	output := fs.StringP("output", "o", "", "folder for the merged result (default: the run folder holding the shard-*/ folders)")
	formats := fs.StringSlice("format", []string{"console", "csv", "html"}, "outputs besides run.json, scorecard.json and requests.jsonl: console, csv (levels.csv), html (report.html)")
	overwrite := fs.Bool("overwrite", false, "replace a merged result already in the output folder")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench merge DIR... [--output DIR]\n\nCombines the shards of one distributed run (run --shard I/N) into one result.\nDIR is a run folder holding shard-*/ folders, or shard folders themselves.\n\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageErr(errors.New("give the run folder (OUTPUT-DIR/RUN-ID) or its shard folders"))
	}
	for _, f := range *formats {
		if !slices.Contains([]string{"console", "csv", "html"}, f) {
			return usageErr(fmt.Errorf("--format %q: want console, csv or html", f))
		}
	}
	out, err := benchmark.Merge(benchmark.MergeOptions{Dirs: fs.Args(), Output: *output, Overwrite: *overwrite, Formats: *formats,
		Stdout: e.stdout, Log: e.stderr, Tool: tool(), Args: args})
	var bad *benchmark.InputError
	switch {
	case errors.As(err, &bad):
		return usageErr(err)
	case err != nil:
		return err
	case out.Code != exitcode.OK:
		return withCode(out.Code, nil)
	}
	return nil
}
