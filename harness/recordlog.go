package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// RecordLog is a run's records file, requests.jsonl (or .jsonl.gz), with one
// record per request in level order, each with its final in_window flag.
// While a level runs, its records go to a spool file beside the log, so
// that they reach the disk as they complete and memory stays flat.
type RecordLog struct {
	dir  string
	path string
	f    *os.File
	enc  *loadgen.Encoder
	mu   sync.Mutex
}

// CreateRecordLog creates dir/name (requests.jsonl, or requests.jsonl.gz
// when gzipped) and refuses to replace an existing file.
func CreateRecordLog(dir, name string, gzipped bool) (*RecordLog, error) {
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("records log: %w", err)
	}
	enc := loadgen.NewEncoder(f)
	if gzipped {
		enc = loadgen.NewGzipEncoder(f)
	}
	return &RecordLog{dir: dir, path: path, f: f, enc: enc}, nil
}

// Path returns the log's file path ("" for a nil log).
func (l *RecordLog) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// write appends one record. A nil log keeps nothing.
func (l *RecordLog) write(rec *loadgen.Record) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.enc.Write(rec)
}

// Flush pushes buffered records to the file.
func (l *RecordLog) Flush() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.enc.Flush()
}

// Close flushes and closes the file.
func (l *RecordLog) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.enc.Close(), l.f.Sync(), l.f.Close())
}

// spool holds one level's records until its window is known.
type spool interface {
	loadgen.Sink
	// replay calls fn on every record, in the order written.
	replay(fn func(*loadgen.Record) error) error
	// discard releases the spool; a file spool whose replay failed is
	// kept on disk, so that no record is lost.
	discard()
}

func (l *RecordLog) spool(level int) (spool, error) {
	if l == nil {
		return &memorySpool{}, nil
	}
	f, err := os.CreateTemp(l.dir, fmt.Sprintf("requests-level-%d-*.jsonl.spool", level))
	if err != nil {
		return nil, fmt.Errorf("records spool: %w", err)
	}
	return &fileSpool{f: f, enc: loadgen.NewEncoder(f)}, nil
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

func (m *memorySpool) discard() {}

type fileSpool struct {
	f        *os.File
	enc      *loadgen.Encoder
	replayed bool
}

func (s *fileSpool) Write(rec *loadgen.Record) error { return s.enc.Write(rec) }

func (s *fileSpool) replay(fn func(*loadgen.Record) error) error {
	if err := s.enc.Flush(); err != nil {
		return fmt.Errorf("records spool %s: %w", s.f.Name(), err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	dec := loadgen.NewDecoder(s.f)
	for {
		var rec loadgen.Record
		err := dec.Decode(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("records spool %s: %w", s.f.Name(), err)
		}
		if err := fn(&rec); err != nil {
			return fmt.Errorf("records log: %w (the level's records are kept in %s)", err, s.f.Name())
		}
	}
	s.replayed = true
	return nil
}

func (s *fileSpool) discard() {
	s.f.Close()
	if s.replayed {
		os.Remove(s.f.Name())
	}
}
