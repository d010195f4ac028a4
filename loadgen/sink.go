package loadgen

import (
	"errors"
	"sync"
)

// MemorySink keeps every record it is given, in order, for tests and
// embedders that post-process in memory. It is safe for concurrent use.
// The zero value is ready.
type MemorySink struct {
	mu   sync.Mutex
	recs []Record
}

// Write stores a copy of *rec. It never fails.
func (m *MemorySink) Write(rec *Record) error {
	m.mu.Lock()
	m.recs = append(m.recs, *rec)
	m.mu.Unlock()
	return nil
}

// Records returns a copy of the records written so far, in write order.
func (m *MemorySink) Records() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Record(nil), m.recs...)
}

// Len returns the number of records written so far.
func (m *MemorySink) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.recs)
}

// Tee returns a Sink that writes each record to every sink in order. It
// tries them all, and returns their errors joined (errors.Join), so a
// failing progress hook does not starve the file writer of records it
// could have written. The same *Record is passed to each sink.
func Tee(sinks ...Sink) Sink { return tee(sinks) }

type tee []Sink

func (t tee) Write(rec *Record) error {
	var errs []error
	for _, s := range t {
		if err := s.Write(rec); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// SinkFunc adapts a function to Sink, e.g. to update a live progress view
// or a running histogram from the records as they complete.
type SinkFunc func(rec *Record) error

// Write calls f(rec).
func (f SinkFunc) Write(rec *Record) error { return f(rec) }
