package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gollm-bench/gollm-bench/cmdline"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/compare"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/report"
)

func runCompare(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	failOn := fs.String("fail-on", "", `exit 3 when a metric's change lies wholly beyond its limit (5 when its interval holds the limit), e.g. "ttft_p99:+5%,itl_p95:+5%,goodput:-3%,cpm:+5%"`)
	format := fs.String("format", report.CompareConsole, "output: "+strings.Join(report.CompareFormats(), ", "))
	strict := fs.Bool("strict", false, "refuse to compare runs whose workloads differ (exit 2)")
	metricsFlag := fs.String("metrics", strings.Join(compare.DefaultLevelMetrics(), ","), "rows of each matched level")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap (the same inputs and seed print the same intervals)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "%s%s", cmdline.CompareUsage, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageErr(err)
	}
	// Everything that can be checked without reading the inputs is.
	var errs []error
	if fs.NArg() < 2 {
		errs = append(errs, fmt.Errorf("want at least two inputs (a baseline and one to compare), got %d", fs.NArg()))
	}
	if !slices.Contains(report.CompareFormats(), *format) {
		errs = append(errs, fmt.Errorf("--format %q: want %s", *format, strings.Join(report.CompareFormats(), ", ")))
	}
	var ths []compare.Threshold
	if *failOn != "" {
		var err error
		if ths, err = compare.ParseFailOn(*failOn); err != nil {
			errs = append(errs, fmt.Errorf("--fail-on: %w", err))
		}
	}
	ms, err := compare.ParseMetrics(*metricsFlag)
	if err != nil {
		errs = append(errs, fmt.Errorf("--metrics: %w", err))
	}
	if len(errs) > 0 {
		if fs.NArg() < 2 {
			fs.Usage()
		}
		return usageErr(errors.Join(errs...))
	}
	inputs, err := compare.ReadAll(fs.Args())
	if err != nil {
		return usageErr(err)
	}
	res := compare.All(inputs[0], inputs[1:], compare.Options{Metrics: compare.MetricsFor(ms, ths), Seed: *seed})
	if bad := report.MismatchLines(res); *strict && len(bad) > 0 {
		return usageErr(fmt.Errorf("--strict: the workloads differ, so the figures are not comparable:\n  %s", strings.Join(bad, "\n  ")))
	}
	out, _ := report.NewComparison(res, *failOn, ths)
	if err := report.WriteComparison(e.stdout, *format, out); err != nil {
		return err
	}
	if code, err := out.Exit(); code != exitcode.OK {
		return withCode(code, err)
	}
	return nil
}
