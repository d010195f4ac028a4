package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/outputfs"
)

// RecordLog is a run's records file, requests.jsonl (or .jsonl.gz), with one
// record per request in level order, each with its final in_window flag.
// While a level runs, its records go to a spool file beside the log, so
// that they reach the disk as they complete and memory stays flat; once
// the level is over they are copied to the log and the spool is removed.
//
// When a write fails (a full disk), nothing already measured is dropped
// and no file is left with part of a record: the spool or the log is cut
// back to its last whole record, the level stops (RunLevel returns a
// *outputfs.WriteError), the log keeps the whole levels before it, the
// failed level's records stay in its spool file, and those that did not
// reach the disk stay in memory until Close writes what still fits.
// Records reports where each record ended up.
type RecordLog struct {
	fsys outputfs.FS
	dir  string
	path string

	mu    sync.Mutex
	out   *recordFile
	start struct{ size, n int64 } // out at the start of the level being copied
	kept  []*fileSpool            // spools of levels not in the log
}

// CreateRecordLog creates dir/name (requests.jsonl, or requests.jsonl.gz
// when gzipped) and refuses to replace an existing file.
func CreateRecordLog(dir, name string, gzipped bool) (*RecordLog, error) {
	return CreateRecordLogIn(nil, dir, name, gzipped)
}

// CreateRecordLogIn is CreateRecordLog written through fsys (nil:
// outputfs.OSFS), as a results folder is (results.Folder's FileSystem).
func CreateRecordLogIn(fsys outputfs.FS, dir, name string, gzipped bool) (*RecordLog, error) {
	if fsys == nil {
		fsys = outputfs.OSFS{}
	}
	path := filepath.Join(dir, name)
	f, err := fsys.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("records log: %w", err)
	}
	return &RecordLog{fsys: fsys, dir: dir, path: path, out: newRecordFile(fsys, f, gzipped)}, nil
}

// Path returns the log's file path ("" for a nil log).
func (l *RecordLog) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// copying reports whether the level whose spool is s goes to the log: not
// after a write failure, which leaves every later level in its spool.
func (l *RecordLog) copying(s spool) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fs, ok := s.(*fileSpool)
	return ok && fs.w.err == nil && l.out.err == nil
}

// add appends one record of the level being copied. A write failure is
// kept, and returned by endLevel.
func (l *RecordLog) add(rec *loadgen.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.out.add(rec)
}

// beginLevel notes where the level starts in the log: a batch boundary,
// since endLevel writes each level's last batch.
func (l *RecordLog) beginLevel() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start.size, l.start.n = l.out.size, l.out.n
}

// endLevel ends the level whose records were in s (and were copied to
// the log when copied is set), given the spool's replay error. It writes
// the level's last batch to the log and removes the spool. After any
// failure, the spool's or the log's, the log is cut back to the whole
// levels before this one, the spool is kept (its records are the level's),
// and the first failure is returned.
func (l *RecordLog) endLevel(s spool, copied bool, replayErr error) error {
	fs, ok := s.(*fileSpool)
	if l == nil || !ok {
		return replayErr
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var logErr error
	if copied {
		logErr = l.out.flush()
	}
	if replayErr == nil && logErr == nil && fs.w.err == nil && copied {
		fs.remove()
		return nil
	}
	if copied {
		if err := l.out.rollback(l.start.size, l.start.n); err != nil {
			logErr = errors.Join(logErr, fmt.Errorf("records log %s: cutting the level off again: %w", l.path, err))
		}
	}
	l.kept = append(l.kept, fs)
	err := errors.Join(fs.w.err, replayErr, logErr)
	if err == nil {
		err = l.out.err // an earlier level's failure: this level was not copied
	}
	return fmt.Errorf("records: %w; level %d's records are kept in %s", err, fs.level, fs.w.f.Name())
}

// KeptSpool is a spool file kept beside the records log after a write
// failure: it holds the whole records of one level that are not in the
// log.
type KeptSpool struct {
	Path    string
	Level   int
	Records int64 // whole records in the file
}

// Records says where a run's records are: all in the log, or, after a
// write failure, some in kept spool files or nowhere.
type Records struct {
	Path  string      // the records log
	InLog int64       // whole records in it
	Kept  []KeptSpool // levels whose records are in a spool file instead
	// Unwritten counts records that no file could take (the disk was
	// full): they are counted in their level's summary, and lost.
	Unwritten int64
	// Err is the first write failure; nil when no write failed.
	Err error
}

// String says where the records are, for people.
func (r Records) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s holds %d whole records", r.Path, r.InLog)
	for _, k := range r.Kept {
		fmt.Fprintf(&b, "; level %d's %d records are in %s", k.Level, k.Records, k.Path)
	}
	if r.Unwritten > 0 {
		fmt.Fprintf(&b, "; %d records could not be written anywhere (they are counted in run.json's summaries)", r.Unwritten)
	}
	return b.String()
}

