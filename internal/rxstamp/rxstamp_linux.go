//go:build linux

package rxstamp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const supported = true

// conn is a TCP connection read with recvmsg(2), keeping the kernel's
// receive stamp of each read and, with transmit stamps on (tx.on), the
// kernel's software transmit stamps of the last byte written and of the
// first write since MarkRequest.
type conn struct {
	net.Conn // the *net.TCPConn: deadlines, addresses, Close
	tc       *net.TCPConn
	rc       syscall.RawConn
	last     atomic.Int64 // LastReceive

	// The state of the read in progress, guarded by mu: the RawConn
	// callbacks (recv and around, method values made once) read p and set
	// n, errno and got, so that a Read allocates nothing.
	mu     sync.Mutex
	recv   func(fd uintptr) bool
	around func(fd uintptr)
	p      []byte
	n      int
	errno  syscall.Errno
	got    bool // readAroundFD read (data, EOF or an error)
	msg    unix.Msghdr
	iov    unix.Iovec
	oob    [oobWords]uint64 // control messages; uint64 words keep them aligned
	pfd    [1]unix.PollFd

	tx tx
}

// tx is a connection's transmit stamping state.
type tx struct {
	on      bool         // SO_TIMESTAMPING is set; the rest is unused otherwise
	last    atomic.Int64 // LastSend
	pending atomic.Bool  // the stamp of the last byte written is still to be read
	req     atomic.Int64 // RequestSend, before reqGap is added
	reqGap  atomic.Int64 // ns the writer spent between the request's writes
	mark    atomic.Bool  // MarkRequest was called; no write since

	// Guarded by mu (the writer and the reader both drain the error
	// queue): written counts the bytes written since the option was set;
	// key and stamp are the latest stamp read from the error queue, which
	// can be that of a write still in progress. reqFrom is the offset of
	// the first byte of the first write since MarkRequest, and reqWant
	// says that write's stamp is still to be read: the first stamp whose
	// key is at or after reqFrom (the stamp of that write's first send
	// call). drain is the RawConn callback (a method value made once),
	// msg and oob its scratch space.
	mu      sync.Mutex
	written uint64
	key     uint32
	stamp   int64
	reqFrom uint32
	reqWant bool
	inReq   bool      // a write since MarkRequest: later ones are the same request's
	lastEnd time.Time // when the request's latest write returned (monotonic)
	drain   func(fd uintptr)
	msg     unix.Msghdr
	oob     [txOOBWords]uint64
}

// oobWords sizes a read's control buffer: SCM_TIMESTAMPNS needs
// CmsgSpace(16) = 32 bytes (64-bit sizes) and, with transmit stamps on,
// the SCM_TIMESTAMPING that comes with it CmsgSpace(48) = 64.
const oobWords = 16

// txOOBWords sizes the control buffer of a message of the error queue:
// SCM_TIMESTAMPING (64 bytes), IP_RECVERR or IPV6_RECVERR (at most
// CmsgSpace(16+28) = 64) and the SCM_TIMESTAMPNS that SO_TIMESTAMPNS adds
// (32).
const txOOBWords = 32

// txFlags asks for the software transmit stamp of the last byte of each
// send, keyed by its byte offset (OPT_ID), without the packet (OPT_TSONLY).
const txFlags = unix.SOF_TIMESTAMPING_TX_SOFTWARE | unix.SOF_TIMESTAMPING_SOFTWARE |
	unix.SOF_TIMESTAMPING_OPT_ID | unix.SOF_TIMESTAMPING_OPT_TSONLY

// maxDrain bounds the messages one drain of the error queue reads.
const maxDrain = 64

// aroundWaitMS is how long readAroundFD waits in poll(2) at a time, ms:
// it bounds how late a Close (which waits for it) or a deadline is seen.
const aroundWaitMS = 2

func enable(c net.Conn, send bool) (net.Conn, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, fmt.Errorf("%T is not a TCP connection", c)
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	var serr, terr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		if serr == nil && send {
			terr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPING, txFlags)
		}
	}); err != nil {
		return c, fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	if serr != nil {
		return c, fmt.Errorf("SO_TIMESTAMPNS: %w", os.NewSyscallError("setsockopt", serr))
	}
	sc := &conn{Conn: tc, tc: tc, rc: rc}
	sc.recv = sc.recvmsg
	sc.around = sc.readAroundFD
	// Without transmit stamps (a kernel that refuses the option) the
	// connection keeps its receive stamps; LastSend is then 0.
	if send && terr == nil {
		sc.tx.on = true
		sc.tx.drain = sc.drainErrQueue
	}
	return sc, nil
}

