package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// runMerge is `gollm-bench merge DIR... [--output DIR]` (SPEC §12): the
// shards of one distributed run become one result, as if one process had
// sent every request. Per level, the summaries merge exactly
// (metrics.MergeSummaries: HDR histograms merge, counts and rates add) and
// the SLO verdict is judged again on the merged summary. requests.jsonl is
// the shards' records concatenated in shard order (shard 0's first, each in
// its own completion order), unchanged; sort by (level, seq) to get the
// plan's order.
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
		return usageErr(errors.New("give the run folder (results/RUN-ID) or its shard folders"))
	}
	for _, f := range *formats {
		if !slices.Contains([]string{"console", "csv", "html"}, f) {
			return usageErr(fmt.Errorf("--format %q: want console, csv or html", f))
		}
	}
	parts, err := readShards(fs.Args())
	if err != nil {
		return usageErr(err)
	}
	run, err := mergeShards(parts)
	if err != nil {
		return usageErr(err)
	}
	run.Command = redactArgs(append([]string{"merge"}, args...))
	run.Tool = results.Tool{Name: "gollm-bench", Version: toolVersion(), Commit: commitOrVCS(), Go: runtime.Version()}

	dir := *output
	if dir == "" {
		dir = filepath.Dir(parts[0].dir)
		for _, p := range parts[1:] {
			if filepath.Dir(p.dir) != dir {
				return usageErr(errors.New("the shard folders are in different folders: give --output DIR"))
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("merge: --output: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.RunJSON)); err == nil && !*overwrite {
		return usageErr(fmt.Errorf("merge: %s already holds a run.json; pass --overwrite to replace it, or choose --output", dir))
	}

	torn, err := mergeRecords(dir, parts)
	var damaged *recordsError
	if errors.As(err, &damaged) {
		return usageErr(err)
	}
	if err != nil {
		return err
	}
	if len(torn) > 0 {
		// A careful user keeps what was measured and is told what is
		// missing: the whole records are merged, the torn ones are named,
		// and the result is partial.
		var where []string
		for _, t := range torn {
			where = append(where, t.String())
			fmt.Fprintf(e.stderr, "warning: %s\n", t)
		}
		run.Partial, run.Result.Partial = true, true
		reason := "a shard's records file was cut short: " + strings.Join(where, "; ")
		run.PartialReason = strings.Join(slices.DeleteFunc([]string{run.PartialReason, reason}, func(s string) bool { return s == "" }), "; ")
		run.Result.Warnings = append(run.Result.Warnings, metrics.Warning{Code: results.WarnTornRecord, Level: -1, Message: reason +
			": the merged requests.jsonl lacks those records; the merged summaries come from the shards' run.json and still count them"})
	}
	sc := mergedScorecard(run, parts)
	run.Metadata = sc.Metadata
	errs := []error{
		writeScorecard(results.Folder{Path: dir}, sc),
		results.Write(dir, run),
	}
	errs = append(errs, writeFormats(e.stdout, results.Folder{Path: dir}, run, *formats))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "merged %d shards of run %s: %s\n", len(parts), run.RunID, dir)
	switch code := run.Result.ExitCode(); {
	case run.Partial:
		fmt.Fprintf(e.stderr, "the merged result is partial: %s\n", run.PartialReason)
		return withCode(exitPartial, nil)
	case code != exitOK:
		return withCode(code, nil)
	}
	return nil
}

// shardPart is one shard's results folder.
type shardPart struct {
	dir   string
	run   results.Run
	shard loadgen.Shard
}

// readShards reads the shards named by args: a folder with a run.json is
// a shard; a folder without one is a run folder whose shard-*/ folders are
// the shards.
func readShards(args []string) ([]shardPart, error) {
	var dirs []string
	var errs []error
	for _, a := range args {
		a = strings.TrimSuffix(a, string(filepath.Separator)+results.RunJSON)
		if filepath.Base(a) == results.RunJSON {
			a = filepath.Dir(a)
		}
		// A run folder (which may already hold a merged run.json) first.
		found, _ := filepath.Glob(filepath.Join(a, "shard-*", results.RunJSON))
		for _, f := range found {
			dirs = append(dirs, filepath.Dir(f))
		}
		if len(found) > 0 {
			continue
		}
		if _, err := os.Stat(filepath.Join(a, results.RunJSON)); err == nil {
			dirs = append(dirs, a)
			continue
		}
		errs = append(errs, fmt.Errorf("%s: neither a shard folder (no %s) nor a run folder holding shard-*/%s", a, results.RunJSON, results.RunJSON))
	}
	var parts []shardPart
	for _, d := range dirs {
		run, err := results.Read(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if run.Config.Shard == "" {
			errs = append(errs, fmt.Errorf("%s: not a shard (its run.json has no config.shard; it was not run with --shard I/N)", d))
			continue
		}
		s, err := loadgen.ParseShard(run.Config.Shard)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: config.shard: %w", d, err))
			continue
		}
		parts = append(parts, shardPart{dir: d, run: run, shard: s})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(parts, func(a, b shardPart) int { return a.shard.Index - b.shard.Index })
	return parts, nil
}

// checkShards checks that parts are every shard of one run, once each,
// with the same plan.
func checkShards(parts []shardPart) error {
	if len(parts) == 0 {
		return errors.New("no shards to merge")
	}
	first := parts[0]
	n := first.shard.Count
	var errs []error
	seen := make([]string, n)
	for _, p := range parts {
		switch {
		case p.run.RunID != first.run.RunID:
			errs = append(errs, fmt.Errorf("%s: run id %q, but %s has %q: shards of different runs", p.dir, p.run.RunID, first.dir, first.run.RunID))
			continue
		case p.shard.Count != n:
			errs = append(errs, fmt.Errorf("%s: shard %s, but %s is shard %s: the shard counts differ", p.dir, p.shard, first.dir, first.shard))
			continue
		case seen[p.shard.Index] != "":
			errs = append(errs, fmt.Errorf("shard %s given twice: %s and %s", p.shard, seen[p.shard.Index], p.dir))
			continue
		}
		seen[p.shard.Index] = p.dir
		if d := planDiff(first.run.Config, p.run.Config); d != "" {
			errs = append(errs, fmt.Errorf("%s: %s differs from %s's: the shards did not run the same plan", p.dir, d, first.dir))
		}
		if !p.run.Result.Objective.Equal(first.run.Result.Objective) {
			errs = append(errs, fmt.Errorf("%s: --slo %q differs from %s's %q", p.dir, p.run.Result.Objective, first.dir, first.run.Result.Objective))
		}
	}
	var missing []string
	for i, d := range seen {
		if d == "" && len(errs) == 0 {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("shard %s missing: a merge needs all %d shards", strings.Join(missing, ", "), n))
	}
	return errors.Join(errs...)
}

// planDiff names the first plan setting on which a and b differ, or "".
func planDiff(a, b results.Config) string {
	for _, c := range []struct {
		name string
		x, y any
	}{
		{"--profile", a.Profile, b.Profile},
		{"--rate", fmt.Sprint(a.Rates), fmt.Sprint(b.Rates)},
		{"--seed", a.Seed, b.Seed},
		{"--max-concurrency", a.MaxConcurrency, b.MaxConcurrency},
		{"--data", a.Data, b.Data},
		{"--sequence-distribution", a.SequenceDistribution, b.SequenceDistribution},
		{"--dataset", a.Dataset, b.Dataset},
		{"--prefix-cache", a.PrefixCache, b.PrefixCache},
		{"--max-seconds", a.MaxSeconds, b.MaxSeconds},
		{"--max-requests", a.MaxRequests, b.MaxRequests},
		{"--warmup", a.Warmup, b.Warmup},
		{"--cooldown", a.Cooldown, b.Cooldown},
		{"--endpoint", a.Endpoint, b.Endpoint},
		{"--model", a.Model, b.Model},
	} {
		if c.x != c.y {
			return fmt.Sprintf("%s (%v, not %v)", c.name, c.y, c.x)
		}
	}
	return ""
}

// mergeShards checks parts (sorted by shard index) and combines their
// run.json into the run's: per level, the summaries merge exactly and the
// verdict is judged again with the run's SLO.
func mergeShards(parts []shardPart) (results.Run, error) {
	if err := checkShards(parts); err != nil {
		return results.Run{}, err
	}
	base := parts[0].run
	run := base
	run.Config.Shard = ""
	run.Config.Shards = len(parts)
	run.Timelines, run.Telemetry = nil, nil
	nLevels := len(base.Result.Levels)
	anyPartial := false
	for _, p := range parts {
		anyPartial = anyPartial || p.run.Partial || p.run.Result.Partial
		run.StartedAt = minTime(run.StartedAt, p.run.StartedAt)
		run.FinishedAt = maxTime(run.FinishedAt, p.run.FinishedAt)
		nLevels = min(nLevels, len(p.run.Result.Levels))
	}
	var errs []error
	for _, p := range parts {
		if len(p.run.Result.Levels) != len(base.Result.Levels) && !anyPartial {
			errs = append(errs, fmt.Errorf("%s: %d levels, but %s has %d", p.dir, len(p.run.Result.Levels), parts[0].dir, len(base.Result.Levels)))
		}
	}

	res := sweep.Result{Kind: base.Result.Kind, Objective: base.Result.Objective, StopReason: base.Result.StopReason, Partial: anyPartial}
	for li := range nLevels {
		out := base.Result.Levels[li]
		sums := make([]metrics.Summary, len(parts))
		var levelErrs []string
		for pi, p := range parts {
			lv := p.run.Result.Levels[li]
			if lv.Index != out.Index || lv.Profile != out.Profile {
				errs = append(errs, fmt.Errorf("%s: level %d is %+v, but %s's is %+v", p.dir, li, lv.Profile, parts[0].dir, out.Profile))
			}
			sums[pi] = lv.Summary
			out.Partial = out.Partial || lv.Partial
			if lv.Error != "" {
				levelErrs = append(levelErrs, fmt.Sprintf("shard %s: %s", p.shard, lv.Error))
			}
		}
		s, err := metrics.MergeSummaries(sums...)
		if err != nil {
			errs = append(errs, fmt.Errorf("level %d: %w", li, err))
			continue
		}
		out.Summary = s
		out.Verdict = res.Objective.Evaluate(s)
		out.Error = strings.Join(levelErrs, "; ")
		res.Levels = append(res.Levels, out)
		res.Warnings = append(res.Warnings, s.Warnings...)
		run.Timelines = append(run.Timelines, mergeTimelines(li, parts)...)
	}
	if err := errors.Join(errs...); err != nil {
		return results.Run{}, err
	}
	if anyPartial {
		res.StopReason = sweep.StopInterrupted
		res.Warnings = append(res.Warnings, metrics.Warning{Code: results.WarnShardPartial, Level: -1,
			Message: "a shard was interrupted: the merged result is partial, and levels some shard lacks are left out"})
	}
	for _, p := range parts {
		if len(p.run.Telemetry) > 0 {
			res.Warnings = append(res.Warnings, metrics.Warning{Code: results.WarnTelemetryNotMerged, Level: -1,
				Message: "the shards' GPU energy and engine metrics read the same server over different windows and are not merged: see each shard's run.json"})
			break
		}
	}
	if !res.Objective.IsZero() {
		res.Undecided = sweep.UndecidedLevels(res.Levels, res.Kind)
	}
	run.Partial = anyPartial
	if anyPartial {
		run.PartialReason = "a shard was interrupted"
	}
	run.Result = res
	return run, nil
}

// mergeTimelines sums the shards' timelines of level li bucket by bucket
// when they have the same number of buckets (the shards' clocks are not
// shared, so buckets are aligned by index: an approximation for plots
// only; no reported figure comes from timelines).
func mergeTimelines(li int, parts []shardPart) []metrics.Timeline {
	var tl []metrics.Timeline
	for _, p := range parts {
		if li >= len(p.run.Timelines) {
			return nil
		}
		tl = append(tl, p.run.Timelines[li])
	}
	out := tl[0]
	out.OutputTokPerSec = slices.Clone(out.OutputTokPerSec)
	out.InFlight = slices.Clone(out.InFlight)
	for _, t := range tl[1:] {
		if len(t.OutputTokPerSec) != len(out.OutputTokPerSec) || len(t.InFlight) != len(out.InFlight) {
			return nil
		}
		for i := range out.OutputTokPerSec {
			out.OutputTokPerSec[i] += t.OutputTokPerSec[i]
		}
		for i := range out.InFlight {
			out.InFlight[i] += t.InFlight[i]
		}
	}
	return []metrics.Timeline{out}
}

// mergedScorecard builds the merged run's scorecard with the metadata,
// cost rate and energy factors shard 0 declared (every shard was given
// the same flags). GPU energy is not merged (see mergeShards).
func mergedScorecard(run results.Run, parts []shardPart) scorecard.Scorecard {
	in := harness.ScorecardInputs{Metadata: parts[0].run.Metadata}
	if sc, err := scorecard.Read(filepath.Join(parts[0].dir, scorecard.FileName)); err == nil {
		in.Metadata = sc.Metadata
		in.Cost = scorecard.CostRate{EURPerHour: deref(sc.Cost.EURPerHour), Currency: sc.Cost.Currency, Source: sc.Cost.Source}
		in.PUE = deref(sc.Energy.PUE)
		in.IdleBaselineW = deref(sc.Energy.IdleBaselineW)
		in.GridGCO2KWh = deref(sc.Carbon.GridGCO2KWh)
	}
	in.Metadata.MaxConcurrencyTested = 0 // recomputed from the merged levels
	in.Metadata.StartedAt = run.StartedAt
	return harness.Scorecard(run, nil, in)
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// mergeRecords writes the shards' records, in shard order, to dir's
// requests.jsonl (requests.jsonl.gz when shard 0's is compressed). Whole
// records are copied unchanged. A shard file cut short (its last line a
// torn record, or its gzip stream ending early) gives its whole records
// and one tornRecord for the part left out; a damaged line elsewhere is
// refused with its file and line (*recordsError), and nothing is written.
func mergeRecords(dir string, parts []shardPart) ([]tornRecord, error) {
	gz := false
	if _, err := os.Stat(filepath.Join(parts[0].dir, results.RequestsJSONLGz)); err == nil {
		gz = true
	}
	name := results.RequestsJSONL
	if gz {
		name = results.RequestsJSONLGz
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriterSize(tmp, 1<<16)
	var w io.Writer = bw
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(bw)
		w = zw
	}
	var torn []tornRecord
	var errs []error
	for _, p := range parts {
		t, err := copyRecords(w, p.dir)
		if t != nil {
			torn = append(torn, *t)
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		tmp.Close()
		return nil, err
	}
	if zw != nil {
		errs = append(errs, zw.Close())
	}
	errs = append(errs, bw.Flush(), tmp.Close())
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("merge: %s: %w", name, err)
	}
	return torn, os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// tornRecord is the end of a shard's records file that was cut short and
// left out of the merge.
type tornRecord struct {
	path  string
	line  int // 1-based line of the partial record
	bytes int // its bytes left out
	gzip  bool
}

func (t tornRecord) String() string {
	switch {
	case t.bytes == 0:
		return fmt.Sprintf("%s: the gzip stream ends early after line %d: any records after it are lost", t.path, t.line)
	case t.gzip:
		return fmt.Sprintf("%s line %d: a record cut off where the gzip stream ends early, %d bytes, left out", t.path, t.line, t.bytes)
	}
	return fmt.Sprintf("%s line %d: a torn record (the file ends before the rest of it), %d bytes, left out", t.path, t.line, t.bytes)
}

// recordsError is a shard's records line that is not a whole record
// although more lines follow it: the file is damaged, not cut short.
type recordsError struct {
	path string
	line int
	err  error
}

func (e *recordsError) Error() string {
	return fmt.Sprintf("%s line %d: not a whole record (%v), and records follow it: the file is damaged; remove or repair that line, then merge again", e.path, e.line, e.err)
}

func (e *recordsError) Unwrap() error { return e.err }

// copyRecords copies one shard's requests.jsonl[.gz] to w, line by line,
// each ending with a newline. Blank lines are dropped. A shard without
// records (it had no request to send) copies nothing. See mergeRecords for
// a file cut short or damaged.
func copyRecords(w io.Writer, dir string) (*tornRecord, error) {
	var r io.Reader
	path := filepath.Join(dir, results.RequestsJSONL)
	f, err := os.Open(path)
	gz := false
	if errors.Is(err, fs.ErrNotExist) {
		path = filepath.Join(dir, results.RequestsJSONLGz)
		f, err = os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s or %s", dir, results.RequestsJSONL, results.RequestsJSONLGz)
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r, gz = zr, true
	} else {
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReaderSize(r, 1<<16)
	// cut reports whether err says the gzip stream ends early.
	cut := func(err error) bool { return gz && errors.Is(err, io.ErrUnexpectedEOF) }
	var line []byte
	for n := 1; ; n++ {
		line = line[:0]
		var rerr error
		for {
			chunk, err := br.ReadSlice('\n')
			line = append(line, chunk...)
			if !errors.Is(err, bufio.ErrBufferFull) {
				rerr = err
				break
			}
		}
		if rerr != nil && rerr != io.EOF && !cut(rerr) {
			return nil, fmt.Errorf("%s: %w", path, rerr)
		}
		ended := len(line) > 0 && line[len(line)-1] == '\n'
		last := rerr != nil
		if !last {
			if _, err := br.Peek(1); err == io.EOF || cut(err) {
				last = true
			}
		}
		switch rec := bytes.TrimSpace(line); {
		case len(rec) == 0:
		case wholeRecord(rec):
			if _, err := w.Write(append(rec, '\n')); err != nil {
				return nil, err
			}
		case last:
			// The last line, cut short: the whole records before it are
			// kept.
			return &tornRecord{path: path, line: n, bytes: len(line), gzip: cut(rerr)}, nil
		default:
			return nil, &recordsError{path: path, line: n, err: recordSyntax(rec)}
		}
		if rerr != nil || (last && ended) {
			if _, err := br.Peek(1); cut(rerr) || cut(err) {
				// The stream ends early just after a whole line.
				return &tornRecord{path: path, line: n, gzip: true}, nil
			}
			return nil, nil
		}
	}
}

// wholeRecord reports whether line is one whole JSON object.
func wholeRecord(line []byte) bool { return line[0] == '{' && json.Valid(line) }

// recordSyntax says why line is not a whole record.
func recordSyntax(line []byte) error {
	if line[0] != '{' {
		return errors.New("not a JSON object")
	}
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return err
	}
	return errors.New("not a JSON object")
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
