package rxstamp

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"
)

// Source is a connection that knows when the kernel received the bytes of
// its latest read, when it sent the last byte written, and when it sent
// the first write of the latest request.
type Source interface {
	// LastReceive returns the kernel's receive time of the data returned
	// by the latest Read that returned data, as CLOCK_REALTIME
	// nanoseconds since the Unix epoch; 0 when that read carried no
	// stamp, or before the first read. Safe for concurrent use with Read.
	LastReceive() int64
	// LastSend returns the kernel's software transmit time of the last
	// byte written so far (when the network device was handed the
	// packet that carried it), as CLOCK_REALTIME nanoseconds since the
	// Unix epoch; 0 before the first write, while that stamp has not
	// been read yet (a Read reads it), without transmit stamps
	// (EnableReceive, or a kernel that refused them), or on other
	// platforms. It is never the stamp of an earlier write. Safe for
	// concurrent use with Read and Write.
	LastSend() int64
	// MarkRequest says that the next write begins a new request (call
	// it before that write, not during one): RequestSend is 0 until the
	// stamp of that write is read. It does nothing without transmit
	// stamps. Safe for concurrent use with Read.
	MarkRequest()
	// RequestSend returns the kernel's software transmit time of the
	// first write since MarkRequest (of the bytes of its first send
	// call: when the request began to leave), plus the writer's own time
	// between the request's writes (from the return of one to the start
	// of the next: a pause of the client, not the server's time), as
	// CLOCK_REALTIME nanoseconds since the Unix epoch; 0 before
	// MarkRequest, while
	// that stamp has not been read yet (a Read or a later write reads
	// it, and it comes no later than LastSend's), without transmit
	// stamps, or on other platforms. Safe for concurrent use with Read
	// and Write.
	RequestSend() int64
}

// ErrUnsupported is returned by Enable where the platform has no kernel
// receive timestamps for TCP (every system but Linux).
var ErrUnsupported = errors.New("kernel receive timestamps need Linux")

// Supported reports whether Enable can work on this platform.
func Supported() bool { return supported }

// Enable turns on kernel receive and transmit timestamps for c, which
// must be a *net.TCPConn to which nothing has been written yet, and
// returns the connection to use in its place: reads and writes go
// through it, everything else to c. On error, c is returned unchanged,
// usable without stamps, with the reason (ErrUnsupported on other
// platforms). A kernel that refuses transmit stamps leaves the receive
// stamps on, and LastSend 0. The returned connection's Read must not be
// called by two goroutines at once, nor its Write (net/http never does).
//
// A write costs one more system call with transmit stamps (reading the
// socket's error queue), and so does the next Read when the kernel had
// not sent the bytes by the time the write returned.
func Enable(c net.Conn) (net.Conn, error) { return enable(c, true) }

// EnableReceive is Enable with receive timestamps only: a server that
// times the requests it receives, and whose writes should cost nothing
// more.
func EnableReceive(c net.Conn) (net.Conn, error) { return enable(c, false) }

// SourceOf returns the Source under c (under the *tls.Conn when c is
// one), or nil when c is not a connection Enable returned.
func SourceOf(c net.Conn) Source {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	s, _ := c.(Source)
	return s
}

// offsetSamples is the number of readings Offset takes the median of.
const offsetSamples = 3

// Offset returns CLOCK_REALTIME − (start + the monotonic time elapsed
// since start), in nanoseconds: subtract it from a kernel stamp to get the
// stamp as a monotonic offset from start. start must carry a monotonic
// reading (a time.Now value). Each reading pairs the wall and monotonic
// clocks read back to back by time.Now; the median of three discards one
// reading delayed between its two halves (a preemption). It costs about
// 0.1 µs and does not allocate.
func Offset(start time.Time) int64 {
	var s [offsetSamples]int64
	for i := range s {
		t := time.Now()
		s[i] = t.UnixNano() - int64(t.Sub(start))
	}
	slices.Sort(s[:])
	return s[offsetSamples/2]
}

// Keeper keeps the kernel's receive stamping switched on. Linux stamps
// incoming packets only while some socket asks for stamps, and it switches
// stamping on lazily, from a work queue, when the first socket asks: the
// first segments of the first connections of a process that is alone in
// asking arrive unstamped. A Keeper asks, from a socket of its own, until
// it is closed, so that connections enabled later find stamping on.
type Keeper struct{ fd int }

// Keep returns a Keeper; call it well before the first connection (Close
// it when done). It fails with ErrUnsupported where Supported is false.
func Keep() (*Keeper, error) {
	fd, err := hold()
	if err != nil {
		return nil, fmt.Errorf("rxstamp: %w", err)
	}
	return &Keeper{fd: fd}, nil
}

// Close stops asking. It is safe to call more than once, but not from two
// goroutines at once.
func (k *Keeper) Close() error {
	if k != nil && k.fd >= 0 {
		release(k.fd)
		k.fd = -1
	}
	return nil
}

// WriteBody writes r to c, as c.ReadFrom would. net/http sends a request
// body of known length as an io.LimitedReader around the body; when that
// body is an io.WriterTo that knows its length (a bytes.Reader, or a type
// embedding one) and holds no more than the limit, its bytes are written
// in one Write, without copying them through io.Copy's buffer.
func WriteBody(c *net.TCPConn, r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if br, ok := lr.R.(lenWriterTo); ok && int64(br.Len()) <= lr.N {
			n, err := br.WriteTo(c)
			lr.N -= n
			return n, err
		}
	}
	return c.ReadFrom(r)
}

// lenWriterTo is a reader that writes its unread bytes in one go and
// knows how many they are (*bytes.Reader).
type lenWriterTo interface {
	io.WriterTo
	Len() int
}