// LastReceive implements Source.
func (c *conn) LastReceive() int64 { return c.last.Load() }

// LastSend implements Source.
func (c *conn) LastSend() int64 { return c.tx.last.Load() }

// RequestSend implements Source.
func (c *conn) RequestSend() int64 {
	at := c.tx.req.Load()
	if at == 0 {
		return 0
	}
	return at + c.tx.reqGap.Load()
}

// MarkRequest implements Source.
func (c *conn) MarkRequest() {
	t := &c.tx
	if !t.on {
		return
	}
	t.mu.Lock()
	t.req.Store(0)
	t.reqGap.Store(0)
	t.reqWant, t.inReq = false, false
	t.mark.Store(true)
	t.mu.Unlock()
}

// begin notes, before a write, whether it is the first since
// MarkRequest: its bytes start at the offset written so far. It is noted
// before the write, so that a Read draining the error queue while the
// write is in progress keeps its stamp.
// A later write of the same request adds the writer's own time since the
// request's previous write returned to reqGap (net/http writes a request's
// headers, then its body): RequestSend moves by it, to when the request
// would have begun to leave had it been written at once, so the client's
// pause between its writes is not the server's time.
func (c *conn) begin() {
	t := &c.tx
	if !t.on {
		return
	}
	t.mu.Lock()
	switch {
	case t.mark.Load():
		t.mark.Store(false)
		t.reqFrom, t.reqWant, t.inReq = uint32(t.written), true, true
	case t.inReq && !t.lastEnd.IsZero():
		t.reqGap.Add(int64(time.Since(t.lastEnd)))
	}
	t.mu.Unlock()
}

// Read reads into p with recvmsg, waiting in the runtime's poller while
// the socket has nothing to read, and keeps the receive stamp. While the
// stamp of the last byte written is pending, it reads the error queue
// too.
func (c *conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.Lock()
	c.p, c.n, c.errno = p, 0, 0
	err := c.rc.Read(c.recv)
	if err != nil && c.tx.on && eventErr(err) {
		err = c.readAround()
	}
	n, errno := c.n, c.errno
	c.p = nil
	c.mu.Unlock()
	if c.tx.pending.Load() {
		c.settleSend()
	}
	switch {
	case err != nil:
		// Closed, or a deadline: the poller's error, as net.Conn.Read
		// would return it.
		var op *net.OpError
		if errors.As(err, &op) {
			op.Op = "read"
		}
		return 0, err
	case errno != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("recvmsg", errno)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// eventErr reports whether err, from RawConn.Read, is the runtime
// poller's refusal to wait (poll.ErrNotPollable): neither a closed
// connection nor a deadline, the only other errors it returns.
func eventErr(err error) bool {
	return !errors.Is(err, net.ErrClosed) && !errors.Is(err, os.ErrDeadlineExceeded)
}

// readAround reads past the runtime poller's event error. The poller
// marks a descriptor whose epoll event is EPOLLERR alone, and then
// refuses to wait for it to become readable (poll.ErrNotPollable) until
// its next event of another kind. A socket with transmit stamps reports
// EPOLLERR while its error queue holds a stamp; alone when it is also
// neither readable nor writable: a stamp that arrives while the send
// buffer is full (a large request body). The mark goes with the next
// event of the socket (writable again, data), so readAround reads
// directly and waits in poll(2), aroundWaitMS at a time, handing back to
// the poller after each wait. Only Read calls it, with mu held.
func (c *conn) readAround() error {
	for {
		c.got = false
		if err := c.rc.Control(c.around); err != nil {
			return err
		}
		if c.got {
			return nil
		}
		err := c.rc.Read(c.recv)
		if err == nil || !eventErr(err) {
			return err
		}
	}
}

// readAroundFD is readAround's RawConn callback: it empties the error
// queue, reads if there is anything to read (setting got), and otherwise
// waits for the socket to become readable for at most aroundWaitMS.
func (c *conn) readAroundFD(fd uintptr) {
	c.tx.mu.Lock()
	c.drainErrQueue(fd)
	c.settleLocked()
	c.tx.mu.Unlock()
	if c.recvmsg(fd) {
		c.got = true
		return
	}
	c.pfd[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	_, _ = unix.Poll(c.pfd[:], aroundWaitMS)
}

// recvmsg is the RawConn callback: one recvmsg call. It returns false on
// EAGAIN, so that the poller waits for the socket to become readable.
func (c *conn) recvmsg(fd uintptr) bool {
	c.iov.Base = &c.p[0]
	c.iov.SetLen(len(c.p))
	c.msg.Iov = &c.iov
	c.msg.SetIovlen(1)
	oob := c.control()
	c.msg.Control = &oob[0]
	c.msg.SetControllen(len(oob))
	c.msg.Flags = 0
	for {
		n, _, errno := unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&c.msg)), 0)
		switch errno {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			c.iov.Base = nil
			return false
		case 0:
			c.n = int(n)
			raceAcquireIO(fd)
			if n > 0 {
				var at int64
				if c.msg.Flags&unix.MSG_CTRUNC == 0 {
					at = stampOf(oob[:c.msg.Controllen])
				}
				c.last.Store(at)
			}
		default:
			c.errno = errno
		}
		c.iov.Base = nil
		return true
	}
}

