package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/cost"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
)

// withScorecardInputs records in run what its scorecard is built from:
// the metadata (declared by flags, or observed), the cost rate, and the
// declared energy factors; Run.Scorecard then needs nothing else.
func (b *bench) withScorecardInputs(ctx context.Context, run results.Run) results.Run {
	f := &b.f
	labels, _ := parseKV("label", f.labels)
	seed := f.seed
	meta := scorecard.Metadata{
		Engine:        f.engine,
		ModelRevision: f.modelRevision,
		Precision:     f.modelPrecision,
		Hardware:      f.hardware,
		ToolVersion:   toolVersion(),
		ToolCommit:    commitOrVCS(),
		SLO:           b.obj.String(),
		Warmup:        run.Config.Warmup,
		RunID:         f.runID,
		Model:         b.model,
		Endpoint:      f.endpoint,
		LoadMode:      f.profile,
		Profile:       f.profile,
		PrefixCache:   b.prefixCacheState(),
		Seed:          &seed,
		Labels:        labels,
		TargetURL:     scorecard.RedactURL(b.target),
		StartedAt:     run.StartedAt,
		InsecureTLS:   f.insecure,
		Client:        b.host,
	}
	if meta.LoadMode == "sweep" {
		meta.LoadMode = "constant"
	}
	if b.mock != nil && meta.Engine == "" {
		meta.Engine = "gollm-bench-mock-" + toolVersion() + " (preset " + f.mockPreset + ")"
	}
	switch {
	case f.dataset != "":
		meta.DataSpec = "dataset=" + f.dataset
	case f.sequenceDistribution != "":
		meta.DataSpec = f.sequenceDistribution
	default:
		meta.DataSpec = f.data
	}
	f.arrivals.scorecardSpec(&meta)
	// ISL: with the served tokenizer, the requested --data length is hit
	// exactly; without it, the mean the server's usage reported (which
	// includes the chat template on /chat/completions).
	switch {
	case b.tok != nil && f.dataset == "" && f.sequenceDistribution == "" && b.lengths.PromptTokens > 0:
		meta.Tokenizer, meta.TokenizerSHA256, meta.ISLBasis = b.tok.Path(), b.tok.SHA256(), "prompt"
		meta.ISLTokens, meta.OSLTokens = b.lengths.PromptTokens, b.lengths.OutputTokens
	default:
		if b.tok != nil {
			meta.Tokenizer, meta.TokenizerSHA256 = b.tok.Path(), b.tok.SHA256()
		}
		meta.ISLBasis = "prompt"
		if b.tok == nil && f.endpoint == "chat" {
			meta.ISLBasis = "chat_template"
		}
		for _, lv := range run.Result.Levels {
			if lv.Summary.PromptTokens.Count > 0 {
				// The level's mean achieved lengths, rounded.
				meta.ISLTokens = int(math.Round(lv.Summary.PromptTokens.Mean))
				meta.OSLTokens = int(math.Round(lv.Summary.OutputTokens.Mean))
				break
			}
		}
	}
	rate := scorecard.CostRate{EURPerHour: f.gpuCostEURh, Currency: "EUR", Source: "flag"}
	if f.openCost != "" {
		oc, err := cost.NewOpenCost(f.openCost, cost.WithCurrency(f.currency))
		if err == nil {
			octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			alloc, aerr := oc.Namespace(octx, f.openCostNS, run.StartedAt, run.FinishedAt)
			cancel()
			err = aerr
			if err == nil {
				rate = scorecard.CostRate{EURPerHour: alloc.PerHour(), Currency: f.currency, Source: "opencost"}
			}
		}
		if err != nil {
			fmt.Fprintf(b.e.stderr, "warning: --opencost: %v (no cost figures)\n", err)
		}
	}
	run.Metadata = meta
	if rate.EURPerHour > 0 {
		run.CostRate = &rate
	}
	run.Config.PUE, run.Config.IdleBaselineW, run.Config.GridGCO2KWh = f.pue, f.idleBaselineW, f.gridGCO2kWh
	return run
}

