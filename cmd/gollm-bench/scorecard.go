package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// aggregateFile is the name of `aggregate`'s CSV
// (docs/outputs.md#scorecard-aggregatecsv).
const aggregateFile = "scorecard-aggregate.csv"

func runAggregate(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("aggregate", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	outDir := fs.String("output-dir", benchmark.DefaultOutputDir, "folder to write "+aggregateFile+" in, as run and sweep write OUTPUT-DIR/RUN-ID/ (created if need be; an earlier "+aggregateFile+" there is replaced)")
	out := fs.StringP("output", "o", "", "CSV file to write instead ('-' for standard output)")
	basisFlag := fs.String("cost-basis", "", "add cost_basis and cpm_1m columns with the CPM of this basis: gpu_hour (EUR/h over goodput), tokens (--price) or litellm (the proxy's spend)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench aggregate DIR... [--output-dir DIR | -o FILE]\n\nOne CSV row per scorecard.json found in the results folders (and per level of\nthe GuideLLM, AIPerf, GenAI-Perf, vLLM or inference-perf results there, as\nanecdotes), written to OUTPUT-DIR/%s (default %[2]s/%[1]s) unless -o names a file.\n\n%[3]s", aggregateFile, benchmark.DefaultOutputDir, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageErr(errors.New("give at least one results folder, e.g. " + benchmark.DefaultOutputDir + "/"))
	}
	if fs.Changed("output") && fs.Changed("output-dir") {
		return usageErr(errors.New("--output and --output-dir both say where to write: give one"))
	}
	if *out == "" && *outDir == "" {
		return usageErr(errors.New("--output-dir is empty: give a folder, e.g. --output-dir " + benchmark.DefaultOutputDir))
	}
	var csvOpts []scorecard.Option
	if *basisFlag != "" {
		basis, err := scorecard.ParseCostBasis(*basisFlag)
		if err != nil {
			return usageErr(fmt.Errorf("--cost-basis: %w", err))
		}
		csvOpts = append(csvOpts, scorecard.WithCostBasis(basis))
	}
	cards, err := readScorecards(e, fs.Args())
	if err != nil {
		return err
	}
	if *out == "-" {
		return scorecard.WriteCSV(e.stdout, cards, csvOpts...)
	}
	path := *out
	if path == "" {
		path = filepath.Join(*outDir, aggregateFile)
	}
	if err := scorecard.WriteCSVFile(path, cards, csvOpts...); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%d scorecards -> %s\n", len(cards), path)
	return nil
}

func runPareto(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("pareto", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	sloFlag := fs.String("slo", "", `drop rows violating this SLO (scorecard figures only: ttft_p99, itl_p95, e2e_p99, error_rate, output_tps); default: each row's own verdict`)
	html := fs.String("html", "", "also write the Pareto chart to this HTML file")
	basisFlag := fs.String("cost-basis", "gpu_hour", "the CPM to minimise: gpu_hour (cost.cpm_eur_1m, EUR/h over goodput), tokens (cost.tokens.cpm_eur_1m, --price) or litellm (cost.litellm.cpm_1m)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench pareto DIR... [--slo S]\n\nThe non-dominated scorecards on (CPM, Wh/token, TTFT P99), all minimised. DIR\nholds results folders, scorecards in the exporter layout, or peer results.\n\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageErr(errors.New("give at least one results folder"))
	}
	basis, err := scorecard.ParseCostBasis(*basisFlag)
	if err != nil {
		return usageErr(fmt.Errorf("--cost-basis: %w", err))
	}
	var check scorecard.SLOCheck
	if *sloFlag != "" {
		if check, err = scorecard.ParseSLOCheck(*sloFlag); err != nil {
			return usageErr(fmt.Errorf("--slo: %w", err))
		}
	}
	cards, err := readScorecards(e, fs.Args())
	if err != nil {
		return err
	}
	frontier, dropped := scorecard.Pareto(cards, check, scorecard.WithCostBasis(basis))
	for i := range dropped { // the flag that would keep each
		dropped[i].Reason = fieldname.ReplaceString(dropped[i].Reason, fieldname.Name{Field: "run without an SLO", Caller: "run without --slo"},
			fieldname.Name{Field: "give an SLOCheck", Caller: "pass --slo"})
	}
	if err := scorecard.WriteParetoText(e.stdout, frontier, dropped, scorecard.WithCostBasis(basis)); err != nil {
		return err
	}
	if *html != "" {
		return report.WriteParetoFile(*html, report.ParetoPoints(frontier, dropped, basis))
	}
	return nil
}

// readScorecards reads the scorecards under the results folders dirs. A
// folder without any is bad input; unreadable ones among good ones are a
// warning.
func readScorecards(e env, dirs []string) ([]scorecard.Scorecard, error) {
	rows, err := scorecard.ReadDirs(dirs...)
	if len(rows) == 0 {
		return nil, usageErr(errors.Join(errors.New("no scorecard.json found"), err))
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "warning: %v\n", err)
	}
	cards := make([]scorecard.Scorecard, len(rows))
	for i, r := range rows {
		cards[i] = r.Scorecard
	}
	return cards, nil
}
