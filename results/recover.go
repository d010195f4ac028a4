package results

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// SpoolGlob matches the spool files a running level writes its records
// to (harness.SpoolGlob): one is left behind only by a run that was
// killed, or that could not write the log.
const SpoolGlob = harness.SpoolGlob

// ErrNoRecords is returned by Recover for a folder with neither run.json
// nor a record.
var ErrNoRecords = errors.New("no records to re-render from")

// MaxRecoveredLevels is the most distinct levels Recover rebuilds: a run
// has a few dozen; a records file with more is not one run's, and each
// level's summary costs megabytes while it is built.
const MaxRecoveredLevels = 1000

// recoverBatch is how many levels' summaries Recover builds at once, each
// over one more pass through the records: its memory is that of
// recoverBatch accumulators, whatever the number of levels.
const recoverBatch = 32

// MaxRecordLine is the longest record line Recover reads, bytes: a
// record of a 100,000-token stream takes a few MiB. A longer line (a
// record torn and run together with garbage, or a hostile file) is read
// through without being kept: the torn last line of a file is left out
// and counted, one before the last is an error naming its line.
const MaxRecordLine = loadgen.DefaultMaxLine

// Recovery says what Recover read.
type Recovery struct {
	// Files are the record files read, in order (base names).
	Files []string
	// Records counts the records read, and Skipped the torn last lines
	// left out (one at most per file: a record cut by the kill).
	Records, Skipped int64
	// Levels lists the levels recovered, with their record counts.
	Levels []RecoveredLevel
}

// RecoveredLevel is one level rebuilt from its records.
type RecoveredLevel struct {
	Index   int
	Records int64
	// WindowKnown is true when the level's records carry their final
	// in_window flags (the level ended and was copied to requests.jsonl);
	// false for a level read from its spool (cut by the kill), whose
	// window is then every request it sent.
	WindowKnown bool
}

// String says what was recovered, for people.
func (r Recovery) String() string {
	var lv []string
	for _, l := range r.Levels {
		w := "its window as recorded"
		if !l.WindowKnown {
			w = "cut off: every request it sent counts as in its window"
		}
		lv = append(lv, fmt.Sprintf("level %d: %d records, %s", l.Index, l.Records, w))
	}
	s := fmt.Sprintf("%d records from %s (%s)", r.Records, strings.Join(r.Files, ", "), strings.Join(lv, "; "))
	if r.Skipped > 0 {
		s += fmt.Sprintf("; %d torn last line(s) left out", r.Skipped)
	}
	return s
}

// Recover rebuilds what it can of a run from the records in results
// folder dir when its run.json is missing (the run was killed, kill -9,
// before it wrote it): requests.jsonl or requests.jsonl.gz, then any level
// spool files (SpoolGlob). Each level's Summary is computed from its
// records by a metrics.Accumulator, as the run computes it; what only
// run.json holds is not known and stays empty: the command and settings,
// the SLO (so no verdict), the load profile, the timelines, the
// telemetry, the metadata. A level whose records carry in_window flags
// uses them; a level cut off by the kill (its records in a spool, with no
// final window) counts every request it sent. The Run is marked Partial,
// with a PartialReason that says all this. Recover returns ErrNoRecords
// (wrapped) when dir holds no record, and an error naming the file and
// line of the first record of a level past MaxRecoveredLevels. It reads
// the records streaming, once, then once more per recoverBatch levels,
// and lines of at most MaxRecordLine bytes: its memory grows neither with
// the number of records, nor of levels, nor with a line's length.
func Recover(dir string) (Run, Recovery, error) {
	var files []string
	for _, name := range []string{RequestsJSONL, RequestsJSONLGz} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			files = append(files, name)
		}
	}
	spools, err := filepath.Glob(filepath.Join(dir, SpoolGlob))
	if err != nil {
		return Run{}, Recovery{}, err
	}
	// In level order (requests-level-N-RANDOM.jsonl.spool).
	spoolLevel := func(p string) int {
		f := strings.Split(strings.TrimPrefix(filepath.Base(p), "requests-level-"), "-")
		n, _ := strconv.Atoi(f[0])
		return n
	}
	slices.SortFunc(spools, func(a, b string) int { return spoolLevel(a) - spoolLevel(b) })
	for _, p := range spools {
		files = append(files, filepath.Base(p))
	}
	var rec Recovery
	rec.Files = files

	// First pass: each level's span of send times, and whether its records
	// carry their window.
	type span struct {
		first, last time.Duration
		inWindow    bool // some record is in_window: the flags are final
		n           int64
		seen        bool
	}
	spans := map[int]*span{}
	skipped, err := eachRecord(dir, files, func(r *loadgen.Record) error {
		if r.Phase == loadgen.PhaseWarmup {
			return nil
		}
		s := spans[r.Level]
		if s == nil {
			if len(spans) >= MaxRecoveredLevels {
				return fmt.Errorf("record of level %d: more than %d distinct levels, more than a run has; this is not one run's records file (give a folder whose run.json is present, or split the file by level)", r.Level, MaxRecoveredLevels)
			}
			s = &span{}
			spans[r.Level] = s
		}
		s.n++
		s.inWindow = s.inWindow || r.InWindow
		if r.SentAt == 0 {
			return nil
		}
		if !s.seen || r.SentAt < s.first {
			s.first = r.SentAt
		}
		if !s.seen || r.SentAt > s.last {
			s.last = r.SentAt
		}
		s.seen = true
		return nil
	})
	if err != nil {
		return Run{}, rec, err
	}
	rec.Skipped = skipped
	if len(spans) == 0 {
		return Run{}, rec, fmt.Errorf("%s: no run.json, and %w (requests.jsonl and the level spool files hold none)", dir, ErrNoRecords)
	}
	levels := make([]int, 0, len(spans))
	for l := range spans {
		levels = append(levels, l)
	}
	slices.Sort(levels)

	// Then each level's summary, recoverBatch levels a pass.
	sums := make(map[int]metrics.Summary, len(levels))
	for _, l := range levels {
		s := spans[l]
		rec.Levels = append(rec.Levels, RecoveredLevel{Index: l, Records: s.n, WindowKnown: s.inWindow})
	}
	for batch := range slices.Chunk(levels, recoverBatch) {
		accs := map[int]*metrics.Accumulator{}
		for _, l := range batch {
			s := spans[l]
			cfg := metrics.Config{Level: l, Window: loadgen.Window{Start: s.first, End: s.last}}
			if s.inWindow {
				cfg.InWindow = func(r *loadgen.Record) bool { return r.InWindow }
			} else {
				cfg.InWindow = func(r *loadgen.Record) bool { return r.SentAt != 0 }
			}
			accs[l] = metrics.NewAccumulator(cfg)
		}
		if _, err := eachRecord(dir, files, func(r *loadgen.Record) error {
			if r.Phase == loadgen.PhaseWarmup {
				return nil
			}
			acc := accs[r.Level]
			if acc == nil {
				return nil // another batch's level, or one that appeared between the passes (a run still writing)
			}
			rec.Records++
			acc.Add(r)
			return nil
		}); err != nil {
			return Run{}, rec, err
		}
		for l, acc := range accs {
			sums[l] = acc.Summary()
		}
	}

	run := Run{SchemaVersion: SchemaVersion, RunID: filepath.Base(filepath.Clean(dir)), Tool: Tool{Name: "gollm-bench"},
		Partial: true,
		PartialReason: "no run.json (the run was killed before writing it): re-rendered from its records alone (" + rec.String() +
			"); the settings, the load profile, the SLO and its verdicts, the timelines and the telemetry were in run.json and are not known"}
	run.Result = sweep.Result{Partial: true, StopReason: sweep.StopInterrupted}
	for _, l := range levels {
		sum := sums[l]
		run.Result.Levels = append(run.Result.Levels, sweep.LevelOutcome{Index: l, Summary: sum, Profile: sum.Profile,
			Partial: !spans[l].inWindow,
			Verdict: slo.Verdict{Outcome: slo.OutcomeInconclusive, ClientLimited: sum.Client.ClientLimited,
				Reason: "the SLO, if any, was in run.json, which is missing"}})
	}
	return run, rec, nil
}

