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
	"unsafe"

	"golang.org/x/sys/unix"
)

const supported = true

// conn is a TCP connection read with recvmsg(2), keeping the kernel's
// receive stamp of each read.
type conn struct {
	net.Conn // the *net.TCPConn: writes, deadlines, addresses, Close
	tc       *net.TCPConn
	rc       syscall.RawConn
	last     atomic.Int64 // LastReceive

	// The state of the read in progress, guarded by mu: the RawConn
	// callback (recv, a method value made once) reads p and sets n and
	// errno, so that a Read allocates nothing.
	mu    sync.Mutex
	recv  func(fd uintptr) bool
	p     []byte
	n     int
	errno syscall.Errno
	msg   unix.Msghdr
	iov   unix.Iovec
	oob   [oobWords]uint64 // control messages; uint64 words keep them aligned
}

// oobWords sizes the control buffer: one SCM_TIMESTAMPNS message needs
// CmsgSpace(16) = 32 bytes on 64-bit systems; room is left for others.
const oobWords = 16

func enable(c net.Conn) (net.Conn, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, fmt.Errorf("%T is not a TCP connection", c)
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil {
		return c, fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	if serr != nil {
		return c, fmt.Errorf("SO_TIMESTAMPNS: %w", os.NewSyscallError("setsockopt", serr))
	}
	sc := &conn{Conn: tc, tc: tc, rc: rc}
	sc.recv = sc.recvmsg
	return sc, nil
}

// LastReceive implements Source.
func (c *conn) LastReceive() int64 { return c.last.Load() }

// Read reads into p with recvmsg, waiting in the runtime's poller while
// the socket has nothing to read, and keeps the receive stamp.
func (c *conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.Lock()
	c.p, c.n, c.errno = p, 0, 0
	err := c.rc.Read(c.recv)
	n, errno := c.n, c.errno
	c.p = nil
	c.mu.Unlock()
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

// ReadFrom writes r to the connection (io.ReaderFrom, which net/http uses
// to send a request body): see WriteBody.
func (c *conn) ReadFrom(r io.Reader) (int64, error) { return WriteBody(c.tc, r) }

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
