package benchmark

import (
	"errors"
	"fmt"
	"io"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/results"
)

// MergeOptions are the inputs of Merge: `gollm-bench merge`'s arguments.
type MergeOptions struct {
	// Dirs are the run folder holding shard-*/ folders, or the shard
	// folders themselves.
	Dirs []string
	// Output is the folder of the merged result; "" is the run folder
	// holding the shards (results.MergeDir).
	Output string
	// Overwrite replaces a merged result already in Output.
	Overwrite bool
	// Formats are the outputs besides run.json, scorecard.json and the
	// records: console (to Stdout), csv, html (report.WriteFormats).
	Formats []string
	// Stdout gets the console report; Log the warnings and what was done.
	Stdout, Log io.Writer
	// Tool is the merging binary, recorded in run.json; Args its command
	// line, recorded with credentials redacted.
	Tool results.Tool
	Args []string
}

// Merge combines the shards of one distributed run (run --shard I/N) into
// one result, as if one process had sent every request
// (docs/cli.md#distributed-runs). Per level, the summaries merge exactly
// (metrics.MergeSummaries: HDR histograms merge, counts and rates add)
// and the SLO verdict is judged again on the merged summary. The records
// are the shards' records concatenated in shard order, unchanged; a torn
// last line is dropped and marks the result partial. It returns the
// merged run with its exit code; shards that do not belong together, a
// damaged file or a taken output folder are an *InputError naming the
// flag or file to fix.
func Merge(o MergeOptions) (Outcome, error) {
	parts, err := results.ReadShards(o.Dirs)
	if err != nil {
		return Outcome{}, badInput(err)
	}
	run, err := results.Merge(parts)
	if err != nil {
		return Outcome{}, badInput(fieldname.Apply(err, mergeFlags...))
	}
	run.Command = redact.Args(append([]string{"merge"}, o.Args...))
	run.Tool = o.Tool
	dir, err := results.MergeDir(parts, o.Output, o.Overwrite)
	if err != nil {
		return Outcome{}, badInput(fmt.Errorf("%w (--overwrite replaces it, --output DIR chooses the folder)", err))
	}
	torn, err := results.MergeRecords(dir, parts)
	var damaged *results.RecordsError
	if errors.As(err, &damaged) {
		return Outcome{}, badInput(err)
	}
	if err != nil {
		return Outcome{}, err
	}
	for _, t := range torn {
		fmt.Fprintf(o.Log, "warning: %s\n", t)
	}
	run.MarkTorn(torn)
	sc := run.Scorecard()
	run.Metadata = sc.Metadata
	folder := results.Folder{Path: dir}
	if err := errors.Join(folder.WriteScorecard(sc), results.Write(dir, run), report.WriteFormats(o.Stdout, folder, run, o.Formats)); err != nil {
		return Outcome{}, err
	}
	fmt.Fprintf(o.Log, "merged %d shards of run %s: %s\n", len(parts), run.RunID, dir)
	out := Outcome{Run: run, Scorecard: sc, Dir: dir, Code: run.Result.ExitCode()}
	if run.Partial {
		fmt.Fprintf(o.Log, "the merged result is partial: %s\n", run.PartialReason)
		out.Code = exitcode.Partial
	}
	return out, nil
}

// mergeFlags maps the run.json keys a refused merge names (results.Merge:
// the shards' plans differ) to the flags that set them.
var mergeFlags = []fieldname.Name{
	{Field: "config.profile (", Caller: "--profile"},
	{Field: "config.rates (", Caller: "--rate"},
	{Field: "config.seed (", Caller: "--seed"},
	{Field: "config.max_concurrency (", Caller: "--max-concurrency"},
	{Field: "config.data (", Caller: "--data"},
	{Field: "config.sequence_distribution (", Caller: "--sequence-distribution"},
	{Field: "config.dataset (", Caller: "--dataset"},
	{Field: "config.prefix_cache (", Caller: "--prefix-cache"},
	{Field: "config.sessions (", Caller: "--turns, --think-time"},
	{Field: "config.max_seconds (", Caller: "--max-seconds"},
	{Field: "config.max_requests (", Caller: "--max-requests"},
	{Field: "config.warmup (", Caller: "--warmup"},
	{Field: "config.cooldown (", Caller: "--cooldown"},
	{Field: "config.warmup_phase (", Caller: "--warmup-phase"},
	{Field: "config.endpoint (", Caller: "--endpoint"},
	{Field: "config.model (", Caller: "--model"},
	{Field: "result.slo ", Caller: "--slo"},
}