// control returns the control buffer as bytes.
func (c *conn) control() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&c.oob[0])), len(c.oob)*8)
}

// Write writes p to the connection and, with transmit stamps on, reads
// the stamp of its last byte.
func (c *conn) Write(p []byte) (int, error) {
	c.begin()
	n, err := c.tc.Write(p)
	c.sent(int64(n))
	return n, err
}

// ReadFrom writes r to the connection (io.ReaderFrom, which net/http uses
// to send a request body; see WriteBody) and, with transmit stamps on,
// reads the stamp of its last byte.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	c.begin()
	n, err := WriteBody(c.tc, r)
	c.sent(n)
	return n, err
}

// sent accounts for n bytes just written: LastSend is 0 until the stamp
// of the last of them is read, from the error queue now if the kernel has
// sent them, or by a later Read (pending).
func (c *conn) sent(n int64) {
	if !c.tx.on || n <= 0 {
		return
	}
	t := &c.tx
	t.mu.Lock()
	if t.inReq {
		t.lastEnd = time.Now()
	}
	t.written += uint64(n)
	t.last.Store(0)
	t.pending.Store(true)
	_ = c.rc.Control(t.drain)
	c.settleLocked()
	t.mu.Unlock()
}

// settleSend reads the error queue while the stamp of the last byte
// written is pending.
func (c *conn) settleSend() {
	t := &c.tx
	t.mu.Lock()
	if t.pending.Load() {
		_ = c.rc.Control(t.drain)
		c.settleLocked()
	}
	t.mu.Unlock()
}

// settleLocked accepts the latest stamp read when it is that of the last
// byte written (tx.mu held): a stamp of an earlier send never stands for
// a later one.
func (c *conn) settleLocked() {
	t := &c.tx
	if t.written > 0 && t.stamp != 0 && t.key == uint32(t.written-1) {
		t.last.Store(t.stamp)
		t.pending.Store(false)
	}
}

// drainErrQueue reads the socket's error queue until it is empty (tx.mu
// held; a RawConn callback), keeping the latest transmit stamp: the
// kernel queues them in the order of the bytes sent. While the stamp of
// a request's first write is wanted (reqWant), it keeps the first stamp
// at or after that write's first byte as RequestSend: the stamp of the
// write's first send call, whose bytes are the first of the request to
// leave. It never blocks (MSG_DONTWAIT) and allocates nothing.
func (c *conn) drainErrQueue(fd uintptr) {
	t := &c.tx
	oob := unsafe.Slice((*byte)(unsafe.Pointer(&t.oob[0])), len(t.oob)*8)
	for range maxDrain {
		t.msg = unix.Msghdr{Control: &oob[0]}
		t.msg.SetControllen(len(oob))
		_, _, errno := unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&t.msg)), unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		default:
			return // EAGAIN: empty
		}
		if t.msg.Flags&unix.MSG_CTRUNC == 0 {
			if key, at, ok := txStampOf(oob[:t.msg.Controllen]); ok {
				t.key, t.stamp = key, at
				if t.reqWant && int32(key-t.reqFrom) >= 0 {
					t.req.Store(at)
					t.reqWant = false
				}
			}
		}
	}
}

// WriteTo is io.WriterTo without the *net.TCPConn's shortcut (splice),
// which would read the socket without stamps.
func (c *conn) WriteTo(w io.Writer) (int64, error) {
	return io.Copy(w, struct{ io.Reader }{c})
}

// hold opens a UDP socket with SO_TIMESTAMPNS and returns its descriptor.
func hold() (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fd, err = unix.Socket(unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	}
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("setsockopt", err)
	}
	return fd, nil
}

func release(fd int) { unix.Close(fd) }
