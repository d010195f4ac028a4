package results

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// Merging the shards of a distributed run (`gollm-bench run --shard I/N`
// on several machines): ReadShards finds and reads their run.json, Merge
// combines them into the run's result as if one process had sent every
// request (per level, the summaries merge exactly through their HDR
// histograms and the verdict is judged again), and MergeRecords
// concatenates their records files.

// ShardDir is the name of shard i's folder inside its run's folder
// (OUTPUT-DIR/RUN-ID/shard-I), where ReadShards looks for it.
func ShardDir(i int) string { return fmt.Sprintf("shard-%d", i) }

// Shard is one shard's results folder.
type Shard struct {
	Dir   string        // the shard's results folder
	Run   Run           // its run.json
	Shard loadgen.Shard // which shard it is
}

// ReadShards reads the shards named by args: a folder with a run.json is
// a shard; a folder without one is a run folder whose shard-*/ folders are
// the shards.
func ReadShards(args []string) ([]Shard, error) {
	var dirs []string
	var errs []error
	for _, a := range args {
		a = strings.TrimSuffix(a, string(filepath.Separator)+RunJSON)
		if filepath.Base(a) == RunJSON {
			a = filepath.Dir(a)
		}
		// A run folder (which may already hold a merged run.json) first.
		found, _ := filepath.Glob(filepath.Join(a, "shard-*", RunJSON))
		for _, f := range found {
			dirs = append(dirs, filepath.Dir(f))
		}
		if len(found) > 0 {
			continue
		}
		if _, err := os.Stat(filepath.Join(a, RunJSON)); err == nil {
			dirs = append(dirs, a)
			continue
		}
		errs = append(errs, fmt.Errorf("%s: neither a shard folder (no %s) nor a run folder holding shard-*/%s", a, RunJSON, RunJSON))
	}
	var parts []Shard
	for _, d := range dirs {
		run, err := Read(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if run.Config.Shard == "" {
			errs = append(errs, fmt.Errorf("%s: not a shard (its run.json has no config.shard; it was not run as a shard I/N)", d))
			continue
		}
		s, err := loadgen.ParseShard(run.Config.Shard)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: config.shard: %w", d, err))
			continue
		}
		parts = append(parts, Shard{Dir: d, Run: run, Shard: s})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(parts, func(a, b Shard) int { return a.Shard.Index - b.Shard.Index })
	return parts, nil
}

// checkShards checks that parts are every shard of one run, once each,
// with the same plan.
func checkShards(parts []Shard) error {
	if len(parts) == 0 {
		return errors.New("no shards to merge")
	}
	first := parts[0]
	n := first.Shard.Count
	var errs []error
	seen := make([]string, n)
	for _, p := range parts {
		switch {
		case p.Run.RunID != first.Run.RunID:
			errs = append(errs, fmt.Errorf("%s: run id %q, but %s has %q: shards of different runs", p.Dir, p.Run.RunID, first.Dir, first.Run.RunID))
			continue
		case p.Shard.Count != n:
			errs = append(errs, fmt.Errorf("%s: shard %s, but %s is shard %s: the shard counts differ", p.Dir, p.Shard, first.Dir, first.Shard))
			continue
		case seen[p.Shard.Index] != "":
			errs = append(errs, fmt.Errorf("shard %s given twice: %s and %s", p.Shard, seen[p.Shard.Index], p.Dir))
			continue
		}
		seen[p.Shard.Index] = p.Dir
		if d := planDiff(first.Run.Config, p.Run.Config); d != "" {
			errs = append(errs, fmt.Errorf("%s: %s differs from %s's: the shards did not run the same plan", p.Dir, d, first.Dir))
		}
		if !p.Run.Result.Objective.Equal(first.Run.Result.Objective) {
			errs = append(errs, fmt.Errorf("%s: result.slo %q differs from %s's %q", p.Dir, p.Run.Result.Objective, first.Dir, first.Run.Result.Objective))
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
func planDiff(a, b Config) string {
	for _, c := range []struct {
		name string
		x, y any
	}{
		{"config.profile", a.Profile, b.Profile},
		{"config.rates", fmt.Sprint(a.Rates), fmt.Sprint(b.Rates)},
		{"config.seed", a.Seed, b.Seed},
		{"config.max_concurrency", a.MaxConcurrency, b.MaxConcurrency},
		{"config.data", a.Data, b.Data},
		{"config.sequence_distribution", a.SequenceDistribution, b.SequenceDistribution},
		{"config.dataset", a.Dataset, b.Dataset},
		{"config.prefix_cache", a.PrefixCache, b.PrefixCache},
		{"config.sessions", a.sessionSpec(), b.sessionSpec()},
		{"config.max_seconds", a.MaxSeconds, b.MaxSeconds},
		{"config.max_requests", a.MaxRequests, b.MaxRequests},
		{"config.warmup", a.Warmup, b.Warmup},
		{"config.cooldown", a.Cooldown, b.Cooldown},
		{"config.warmup_phase", a.WarmupPhase, b.WarmupPhase},
		{"config.endpoint", a.Endpoint, b.Endpoint},
		{"config.model", a.Model, b.Model},
	} {
		if c.x != c.y {
			return fmt.Sprintf("%s (%v, not %v)", c.name, c.y, c.x)
		}
	}
	return ""
}

// Merge checks parts (sorted by shard index) and combines their
// run.json into the run's: per level, the summaries merge exactly and the
// verdict is judged again with the run's SLO.
func Merge(parts []Shard) (Run, error) {
	if err := checkShards(parts); err != nil {
		return Run{}, err
	}
	base := parts[0].Run
	run := base
	run.Config.Shard = ""
	run.Config.Shards = len(parts)
	run.Timelines, run.Telemetry = nil, nil
	nLevels := len(base.Result.Levels)
	anyPartial := false
	for _, p := range parts {
		anyPartial = anyPartial || p.Run.Partial || p.Run.Result.Partial
		run.StartedAt = minTime(run.StartedAt, p.Run.StartedAt)
		run.FinishedAt = maxTime(run.FinishedAt, p.Run.FinishedAt)
		nLevels = min(nLevels, len(p.Run.Result.Levels))
	}
	var errs []error
	for _, p := range parts {
		if len(p.Run.Result.Levels) != len(base.Result.Levels) && !anyPartial {
			errs = append(errs, fmt.Errorf("%s: %d levels, but %s has %d", p.Dir, len(p.Run.Result.Levels), parts[0].Dir, len(base.Result.Levels)))
		}
	}

	res := sweep.Result{Kind: base.Result.Kind, Objective: base.Result.Objective, StopReason: base.Result.StopReason, Partial: anyPartial}
	for li := range nLevels {
		out := base.Result.Levels[li]
		sums := make([]metrics.Summary, len(parts))
		var levelErrs []string
		for pi, p := range parts {
			lv := p.Run.Result.Levels[li]
			if lv.Index != out.Index || lv.Profile != out.Profile {
				errs = append(errs, fmt.Errorf("%s: level %d is %+v, but %s's is %+v", p.Dir, li, lv.Profile, parts[0].Dir, out.Profile))
			}
			sums[pi] = lv.Summary
			out.Partial = out.Partial || lv.Partial
			if lv.Error != "" {
				levelErrs = append(levelErrs, fmt.Sprintf("shard %s: %s", p.Shard, lv.Error))
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
		return Run{}, err
	}
	if anyPartial {
		res.StopReason = sweep.StopInterrupted
		res.Warnings = append(res.Warnings, metrics.Warning{Code: WarnShardPartial, Level: -1,
			Message: "a shard was interrupted: the merged result is partial, and levels some shard lacks are left out"})
	}
	tel, notes := mergeTelemetry(parts)
	run.Telemetry = tel
	res.Warnings = append(res.Warnings, notes...)
	if !res.Objective.IsZero() {
		res.Undecided = sweep.UndecidedLevels(res.Levels, res.Kind)
	}
	run.Partial = anyPartial
	if anyPartial {
		run.PartialReason = "a shard was interrupted"
	}
	run.Result = res
	// The metadata, cost rate and energy factors are shard 0's (every
	// shard was given the same flags); the concurrency tested is the
	// merged levels'.
	run.Metadata.MaxConcurrencyTested = 0
	run.Metadata.StartedAt = run.StartedAt
	return run, nil
}

// MergeDir returns the folder a merge of parts writes to, created if need
// be: output when given, else the run folder holding the shard folders
// (an error when they are not in one). A folder that already holds a
// run.json is refused unless overwrite.
func MergeDir(parts []Shard, output string, overwrite bool) (string, error) {
	dir := output
	if dir == "" {
		dir = filepath.Dir(parts[0].Dir)
		for _, p := range parts[1:] {
			if filepath.Dir(p.Dir) != dir {
				return "", errors.New("the shard folders are in different folders: give the output folder")
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("merge: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, RunJSON)); err == nil && !overwrite {
		return "", fmt.Errorf("merge: %s already holds a run.json: replace it (overwrite), or choose another output folder", dir)
	}
	return dir, nil
}

// MarkTorn marks a merged run partial when MergeRecords left torn records
// out: the whole records were merged, the torn ones are named in the
// partial reason and a WarnTornRecord warning, and the summaries, which
// come from the shards' run.json, still count them. No torn record: no
// change.
func (r *Run) MarkTorn(torn []TornRecord) {
	if len(torn) == 0 {
		return
	}
	where := make([]string, len(torn))
	for i, t := range torn {
		where[i] = t.String()
	}
	r.Partial, r.Result.Partial = true, true
	reason := "a shard's records file was cut short: " + strings.Join(where, "; ")
	r.PartialReason = strings.Join(slices.DeleteFunc([]string{r.PartialReason, reason}, func(s string) bool { return s == "" }), "; ")
	r.Result.Warnings = append(r.Result.Warnings, metrics.Warning{Code: WarnTornRecord, Level: -1, Message: reason +
		": the merged requests.jsonl lacks those records; the merged summaries come from the shards' run.json and still count them"})
}

// mergeTelemetry combines the shards' readings level by level (and
// repeat by repeat). GPU energy adds when the shards metered disjoint GPUs
// (each shard on its own node, reading its own GPUs: energy.Sum); when they
// read the same GPUs (several load generators against one server, metered
// through DCGM or Prometheus), the readings overlap, and the level keeps
// shard 0's, which saw every shard's load. Engine counters come from one
// server that every shard loaded, so shard 0's delta is the level's.
func mergeTelemetry(parts []Shard) ([]LevelTelemetry, []metrics.Warning) {
	type key struct{ level, repeat int }
	byKey := map[key][]LevelTelemetry{}
	var order []key
	for _, p := range parts {
		for _, t := range p.Run.Telemetry {
			k := key{t.Level, t.Repeat}
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], t)
		}
	}
	var out []LevelTelemetry
	var notes []metrics.Warning
	shard0 := func(level int, what string) {
		notes = append(notes, metrics.Warning{Code: WarnTelemetryShard0, Level: level,
			Message: "the shards' " + what + " overlap (the same GPUs or server): the level keeps shard 0's, which saw every shard's load over shard 0's window"})
	}
	for _, k := range order {
		ts := byKey[k]
		merged := LevelTelemetry{Level: k.level, Repeat: k.repeat}
		var readings []energy.Reading
		engines := 0
		for _, t := range ts {
			if t.Energy != nil {
				readings = append(readings, *t.Energy)
			}
			if t.Engine != nil {
				if engines == 0 {
					merged.Engine = t.Engine
				}
				engines++
			}
		}
		switch sum, err := energy.Sum(readings...); {
		case len(readings) == 0:
		case err != nil:
			merged.Energy = &readings[0]
			shard0(k.level, "GPU energy readings")
		case sum.GPUCount == 0:
			merged.Energy = &readings[0]
		default:
			merged.Energy = &sum
		}
		if engines > 1 {
			shard0(k.level, "engine /metrics deltas")
		}
		out = append(out, merged)
	}
	return out, notes
}

// mergeTimelines sums the shards' timelines of level li bucket by bucket
// when they have the same number of buckets (the shards' clocks are not
// shared, so buckets are aligned by index: an approximation for plots
// only; no reported figure comes from timelines).
func mergeTimelines(li int, parts []Shard) []metrics.Timeline {
	var tl []metrics.Timeline
	for _, p := range parts {
		if li >= len(p.Run.Timelines) {
			return nil
		}
		tl = append(tl, p.Run.Timelines[li])
	}
	out := tl[0]
	out.OutputTokPerSec = slices.Clone(out.OutputTokPerSec)
	out.InFlight = slices.Clone(out.InFlight)
	out.OfferedReqPerSec, out.CompletedReqPerSec = slices.Clone(out.OfferedReqPerSec), slices.Clone(out.CompletedReqPerSec)
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
		addRates(&out, t)
	}
	return []metrics.Timeline{out}
}

// MergeRecords writes the shards' records, in shard order, to dir's
// requests.jsonl (requests.jsonl.gz when shard 0's is compressed). Whole
// records are copied unchanged. A shard file cut short (its last line a
// torn record, or its gzip stream ending early) gives its whole records
// and one TornRecord for the part left out; a damaged line elsewhere is
// refused with its file and line (*RecordsError), and nothing is written.
func MergeRecords(dir string, parts []Shard) ([]TornRecord, error) {
	gz := false
	if _, err := os.Stat(filepath.Join(parts[0].Dir, RequestsJSONLGz)); err == nil {
		gz = true
	}
	name := RequestsJSONL
	if gz {
		name = RequestsJSONLGz
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
	var torn []TornRecord
	var errs []error
	for _, p := range parts {
		t, err := copyRecords(w, p.Dir)
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

// TornRecord is the end of a shard's records file that was cut short and
// left out of the merge.
type TornRecord struct {
	Path  string
	Line  int  // 1-based line of the partial record
	Bytes int  // its bytes left out (0: the gzip stream ends right after a whole line)
	Gzip  bool // the file is gzipped and its stream ends early
}

func (t TornRecord) String() string {
	switch {
	case t.Bytes == 0:
		return fmt.Sprintf("%s: the gzip stream ends early after line %d: any records after it are lost", t.Path, t.Line)
	case t.Gzip:
		return fmt.Sprintf("%s line %d: a record cut off where the gzip stream ends early, %d bytes, left out", t.Path, t.Line, t.Bytes)
	}
	return fmt.Sprintf("%s line %d: a torn record (the file ends before the rest of it), %d bytes, left out", t.Path, t.Line, t.Bytes)
}

// RecordsError is a shard's records line that is not a whole record
// although more lines follow it: the file is damaged, not cut short.
type RecordsError struct {
	Path string
	Line int
	Err  error
}

func (e *RecordsError) Error() string {
	return fmt.Sprintf("%s line %d: not a whole record (%v), and records follow it: the file is damaged; remove or repair that line, then merge again", e.Path, e.Line, e.Err)
}

func (e *RecordsError) Unwrap() error { return e.Err }

// copyRecords copies one shard's requests.jsonl[.gz] to w, line by line,
// each ending with a newline. Blank lines are dropped. A shard without
// records (it had no request to send) copies nothing. See MergeRecords for
// a file cut short or damaged.
func copyRecords(w io.Writer, dir string) (*TornRecord, error) {
	var r io.Reader
	path := filepath.Join(dir, RequestsJSONL)
	f, err := os.Open(path)
	gz := false
	if errors.Is(err, fs.ErrNotExist) {
		path = filepath.Join(dir, RequestsJSONLGz)
		f, err = os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s or %s", dir, RequestsJSONL, RequestsJSONLGz)
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
			return &TornRecord{Path: path, Line: n, Bytes: len(line), Gzip: cut(rerr)}, nil
		default:
			return nil, &RecordsError{Path: path, Line: n, Err: recordSyntax(rec)}
		}
		if rerr != nil || (last && ended) {
			if _, err := br.Peek(1); cut(rerr) || cut(err) {
				// The stream ends early just after a whole line.
				return &TornRecord{Path: path, Line: n, Gzip: true}, nil
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
