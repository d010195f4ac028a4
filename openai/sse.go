package openai

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/gollm-bench/gollm-bench/internal/rxstamp"
)

// sseInitialBuf is the starting size of an sseReader's read buffer, in
// bytes. It grows (doubling) to hold the longest line seen, up to the
// reader's line limit, so lines longer than bufio.Scanner's 64 KiB
// default are accepted.
const sseInitialBuf = 4 << 10

// DefaultMaxLineBytes is the default limit on one SSE line, and on the
// data of one event, in bytes (WithMaxLineBytes): 4 MiB, hundreds of times
// the longest chunk line of a real server, so that a server that never
// ends a line costs a bounded amount of memory per stream.
const DefaultMaxLineBytes = 4 << 20

// DefaultLineBudget is the default total, in bytes, that all the streams
// of one Client may hold in SSE buffers beyond their first sseInitialBuf
// bytes (WithLineBudget): 128 MiB, 32 lines at the 4 MiB line limit. A
// stream whose line needs more than the budget has left fails like a line
// over the limit, so memory stays bounded whatever the number of streams.
// The collector lets the heap grow to about twice what is live: 96 streams
// of an endless line peaked at 306 MB RSS with 128 MiB (430 MB with
// 256 MiB).
const DefaultLineBudget = 128 << 20

// errSSELineTooLong is returned by sseReader.next for a line, or the data
// of an event, longer than the reader's limit.
var errSSELineTooLong = errors.New("sse: line too long")

// errSSELineBudget is returned by sseReader.next when a line needs more
// buffer than the Client's budget for all its streams has left.
var errSSELineBudget = errors.New("sse: line buffer budget spent")

// lineBudget is the bytes that all the sseReaders of one Client may hold
// beyond their initial buffers. It is safe for concurrent use.
type lineBudget struct {
	left atomic.Int64
	// spare holds full-size line buffers (maxLine+1 bytes) that no reader
	// holds, at most maxSpareLines, still charged to the budget: the next
	// reader whose line reaches the limit takes one rather than
	// allocating. Endless lines, request after request, would otherwise
	// allocate a full buffer each, hundreds of MB/s of garbage that the
	// budget does not count and the collector frees late (24 streams
	// peaked at 355 MB RSS with a 96 MB live budget).
	mu    sync.Mutex
	spare [][]byte
}

// maxSpareLines bounds lineBudget.spare: past it a full-size buffer given
// back is dropped and its bytes given back to the budget.
const maxSpareLines = 16

// full returns a buffer of n bytes charged n to the budget: a spare one,
// or a new one; nil when the budget has not n bytes left.
func (b *lineBudget) full(n int) []byte {
	if b != nil {
		b.mu.Lock()
		if k := len(b.spare); k > 0 && len(b.spare[k-1]) == n {
			buf := b.spare[k-1]
			b.spare[k-1] = nil
			b.spare = b.spare[:k-1]
			b.mu.Unlock()
			return buf
		}
		b.mu.Unlock()
	}
	if !b.take(int64(n)) {
		return nil
	}
	return make([]byte, n)
}