// writeScorecard writes scorecard.json into dir, atomically (a full disk
// leaves no half file).
func writeScorecard(dir results.Folder, sc scorecard.Scorecard) error {
	var buf bytes.Buffer
	if err := scorecard.Write(&buf, sc); err != nil {
		return fmt.Errorf("scorecard: %w", err)
	}
	return dir.WriteFile(scorecard.FileName, buf.Bytes())
}

// aggregateFile is the name of `aggregate`'s CSV (SPEC §10).
const aggregateFile = "scorecard-aggregate.csv"

func runAggregate(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("aggregate", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	outDir := fs.String("output-dir", "results", "folder to write "+aggregateFile+" in, as run and sweep write results/<run-id>/ (created if need be; an earlier "+aggregateFile+" there is replaced)")
	out := fs.StringP("output", "o", "", "CSV file to write instead ('-' for standard output)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench aggregate DIR... [--output-dir DIR | -o FILE]\n\nOne CSV row per scorecard.json found in the results folders (and per level of\nthe GuideLLM, AIPerf, GenAI-Perf or vLLM results there, as anecdotes), written\nto OUTPUT-DIR/%s (default results/%s) unless -o names a file.\n\n%s", aggregateFile, aggregateFile, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageErr(errors.New("give at least one results folder, e.g. results/"))
	}
	if fs.Changed("output") && fs.Changed("output-dir") {
		return usageErr(errors.New("--output and --output-dir both say where to write: give one"))
	}
	if *out == "" && *outDir == "" {
		return usageErr(errors.New("--output-dir is empty: give a folder, e.g. --output-dir results"))
	}
	cards, err := readScorecards(e, fs.Args())
	if err != nil {
		return err
	}
	if *out == "-" {
		return scorecard.WriteCSV(e.stdout, cards)
	}
	path := *out
	if path == "" {
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			return fmt.Errorf("--output-dir: %w", err)
		}
		path = filepath.Join(*outDir, aggregateFile)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := errors.Join(scorecard.WriteCSV(f, cards), f.Close()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(e.stderr, "%d scorecards -> %s\n", len(cards), path)
	return nil
}

func runPareto(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("pareto", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	sloFlag := fs.String("slo", "", `drop rows violating this SLO (scorecard figures only: ttft_p99, itl_p95, e2e_p99, error_rate, output_tps); default: each row's own verdict`)
	html := fs.String("html", "", "also write the Pareto chart to this HTML file")
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
	var check scorecard.SLOCheck
	if *sloFlag != "" {
		obj, err := slo.Parse(*sloFlag)
		if err != nil {
			return usageErr(fmt.Errorf("--slo: %w", err))
		}
		terms, err := scorecardTerms(obj)
		if err != nil {
			return usageErr(err)
		}
		check = scorecard.CheckTerms(terms...)
	}
	cards, err := readScorecards(e, fs.Args())
	if err != nil {
		return err
	}
	frontier, dropped := scorecard.Pareto(cards, check)
	if err := scorecard.WriteParetoText(e.stdout, frontier, dropped); err != nil {
		return err
	}
	if *html != "" {
		return writeParetoHTML(*html, frontier, dropped)
	}
	return nil
}

// scorecardTerms maps SLO terms onto the figures a scorecard holds.
func scorecardTerms(obj slo.Objective) ([]scorecard.Term, error) {
	var out []scorecard.Term
	var errs []error
	for _, t := range obj.Terms {
		key := ""
		switch {
		case t.Metric == slo.MetricErrorRate:
			key = "error_rate"
		case t.Metric == slo.MetricOutputTPS:
			key = "output_tok_s"
		case t.Metric == slo.MetricTTFT && t.Percentile == 99:
			key = "ttft_p99_ms"
		case t.Metric == slo.MetricITL && t.Percentile == 95:
			key = "itl_p95_ms"
		case t.Metric == slo.MetricE2E && t.Percentile == 99:
			key = "e2e_p99_ms"
		default:
			errs = append(errs, fmt.Errorf("--slo term %q: a scorecard holds only ttft_p99, itl_p95, e2e_p99, error_rate and output_tps", t.Text))
			continue
		}
		out = append(out, scorecard.Term{Key: key, Op: string(t.Op), Limit: t.Threshold})
	}
	return out, errors.Join(errs...)
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
