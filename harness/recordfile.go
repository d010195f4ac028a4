package harness

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/outputfs"
)

// batchSize is the size, in bytes of JSON, of the batches of records a
// recordFile writes at once.
const batchSize = 64 << 10

// flushEvery bounds how long a record waits in memory: a record added
// this long after the last write is written at once with those before it,
// however small the batch, so that a process killed (kill -9) at a low
// rate loses at most about this much of its records, not a 64 KiB batch
// (at 6 req/s, about 30 records and 5 s).
const flushEvery = time.Second

// recordFile appends records to a file as JSON Lines, in batches that end
// on a record boundary, so that the file never holds part of a record: a
// batch that cannot be written whole (a full disk) is cut off again, back
// to the end of the last whole batch. The records of that batch, and every
// record added after it, are then kept in memory, and the failure is kept
// as a *outputfs.WriteError. A gzipped recordFile writes each batch as one
// gzip member, so that a cut file is still a valid gzip stream.
//
// A recordFile is used by one goroutine at a time.
type recordFile struct {
	fsys outputfs.FS
	f    outputfs.File
	gz   *gzip.Writer // nil: plain JSON Lines
	zbuf bytes.Buffer
	buf  bytes.Buffer  // encoded records not in the file, whole lines
	enc  *json.Encoder // encodes into buf
	nbuf int64         // records in buf
	size int64         // bytes of f that hold whole batches
	n    int64         // records in those bytes
	err  error         // the first failed write (*outputfs.WriteError)
	// now is the clock of flushEvery (time.Now; tests set their own),
	// and last the time of the last write.
	now  func() time.Time
	last time.Time
}

func newRecordFile(fsys outputfs.FS, f outputfs.File, gzipped bool) *recordFile {
	w := &recordFile{fsys: fsys, f: f, now: time.Now}
	w.last = w.now()
	w.enc = json.NewEncoder(&w.buf)
	if gzipped {
		w.gz = gzip.NewWriter(io.Discard)
	}
	return w
}

// add appends rec, and writes the batch when it is full. It returns the
// write's error when that write fails, and nil otherwise: after a failure
// the record is kept in memory (see recordFile).
func (w *recordFile) add(rec *loadgen.Record) error {
	if err := w.enc.Encode(rec); err != nil {
		return fmt.Errorf("records: encoding record seq %d: %w", rec.Seq, err)
	}
	w.nbuf++
	if w.err != nil || (w.buf.Len() < batchSize && w.now().Sub(w.last) < flushEvery) {
		return nil
	}
	return w.flush()
}

// flush writes the records held in memory as one batch. It returns the
// failure, if any, now or from an earlier write.
func (w *recordFile) flush() error {
	if w.err != nil || w.buf.Len() == 0 {
		return w.err
	}
	data := w.buf.Bytes()
	if w.gz != nil {
		w.zbuf.Reset()
		w.gz.Reset(&w.zbuf)
		if _, err := w.gz.Write(data); err != nil {
			return err // writes to a bytes.Buffer do not fail
		}
		if err := w.gz.Close(); err != nil {
			return err
		}
		data = w.zbuf.Bytes()
	}
	w.last = w.now()
	if err := w.write(data); err != nil {
		w.err = err
		return err
	}
	w.n += w.nbuf
	w.buf.Reset()
	w.nbuf = 0
	return nil
}

// write writes data at the end of the whole batches, and cuts the file
// back there if it cannot write all of it.
func (w *recordFile) write(data []byte) error {
	if _, err := w.f.Seek(w.size, io.SeekStart); err != nil {
		return outputfs.NewWriteError(w.fsys, w.f.Name(), err)
	}
	n, err := w.f.Write(data)
	if err == nil && n < len(data) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if n > 0 {
			if cerr := w.cut(w.size); cerr != nil {
				err = errors.Join(err, fmt.Errorf("cutting the partial record off again failed too, so the file ends in one: %w", cerr))
			}
		}
		return outputfs.NewWriteError(w.fsys, w.f.Name(), err)
	}
	w.size += int64(n)
	return nil
}

// cut truncates the file to size bytes, a batch boundary.
func (w *recordFile) cut(size int64) error {
	return errors.Join(w.f.Truncate(size), seekErr(w.f.Seek(size, io.SeekStart)))
}

func seekErr(_ int64, err error) error { return err }

// rollback cuts the file back to size bytes holding n records (a state
// the file was in earlier) and forgets the records held in memory.
func (w *recordFile) rollback(size, n int64) error {
	w.buf.Reset()
	w.nbuf = 0
	if w.size == size {
		return nil
	}
	w.size, w.n = size, n
	return w.cut(size)
}

// records returns a reader of every record: the file's whole batches,
// then those held in memory. It moves the file offset; write seeks back.
// Plain (not gzipped) files only.
func (w *recordFile) records() (io.Reader, error) {
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.MultiReader(io.LimitReader(w.f, w.size), bytes.NewReader(w.buf.Bytes())), nil
}

// salvage writes the records held in memory after a failure, one record
// per write, for as long as they fit: the last resort of a full disk. A
// record that does not fit whole is cut off again. Plain files only.
func (w *recordFile) salvage() {
	rest := w.buf.Bytes()
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if w.write(rest[:i+1]) != nil {
			break
		}
		rest = rest[i+1:]
		w.n++
		w.nbuf--
	}
	w.buf.Next(w.buf.Len() - len(rest))
}