// keep takes back buf, a buffer from full, as a spare, or drops it and
// gives its bytes back when there are maxSpareLines spares already.
func (b *lineBudget) keep(buf []byte) {
	if b == nil {
		return
	}
	b.mu.Lock()
	if len(b.spare) < maxSpareLines {
		b.spare = append(b.spare, buf[:cap(buf)])
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	b.give(int64(cap(buf)))
}

func newLineBudget(n int64) *lineBudget {
	b := &lineBudget{}
	b.left.Store(n)
	return b
}

// take reserves n bytes, and reports false, reserving nothing, when fewer
// are left. A nil budget grants everything.
func (b *lineBudget) take(n int64) bool {
	if b == nil {
		return true
	}
	if b.left.Add(-n) < 0 {
		b.left.Add(n)
		return false
	}
	return true
}

// give returns n bytes taken before.
func (b *lineBudget) give(n int64) {
	if b != nil {
		b.left.Add(n)
	}
}

// errNotSSE is returned by sseReader.next when the first non-blank line of
// the stream is neither a comment nor one of the fields data, event, id and
// retry: the body is something else (an HTML page, a JSON object, text).
// sseReader.notSSE returns the body's first bytes.
var errNotSSE = errors.New("sse: not an event stream")

// utf8BOM is the byte order mark an event stream may start with (WHATWG
// HTML §9.2.5: it is skipped).
const utf8BOM = "\xef\xbb\xbf"

// sseReader reads Server-Sent Events (WHATWG HTML §9.2) from a byte stream
// and returns the data of each event. It accepts "data:" with or without the
// space, "\n", "\r\n" and "\r" line ends, comment lines (": ping"), "event:",
// "id:" and "retry:" lines (ignored), and multi-line data (joined with
// "\n"). Bytes are passed through untouched: invalid UTF-8, even split
// across reads, reaches the caller as it came.
//
// After warm-up, next allocates nothing: the read buffer and the data buffer
// are reused. An sseReader is not safe for concurrent use.
type sseReader struct {
	r    io.Reader
	buf  []byte // read buffer; buf[start:end] is unread
	st   int
	end  int
	data []byte // data of the event being assembled
	has  bool   // a data line was seen for the event being assembled
	err  error  // sticky read error (io.EOF at the end)
	cr   bool   // the previous line ended in '\r': skip a leading '\n'
	// started is set once a non-blank line was seen, and only if it was
	// an SSE line (a comment or a known field); badAt is the offset in buf
	// of a first line that was not.
	started bool
	badAt   int
	// src, when set, is the connection under r; stamp is its kernel
	// receive stamp (CLOCK_REALTIME ns, 0 if none) after the latest read
	// that returned bytes. Every byte in buf arrived by that read or an
	// earlier one, so stamp is never earlier than the arrival of the last
	// byte of the event next returns, and it is that arrival unless the
	// layers below buffered bytes across reads.
	src   rxstamp.Source
	stamp int64
	// limit bounds one line and the data of one event, bytes (0:
	// DefaultMaxLineBytes); budget, shared by the Client's readers, is
	// charged bufCharge bytes for buf (its bytes beyond sseInitialBuf, or
	// all of a full-size one) and dataCharge for data (all of it past
	// sseInitialBuf); at the next reset a full-size buffer goes back to
	// the budget's spares, and the others are dropped and their charge
	// given back.
	limit                 int
	budget                *lineBudget
	bufCharge, dataCharge int64
}

// reset points s at a new stream, keeping its buffers unless they grew
// beyond what the budget granted for free: those are dropped and their
// bytes given back, so a reader left in a pool holds no long line.
func (s *sseReader) reset(r io.Reader) {
	s.release(&s.buf, &s.bufCharge)
	s.release(&s.data, &s.dataCharge)
	if s.buf == nil {
		s.buf = make([]byte, sseInitialBuf)
	}
	s.r, s.st, s.end = r, 0, 0
	s.data, s.has, s.err, s.cr = s.data[:0], false, nil, false
	s.started, s.badAt = false, 0
	s.src, s.stamp = nil, 0
}

// release gives back *buf, charged *charge to the budget: a full-size
// buffer to the spares, another's charge to the budget (the buffer is
// dropped), and nothing for an uncharged one, which is kept.
func (s *sseReader) release(buf *[]byte, charge *int64) {
	switch {
	case *charge == 0:
		return
	case cap(*buf) == s.maxLine()+1 && *charge == int64(cap(*buf)):
		s.budget.keep(*buf)
	default:
		s.budget.give(*charge)
	}
	*buf, *charge = nil, 0
}

// grow returns a buffer of n bytes holding old[:keep], charged to the
// budget instead of old (charge: old's; updated): a spare or new
// full-size buffer when n is the line limit's, else a new one. It
// returns nil, changing nothing, when the budget has not enough left.
func (s *sseReader) grow(old []byte, keep, n int, charge *int64) []byte {
	var nb []byte
	if n == s.maxLine()+1 {
		if nb = s.budget.full(n); nb == nil {
			return nil
		}
		s.budget.give(*charge)
		*charge = int64(n)
	} else {
		c := int64(0)
		if n > sseInitialBuf {
			c = int64(n - sseInitialBuf)
		}
		if !s.budget.take(c - *charge) {
			return nil
		}
		*charge = c
		nb = make([]byte, n)
	}
	copy(nb, old[:keep])
	return nb
}

// notSSE returns the body's bytes read so far from its first non-blank
// line on, after next returned errNotSSE. The slice is valid until the
// next reset.
func (s *sseReader) notSSE() []byte { return s.buf[s.badAt:s.end] }

// isSSELine reports whether line, the first non-blank line of a stream,
// is a comment or one of the fields an event stream uses.
func isSSELine(line []byte) bool {
	if line[0] == ':' {
		return true
	}
	field := line
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		field = line[:i]
	}
	switch string(field) {
	case "data", "event", "id", "retry":
		return true
	}
	return false
}