// Records reports where the records are now; after Close it is final.
func (l *RecordLog) Records() Records {
	if l == nil {
		return Records{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r := Records{Path: l.path, InLog: l.out.n + l.out.nbuf, Err: l.out.err}
	for _, s := range l.kept {
		r.Kept = append(r.Kept, KeptSpool{Path: s.w.f.Name(), Level: s.level, Records: s.w.n})
		r.Unwritten += s.w.nbuf
		if r.Err == nil {
			r.Err = s.w.err
		}
	}
	return r
}

// Flush writes the records held in memory to the log.
func (l *RecordLog) Flush() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out.flush()
}

// Close writes what is left and closes the log. After a write failure it
// first writes the records of kept spools that were still in memory to
// their spool files, for as long as they fit (see Records). It returns
// only errors met here, not the write failure RunLevel returned.
func (l *RecordLog) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, s := range l.kept {
		s.w.salvage()
		errs = append(errs, s.w.f.Sync(), s.w.f.Close())
	}
	if l.out.err == nil {
		errs = append(errs, l.out.flush())
	}
	errs = append(errs, l.out.f.Sync(), l.out.f.Close())
	return errors.Join(errs...)
}

// spool holds one level's records until its window is known.
type spool interface {
	loadgen.Sink
	// replay calls fn on every record, in the order written.
	replay(fn func(*loadgen.Record) error) error
}

func (l *RecordLog) spool(level int) (spool, error) {
	if l == nil {
		return &memorySpool{}, nil
	}
	f, err := outputfs.CreateTemp(l.fsys, l.dir, LevelSpoolPattern(level))
	if err != nil {
		return nil, fmt.Errorf("records spool: %w", err)
	}
	return &fileSpool{fsys: l.fsys, level: level, w: newRecordFile(l.fsys, f, false)}, nil
}

type memorySpool struct{ loadgen.MemorySink }

func (m *memorySpool) replay(fn func(*loadgen.Record) error) error {
	recs := m.Records()
	for i := range recs {
		if err := fn(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// fileSpool is one level's records, in a file beside the log and, after
// a write failure, in memory (see recordFile).
type fileSpool struct {
	fsys  outputfs.FS
	level int
	w     *recordFile
}

// Write appends rec. It fails once, when the file cannot take a batch;
// rec and the records after it are then kept in memory.
func (s *fileSpool) Write(rec *loadgen.Record) error { return s.w.add(rec) }

func (s *fileSpool) replay(fn func(*loadgen.Record) error) error {
	r, err := s.w.records()
	if err != nil {
		return fmt.Errorf("records spool %s: %w", s.w.f.Name(), err)
	}
	dec := loadgen.NewDecoder(r)
	for {
		var rec loadgen.Record
		err := dec.Decode(&rec)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("records spool %s: %w", s.w.f.Name(), err)
		}
		if err := fn(&rec); err != nil {
			return err
		}
	}
}

// remove closes and removes the spool file, once its records are in the
// log.
func (s *fileSpool) remove() {
	s.w.f.Close()
	_ = s.fsys.Remove(s.w.f.Name())
}

// SpoolGlob matches the spool files a running level writes its records
// to, beside requests.jsonl (LevelSpoolPattern); they are moved into the
// log when the level ends, so one is left behind only by a run that was
// killed, or that could not write the log.
const SpoolGlob = "requests-level-*.jsonl.spool"

// LevelSpoolPattern is the os.CreateTemp pattern of level's spool file.
func LevelSpoolPattern(level int) string {
	return fmt.Sprintf("requests-level-%d-*.jsonl.spool", level)
}