// eachRecord calls fn on every record of files in dir, in order. A torn
// last line of a file (a record cut by a kill) is skipped and counted; a
// bad line before the last is an error naming the file. An error from fn
// stops the reading; it is returned naming the file and line.
func eachRecord(dir string, files []string, fn func(*loadgen.Record) error) (skipped int64, err error) {
	for _, name := range files {
		n, err := eachRecordIn(filepath.Join(dir, name), fn)
		skipped += n
		if err != nil {
			return skipped, err
		}
	}
	return skipped, nil
}

func eachRecordIn(path string, fn func(*loadgen.Record) error) (skipped int64, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil // a spool moved into the log meanwhile
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if errors.Is(err, io.EOF) {
			return 0, nil // empty
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	dec := loadgen.NewDecoder(r)
	dec.LimitLine(MaxRecordLine)
	var pending error // a bad line, forgiven only if it is the last
	for {
		var rec loadgen.Record
		err := dec.Decode(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if pending != nil {
			return 0, fmt.Errorf("%s: %w", path, pending)
		}
		var de *loadgen.DecodeError
		if errors.As(err, &de) || errors.Is(err, io.ErrUnexpectedEOF) {
			// A torn record, or a gzip member cut by the kill.
			pending = err
			if errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		if err := fn(&rec); err != nil {
			return 0, fmt.Errorf("%s: line %d: %w", path, dec.Line(), err)
		}
	}
	if pending != nil {
		skipped = 1
	}
	return skipped, nil
}

// OpenOrRecover is Open, except that a folder with no run.json but with
// records (a run killed before it wrote run.json) is rebuilt from them by
// Recover; recovered is then non-nil and says what was read. Any other
// failure is Open's.
func OpenOrRecover(path string) (run Run, dir string, recovered *Recovery, err error) {
	run, dir, err = Open(path)
	if err == nil {
		return run, dir, nil, nil
	}
	st, serr := os.Stat(path)
	if serr != nil || !st.IsDir() {
		return Run{}, "", nil, err
	}
	if _, jerr := os.Stat(filepath.Join(path, RunJSON)); !errors.Is(jerr, fs.ErrNotExist) {
		return Run{}, "", nil, err // run.json is there, and damaged
	}
	r, rec, rerr := Recover(path)
	if errors.Is(rerr, ErrNoRecords) {
		return Run{}, "", nil, err // not a results folder: Open's error says so
	}
	if rerr != nil {
		return Run{}, "", nil, fmt.Errorf("%w; re-rendering from its records failed too: %w", err, rerr)
	}
	return r, path, &rec, nil
}
