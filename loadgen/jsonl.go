package loadgen

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Encoder writes records as JSON Lines (one Record object per line, the
// requests.jsonl of docs/outputs.md#requestsjsonl), buffered, optionally
// gzip-compressed. It implements Sink. It is not safe for concurrent use (a
// Generator calls Write from one goroutine). Call Close (or Flush) when done:
// until then records may sit in the buffer.
type Encoder struct {
	w   io.Writer
	buf *bufio.Writer
	gz  *gzip.Writer
	enc *json.Encoder
	err error
}

// NewEncoder returns an Encoder writing plain JSON Lines to w. Close
// flushes; it does not close w.
func NewEncoder(w io.Writer) *Encoder {
	e := &Encoder{w: w, buf: bufio.NewWriterSize(w, 64<<10)}
	e.enc = json.NewEncoder(e.buf)
	return e
}

// NewGzipEncoder returns an Encoder writing gzip-compressed JSON Lines
// (requests.jsonl.gz) to w. Close ends the gzip stream; it does not close
// w. NewDecoder reads the result transparently.
func NewGzipEncoder(w io.Writer) *Encoder {
	gz := gzip.NewWriter(w)
	e := &Encoder{w: w, gz: gz, buf: bufio.NewWriterSize(gz, 64<<10)}
	e.enc = json.NewEncoder(e.buf)
	return e
}

// Write appends rec as one line. After an error every call returns it.
func (e *Encoder) Write(rec *Record) error {
	if e.err != nil {
		return e.err
	}
	if err := e.enc.Encode(rec); err != nil {
		e.err = fmt.Errorf("loadgen: encoding record seq %d: %w", rec.Seq, err)
	}
	return e.err
}

// Flush writes the buffered records to the underlying writer (through the
// gzip stream, flushed too, if any).
func (e *Encoder) Flush() error {
	if e.err != nil {
		return e.err
	}
	if err := e.buf.Flush(); err != nil {
		e.err = fmt.Errorf("loadgen: flushing records: %w", err)
		return e.err
	}
	if e.gz != nil {
		if err := e.gz.Flush(); err != nil {
			e.err = fmt.Errorf("loadgen: flushing records: %w", err)
		}
	}
	return e.err
}

// Close flushes and ends the gzip stream, if any. It does not close the
// underlying writer. Writing after Close is an error.
func (e *Encoder) Close() error {
	err := e.Flush()
	if e.gz != nil && e.err == nil {
		if cerr := e.gz.Close(); cerr != nil {
			err = fmt.Errorf("loadgen: closing gzip stream: %w", cerr)
		}
	}
	if e.err == nil {
		e.err = errEncoderClosed
	}
	return err
}

var errEncoderClosed = errors.New("loadgen: write to a closed Encoder")

// Decoder reads JSON Lines records written by Encoder, plain or gzip
// (detected from the first bytes). Lines may be of any length unless
// LimitLine bounds them; blank lines are skipped. It is not safe for
// concurrent use.
type Decoder struct {
	r       *bufio.Reader
	line    int
	buf     []byte
	err     error
	maxLine int // bytes; 0: no bound (LimitLine; DefaultMaxLine from NewDecoder)
}

// DefaultMaxLine is the longest record line a Decoder reads unless
// LimitLine says otherwise, bytes: a record of a 100,000-token stream
// takes a few MiB, so a longer line is a record torn and run together
// with garbage, or a hostile file, and must not cost its length in memory
// (report.html's digest and compare read requests.jsonl too).
const DefaultMaxLine = 32 << 20

// LimitLine bounds the lines Decode reads to n bytes (0: no bound;
// NewDecoder sets DefaultMaxLine): a longer line is read through without being kept, and
// Decode returns a *DecodeError naming it, so that a torn or hostile line
// of hundreds of megabytes costs no memory; the next Decode goes on with
// the line after it.
func (d *Decoder) LimitLine(n int) { d.maxLine = n }

// errLineTooLong is readLine's answer for a line over Decoder.maxLine.
var errLineTooLong = errors.New("line too long")

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	d := &Decoder{r: bufio.NewReaderSize(r, 64<<10), maxLine: DefaultMaxLine}
	if magic, err := d.r.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(d.r)
		if err != nil {
			d.err = fmt.Errorf("loadgen: reading gzip header: %w", err)
			return d
		}
		d.r = bufio.NewReaderSize(gz, 64<<10)
	}
	return d
}

// DecodeError is a record line that could not be decoded.
type DecodeError struct {
	Line int   // 1-based line number
	Err  error // the JSON error
}

// Error implements error.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("loadgen: records line %d: %v", e.Line, e.Err)
}

// Unwrap returns the JSON error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Decode reads the next record into rec, overwriting every field. It
// returns io.EOF after the last record, and a *DecodeError naming the line
// for a line that is not a valid record object.
func (d *Decoder) Decode(rec *Record) error {
	if d.err != nil {
		return d.err
	}
	for {
		line, err := d.readLine()
		if err == errLineTooLong {
			d.line++
			return &DecodeError{Line: d.line, Err: fmt.Errorf("longer than %d bytes, the most a record line may be", d.maxLine)}
		}
		if err != nil {
			if err == io.EOF {
				d.err = io.EOF
			} else {
				d.err = fmt.Errorf("loadgen: reading records line %d: %w", d.line+1, err)
			}
			return d.err
		}
		d.line++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			return &DecodeError{Line: d.line, Err: errors.New("not a JSON object")}
		}
		*rec = Record{}
		if err := json.Unmarshal(line, rec); err != nil {
			return &DecodeError{Line: d.line, Err: err}
		}
		return nil
	}
}

// Line returns the number of lines read so far (the line of the last
// record Decode returned).
func (d *Decoder) Line() int { return d.line }

// readLine returns the next line without its '\n', of any length. The
// slice is valid until the next call. A last line without '\n' is
// returned; io.EOF comes only when nothing is left.
func (d *Decoder) readLine() ([]byte, error) {
	d.buf = d.buf[:0]
	long := false
	for {
		chunk, err := d.r.ReadSlice('\n')
		if !long && d.maxLine > 0 && len(d.buf)+len(chunk) > d.maxLine+1 {
			long, d.buf = true, nil // drop what was kept; read the rest through
		}
		if long {
			switch {
			case errors.Is(err, bufio.ErrBufferFull):
				continue
			case err == nil || err == io.EOF:
				return nil, errLineTooLong
			}
			return nil, err
		}
		d.buf = append(d.buf, chunk...)
		switch {
		case err == nil:
			return d.buf[:len(d.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(d.buf) > 0:
			return d.buf, nil
		default:
			return nil, err
		}
	}
}