// next returns the data of the next event. The slice is valid until the next
// call. At the end of the stream it returns io.EOF; an event left
// unterminated by EOF is still returned first (servers that end on a
// single "\n" are common). When the first non-blank line (after an
// optional byte order mark) is not an SSE line, it returns errNotSSE
// without reading further. Any other read error is returned as is, after
// which the reader is spent.
func (s *sseReader) next() ([]byte, error) {
	if s.err == errNotSSE {
		return nil, errNotSSE
	}
	for {
		line, ok, err := s.line()
		if err != nil {
			if err == io.EOF && s.has {
				s.has = false
				return s.data, nil
			}
			return nil, err
		}
		if !ok {
			continue
		}
		if len(line) == 0 { // blank line: dispatch
			if s.has {
				s.has = false
				return s.data, nil
			}
			continue
		}
		if !s.started {
			line = bytes.TrimPrefix(line, []byte(utf8BOM))
			if len(line) == 0 {
				continue
			}
			if !isSSELine(line) {
				s.badAt = cap(s.buf) - cap(line) // line is a slice of buf
				s.err = errNotSSE
				return nil, errNotSSE
			}
			s.started = true
		}
		if line[0] == ':' { // comment
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(field) != "data" { // event, id, retry and unknown fields
			continue
		}
		sep := s.has // multi-line data is joined with "\n"
		if !s.has {
			s.data = s.data[:0]
			s.has = true
		}
		if err := s.appendData(sep, value); err != nil {
			s.err = err
			return nil, err
		}
	}
}

// maxLine is the reader's line limit, bytes.
func (s *sseReader) maxLine() int {
	if s.limit > 0 {
		return s.limit
	}
	return DefaultMaxLineBytes
}

// appendData appends value to the event's data, after a "\n" if sep,
// within the line limit and the budget.
func (s *sseReader) appendData(sep bool, value []byte) error {
	n := len(s.data) + len(value)
	if sep {
		n++
	}
	if n > s.maxLine() {
		return errSSELineTooLong
	}
	if n > cap(s.data) {
		c := min(max(s.grown(cap(s.data)), n, 256), s.maxLine()+1)
		nd := s.grow(s.data, len(s.data), c, &s.dataCharge)
		if nd == nil {
			return errSSELineBudget
		}
		s.data = nd[:len(s.data)]
	}
	if sep {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, value...)
	return nil
}

// line returns the next complete line without its line end. ok is false
// when the call consumed only the '\n' of a "\r\n" split across reads.
func (s *sseReader) line() (line []byte, ok bool, err error) {
	for {
		if s.cr && s.st < s.end {
			s.cr = false
			if s.buf[s.st] == '\n' {
				s.st++
				return nil, false, nil
			}
		}
		if i := lineEnd(s.buf[s.st:s.end]); i >= 0 {
			line = s.buf[s.st : s.st+i]
			if s.buf[s.st+i] == '\r' {
				if s.st+i+1 < s.end {
					if s.buf[s.st+i+1] == '\n' {
						s.st++
					}
				} else {
					s.cr = true
				}
			}
			s.st += i + 1
			return line, true, nil
		}
		if s.err != nil {
			// The last line without a line end; not the one that passed
			// the line limit or the budget, which is no line (handing it
			// on cost a second buffer of the limit's size, for the data).
			if s.st < s.end && s.err != errSSELineTooLong && s.err != errSSELineBudget {
				line = s.buf[s.st:s.end]
				s.st = s.end
				return line, true, nil
			}
			return nil, false, s.err
		}
		s.fill()
	}
}

// lineEnd returns the index of the first '\r' or '\n' in b, or -1. Two
// vectorised IndexByte scans, bounded by the line, cost about a third of
// bytes.IndexAny's byte-at-a-time set lookup on a typical 200-byte chunk
// line (BenchmarkSSENext, docs/performance.md).
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	head := b
	if i >= 0 {
		head = b[:i]
	}
	if j := bytes.IndexByte(head, '\r'); j >= 0 {
		return j
	}
	return i
}

// sseDoubleUpTo is the buffer size up to which an sseReader's buffers
// grow by doubling; past it a buffer grows straight to the line limit.
const sseDoubleUpTo = 64 << 10

// grown returns the size a buffer of size n grows to: twice n up to
// sseDoubleUpTo, then the line limit (plus the byte that tells a line
// over it). A line that long is rare (a real server's chunk lines are
// hundreds of bytes) and most often endless: doubling it to the limit
// would leave as much garbage again as the buffer it ends in, which the
// budget does not count and the garbage collector frees late (24 endless
// lines peaked at 355 MB RSS with doubling), while one allocation leaves
// at most sseDoubleUpTo.
func (s *sseReader) grown(n int) int {
	if n < sseDoubleUpTo {
		return 2 * n
	}
	return s.maxLine() + 1
}

// fill reads more bytes, compacting or growing the buffer first.
func (s *sseReader) fill() {
	if s.st > 0 {
		s.end = copy(s.buf, s.buf[s.st:s.end])
		s.st = 0
	}
	if s.end == len(s.buf) {
		// A line end may still come: read up to one byte past the limit.
		if len(s.buf) > s.maxLine() {
			s.err = errSSELineTooLong
			return
		}
		n := min(s.grown(len(s.buf)), s.maxLine()+1)
		nb := s.grow(s.buf, s.end, n, &s.bufCharge)
		if nb == nil {
			s.err = errSSELineBudget
			return
		}
		s.buf = nb
	}
	n, err := s.r.Read(s.buf[s.end:])
	s.end += n
	if n > 0 && s.src != nil {
		s.stamp = s.src.LastReceive()
	}
	if err != nil {
		s.err = err
	}
}
