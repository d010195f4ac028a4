package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/results"
)

// runMerge is `gollm-bench merge DIR... [--output DIR]`
// (docs/cli.md#distributed-runs): the shards of one distributed run become
// one result, as if one process had sent every request. Per level, the
// summaries merge exactly (metrics.MergeSummaries: HDR histograms merge,
// counts and rates add) and the SLO verdict is judged again on the merged
// summary. requests.jsonl is the shards' records concatenated in shard order
// (shard 0's first, each in its own completion order), unchanged; sort by
// (level, seq) to get the plan's order.
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
	parts, err := results.ReadShards(fs.Args())
	if err != nil {
		return usageErr(err)
	}
	run, err := results.Merge(parts)
	if err != nil {
		return usageErr(mergeErr(err))
	}
	run.Command = redact.Args(append([]string{"merge"}, args...))
	run.Tool = results.Tool{Name: "gollm-bench", Version: toolVersion(), Commit: commitOrVCS(), Go: runtime.Version()}

	dir, err := results.MergeDir(parts, *output, *overwrite)
	if err != nil {
		return usageErr(fmt.Errorf("%w (--overwrite replaces it, --output DIR chooses the folder)", err))
	}

	torn, err := results.MergeRecords(dir, parts)
	var damaged *results.RecordsError
	if errors.As(err, &damaged) {
		return usageErr(err)
	}
	if err != nil {
		return err
	}
	for _, t := range torn {
		fmt.Fprintf(e.stderr, "warning: %s\n", t)
	}
	run.MarkTorn(torn)
	sc := run.Scorecard()
	run.Metadata = sc.Metadata
	errs := []error{
		results.Folder{Path: dir}.WriteScorecard(sc),
		results.Write(dir, run),
	}
	errs = append(errs, report.WriteFormats(e.stdout, results.Folder{Path: dir}, run, *formats))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "merged %d shards of run %s: %s\n", len(parts), run.RunID, dir)
	switch code := run.Result.ExitCode(); {
	case run.Partial:
		fmt.Fprintf(e.stderr, "the merged result is partial: %s\n", run.PartialReason)
		return withCode(exitcode.Partial, nil)
	case code != exitcode.OK:
		return withCode(code, nil)
	}
	return nil
}
