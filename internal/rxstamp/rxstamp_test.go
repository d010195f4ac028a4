package rxstamp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// pair returns the two ends of a loopback TCP connection: the client end
// dialled and passed through Enable, and the server end.
func pair(t *testing.T) (client net.Conn, server net.Conn, enableErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	client, enableErr = Enable(c)
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server, enableErr
}

// TestReadStamps checks on loopback that every read's kernel stamp lies
// between the start of the server's write and the end of the read, once
// converted with Offset, and that the connection reads as a net.Conn
// should (EOF at the end).
func TestReadStamps(t *testing.T) {
	start := time.Now()
	client, server, err := pair(t)
	if !Supported() {
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("Enable on an unsupported platform: %v, want ErrUnsupported", err)
		}
		t.Skip("no kernel receive stamps on this platform")
	}
	if err != nil {
		t.Fatal(err)
	}
	src := SourceOf(client)
	if src == nil {
		t.Fatal("SourceOf: nil for an enabled connection")
	}
	off := Offset(start)
	buf := make([]byte, 64)
	for i := 0; i < 20 || src.LastReceive() == 0 && i < 2000; i++ {
		before := time.Since(start)
		if _, err := server.Write([]byte("data: x\n\n")); err != nil {
			t.Fatal(err)
		}
		n, err := client.Read(buf)
		after := time.Since(start)
		if err != nil || n == 0 {
			t.Fatalf("read %d: %d bytes, %v", i, n, err)
		}
		rt := src.LastReceive()
		if rt == 0 {
			// The kernel switches stamping on lazily (see Keeper):
			// the first segments can come unstamped.
			time.Sleep(time.Millisecond)
			continue
		}
		at := time.Duration(rt - off)
		if at < before || at > after {
			t.Fatalf("read %d: kernel stamp %v outside [write %v, read end %v]", i, at, before, after)
		}
	}
	if got := src.LastReceive(); got == 0 {
		t.Fatal("no read carried a kernel stamp")
	}
	server.Close()
	if n, err := client.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("read after the peer closed: %d, %v; want 0, EOF", n, err)
	}
}

// TestReadErrors checks that a read deadline and a closed connection give
// the errors net.Conn gives.
func TestReadErrors(t *testing.T) {
	client, _, err := pair(t)
	if err != nil {
		t.Skip(err)
	}
	buf := make([]byte, 8)
	if err := client.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	_, err = client.Read(buf)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want a timeout", err)
	}
	client.Close()
	if _, err := client.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Close: %v, want net.ErrClosed", err)
	}
}

func TestEnableNotTCP(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	c, err := Enable(a)
	if err == nil || c != a {
		t.Fatalf("Enable(net.Pipe): %v, %v; want the conn back and an error", c, err)
	}
	if SourceOf(c) != nil {
		t.Fatal("SourceOf: a source for a connection without stamps")
	}
}

func TestOffsetSteady(t *testing.T) {
	start := time.Now()
	a, b := Offset(start), Offset(start)
	if d := a - b; d > 50e3 || d < -50e3 {
		t.Fatalf("two offsets %d ns apart; CLOCK_REALTIME − CLOCK_MONOTONIC is constant between steps", d)
	}
	if want := start.UnixNano(); a-want > 1e6 || want-a > 1e6 {
		t.Fatalf("Offset %d, want about the start's wall time %d", a, want)
	}
}

// cmsg builds one control message as the kernel lays it out.
func cmsg(level, typ int32, data []byte) []byte {
	n := cmsgHeaderSize + len(data)
	b := make([]byte, (n+wordSize-1)&^(wordSize-1))
	if wordSize == 8 {
		binary.NativeEndian.PutUint64(b, uint64(n))
	} else {
		binary.NativeEndian.PutUint32(b, uint32(n))
	}
	binary.NativeEndian.PutUint32(b[wordSize:], uint32(level))
	binary.NativeEndian.PutUint32(b[wordSize+4:], uint32(typ))
	copy(b[cmsgHeaderSize:], data)
	return b
}

func timespec(sec, nsec int64) []byte {
	b := make([]byte, 2*wordSize)
	if wordSize == 8 {
		binary.NativeEndian.PutUint64(b, uint64(sec))
		binary.NativeEndian.PutUint64(b[8:], uint64(nsec))
	} else {
		binary.NativeEndian.PutUint32(b, uint32(sec))
		binary.NativeEndian.PutUint32(b[4:], uint32(nsec))
	}
	return b
}

func TestStampOf(t *testing.T) {
	ts := timespec(1_700_000_000, 123_456_789)
	other := cmsg(0, 1, []byte{1, 2, 3}) // IPPROTO_IP, IP_TOS-like: skipped
	for _, tc := range []struct {
		name string
		b    []byte
		want int64
	}{
		{"alone", cmsg(solSocket, scmTimestampNS, ts), 1_700_000_000_123_456_789},
		{"after another", append(other, cmsg(solSocket, scmTimestampNS, ts)...), 1_700_000_000_123_456_789},
		{"empty", nil, 0},
		{"other only", other, 0},
		{"truncated data", cmsg(solSocket, scmTimestampNS, ts)[:cmsgHeaderSize+4], 0},
		{"zero stamp", cmsg(solSocket, scmTimestampNS, timespec(0, 0)), 0},
		{"bad nsec", cmsg(solSocket, scmTimestampNS, timespec(1, 1e9)), 0},
		{"short header", []byte{1, 2, 3}, 0},
	} {
		if got := stampOf(tc.b); got != tc.want {
			t.Errorf("%s: stampOf = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// FuzzStampOf checks that the control-message parser never panics and
// only returns plausible stamps.
func FuzzStampOf(f *testing.F) {
	f.Add(cmsg(solSocket, scmTimestampNS, timespec(1_700_000_000, 5)))
	f.Add(append(cmsg(0, 1, []byte{7}), cmsg(solSocket, scmTimestampNS, timespec(2, 3))...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got := stampOf(b)
		if got < 0 || got > (1<<33+1)*1e9 {
			t.Fatalf("stampOf = %d, not a plausible time", got)
		}
	})
}

func BenchmarkRead(b *testing.B) {
	for _, stamped := range []bool{false, true} {
		name := "plain"
		if stamped {
			name = "stamped"
		}
		b.Run(name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer ln.Close()
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				_, _ = io.Copy(c, c) // echo
			}()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if stamped {
				if c, err = Enable(c); err != nil {
					b.Skip(err)
				}
			}
			msg := []byte("data: {\"choices\":[{\"text\":\" x\"}]}\n\n")
			buf := make([]byte, 4096)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, buf[:len(msg)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadQueued reads 256 bytes per op from a socket that has data
// queued (1 MiB written, then read, outside the timer): the cost of one
// read system call and, stamped, of recvmsg and its control message,
// without the wake-ups of a ping-pong.
func BenchmarkReadQueued(b *testing.B) {
	for _, stamped := range []bool{false, true} {
		name := "plain"
		if stamped {
			name = "stamped"
		}
		b.Run(name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer ln.Close()
			accepted := make(chan net.Conn, 1)
			go func() {
				c, err := ln.Accept()
				if err == nil {
					accepted <- c
				}
			}()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			server := <-accepted
			defer server.Close()
			if stamped {
				if c, err = Enable(c); err != nil {
					b.Skip(err)
				}
			}
			const batch = 1 << 20
			chunk := make([]byte, batch)
			buf := make([]byte, 256)
			left := 0
			b.ReportAllocs()
			for b.Loop() {
				if left == 0 {
					b.StopTimer()
					go func() { _, _ = server.Write(chunk) }()
					time.Sleep(5 * time.Millisecond)
					left = batch
					b.StartTimer()
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					b.Fatal(err)
				}
				left -= len(buf)
			}
		})
	}
}

// TestSendStamps checks on loopback that, after each write, LastSend is
// the kernel's transmit stamp of that write's last byte: between the
// start of the write and the end of the read that answers it, once
// converted with Offset, and never the stamp of an earlier write; and
// that RequestSend, each write being a request's only one, is that stamp.
func TestSendStamps(t *testing.T) {
	if !Supported() {
		t.Skip("no kernel stamps on this platform")
	}
	start := time.Now()
	client, server, err := pair(t)
	if err != nil {
		t.Fatal(err)
	}
	src := SourceOf(client)
	if got := src.LastSend(); got != 0 {
		t.Fatalf("LastSend before any write: %d, want 0", got)
	}
	off := Offset(start)
	buf := make([]byte, 4096)
	prev := time.Duration(0)
	for i := range 50 {
		msg := []byte(fmt.Sprintf("POST /v1/completions %d %s", i, strings.Repeat("x", i*37)))
		src.MarkRequest()
		if got := src.RequestSend(); got != 0 {
			t.Fatalf("write %d: RequestSend after MarkRequest: %d, want 0", i, got)
		}
		before := time.Since(start)
		if _, err := client.Write(msg); err != nil {
			t.Fatal(err)
		}
		afterWrite := time.Since(start)
		if st := src.LastSend(); st != 0 {
			if at := time.Duration(st - off); at < before || at > afterWrite {
				t.Fatalf("write %d: transmit stamp %v outside the write [%v, %v]", i, at, before, afterWrite)
			}
		}
		if _, err := io.ReadFull(server, buf[:len(msg)]); err != nil {
			t.Fatal(err)
		}
		if _, err := server.Write([]byte("ok")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(client, buf[:2]); err != nil {
			t.Fatal(err)
		}
		end := time.Since(start)
		st := src.LastSend()
		if st == 0 {
			t.Fatalf("write %d: no transmit stamp after the answer was read", i)
		}
		at := time.Duration(st - off)
		if at < before || at > end || at <= prev {
			t.Fatalf("write %d: transmit stamp %v outside [write %v, answer read %v] or not after the previous write's %v", i, at, before, end, prev)
		}
		if rq := src.RequestSend(); rq != st {
			t.Fatalf("write %d: RequestSend %d, want the stamp of the request's only write %d", i, rq, st)
		}
		prev = at
	}
}

// TestSendStampLargeBody writes 8 MiB to a peer that reads it only after
// a pause, so that the send buffer fills and transmit stamps arrive while
// the socket is neither readable nor writable (epoll then reports EPOLLERR
// alone), while a Read waits for the answer, as net/http's reader does.
// The Read must get the answer, not an error, and LastSend must be the
// stamp of the body's last byte.
func TestSendStampLargeBody(t *testing.T) {
	if !Supported() {
		t.Skip("no kernel stamps on this platform")
	}
	for round := range 5 {
		start := time.Now()
		client, server, err := pair(t)
		if err != nil {
			t.Fatal(err)
		}
		off := Offset(start)
		const size = 8 << 20
		body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
		answer := awaitOK(client)
		served := make(chan error, 1)
		go func() {
			time.Sleep(20 * time.Millisecond) // let the send buffer fill
			if _, err := io.CopyN(io.Discard, server, size); err != nil {
				served <- err
				return
			}
			_, err := server.Write([]byte("ok"))
			served <- err
		}()
		before := time.Since(start)
		sendBody(t, round, client, body, size, served, answer)
		end := time.Since(start)
		st := SourceOf(client).LastSend()
		if st == 0 {
			t.Fatalf("round %d: no transmit stamp after the answer was read", round)
		}
		if at := time.Duration(st - off); at < before || at > end {
			t.Fatalf("round %d: transmit stamp %v outside [write %v, answer read %v]", round, at, before, end)
		}
	}
}

// TestSendStampSlowPeer writes a request as net/http does (a short first
// write, then an 8 MiB body) to a peer that begins reading after a pause
// and pauses again 2 MiB before the end, with its receive buffer held at
// 256 KiB and the client's send buffer large enough that the write ends
// during the second pause. The body's last byte cannot leave before the
// peer resumes, so LastSend, the stamp of that byte, must come after the
// second pause: the stamp of an earlier send, the latest one when the
// write ended, would not. RequestSend, the stamp of the first write, must
// lie within that write and before the peer's first read returned.
func TestSendStampSlowPeer(t *testing.T) {
	if !Supported() {
		t.Skip("no kernel stamps on this platform")
	}
	for round := range 5 {
		start := time.Now()
		client, server, err := pair(t)
		if err != nil {
			t.Fatal(err)
		}
		if err := server.(*net.TCPConn).SetReadBuffer(256 << 10); err != nil {
			t.Fatal(err)
		}
		if err := client.(*conn).tc.SetWriteBuffer(4 << 20); err != nil {
			t.Fatal(err)
		}
		off := Offset(start)
		const size = 8 << 20
		head := []byte("POST /v1/completions HTTP/1.1\r\nContent-Length: 8388608\r\n\r\n")
		body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
		answer := awaitOK(client)
		var firstRead, resumed time.Duration
		served := make(chan error, 1)
		go func() {
			time.Sleep(20 * time.Millisecond) // let the send buffer fill
			buf := make([]byte, 16<<10)
			n, err := server.Read(buf)
			firstRead = time.Since(start)
			if err != nil {
				served <- err
				return
			}
			total := int64(len(head) + size)
			if _, err := io.CopyN(io.Discard, server, total-int64(n)-2<<20); err != nil {
				served <- err
				return
			}
			time.Sleep(20 * time.Millisecond)
			resumed = time.Since(start)
			if _, err := io.CopyN(io.Discard, server, 2<<20); err != nil {
				served <- err
				return
			}
			_, err = server.Write([]byte("ok"))
			served <- err
		}()
		src := SourceOf(client)
		src.MarkRequest()
		before := time.Since(start)
		if _, err := client.Write(head); err != nil {
			t.Fatal(err)
		}
		afterHead := time.Since(start)
		sendBody(t, round, client, body, size, served, answer)
		end := time.Since(start)
		st := src.LastSend()
		if st == 0 {
			t.Fatalf("round %d: no transmit stamp after the answer was read", round)
		}
		if at := time.Duration(st - off); at < resumed || at > end {
			t.Fatalf("round %d: transmit stamp of the last byte %v outside [the peer resumed reading %v, answer read %v]", round, at, resumed, end)
		}
		rq := src.RequestSend()
		if rq == 0 {
			t.Fatalf("round %d: no transmit stamp of the first write after the answer was read", round)
		}
		if at := time.Duration(rq - off); at < before || at > afterHead || at > firstRead {
			t.Fatalf("round %d: transmit stamp of the first write %v outside [write %v, %v] or after the peer's first read %v", round, at, before, afterHead, firstRead)
		}
	}
}

// TestEnableReceive checks that EnableReceive leaves transmit stamps off.
func TestEnableReceive(t *testing.T) {
	if !Supported() {
		t.Skip("no kernel stamps on this platform")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			_, _ = io.Copy(c, c)
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	rc, err := EnableReceive(c)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	SourceOf(rc).MarkRequest()
	if _, err := rc.Write([]byte("echo")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(rc, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	if got := SourceOf(rc).LastSend(); got != 0 {
		t.Fatalf("LastSend with receive stamps only: %d, want 0", got)
	}
	if got := SourceOf(rc).RequestSend(); got != 0 {
		t.Fatalf("RequestSend with receive stamps only: %d, want 0", got)
	}
}

// sockExtendedErr builds the sock_extended_err of a transmit stamp.
func sockExtendedErr(origin uint8, info, data uint32) []byte {
	b := make([]byte, extErrSize+16)     // and a sockaddr_in, unused
	binary.NativeEndian.PutUint32(b, 42) // ENOMSG
	b[extErrOriginOffset] = origin
	binary.NativeEndian.PutUint32(b[extErrInfoOffset:], info)
	binary.NativeEndian.PutUint32(b[extErrDataOffset:], data)
	return b
}

// scmTimestampingData is a struct scm_timestamping with a software stamp.
func scmTimestampingData(sec, nsec int64) []byte {
	return append(timespec(sec, nsec), make([]byte, 4*wordSize)...)
}

// TestStampOfWithTimestamping checks that a read's stamp is the
// SCM_TIMESTAMPNS one when an SCM_TIMESTAMPING message comes with it (as
// it does with transmit stamps on), in either order.
func TestStampOfWithTimestamping(t *testing.T) {
	ns := cmsg(solSocket, scmTimestampNS, timespec(1_700_000_000, 7))
	ting := cmsg(solSocket, scmTimestamping, scmTimestampingData(1_600_000_000, 9))
	for name, b := range map[string][]byte{"ns first": append(slices.Clone(ns), ting...), "timestamping first": append(slices.Clone(ting), ns...)} {
		if got := stampOf(b); got != 1_700_000_000_000_000_007 {
			t.Errorf("%s: stampOf = %d, want the SCM_TIMESTAMPNS stamp", name, got)
		}
	}
	if got := stampOf(ting); got != 0 {
		t.Errorf("SCM_TIMESTAMPING alone: stampOf = %d, want 0", got)
	}
}

func TestTxStampOf(t *testing.T) {
	ting := cmsg(solSocket, scmTimestamping, scmTimestampingData(1_700_000_000, 123))
	v4 := cmsg(solIP, ipRecvErr, sockExtendedErr(eeOriginTimestamping, scmTstampSnd, 4095))
	v6 := cmsg(solIPv6, ipv6RecvErr, sockExtendedErr(eeOriginTimestamping, scmTstampSnd, 7))
	ns := cmsg(solSocket, scmTimestampNS, timespec(1_600_000_000, 1))
	cat := func(bs ...[]byte) []byte { return slices.Concat(bs...) }
	for _, tc := range []struct {
		name  string
		b     []byte
		key   uint32
		stamp int64
		ok    bool
	}{
		{"ipv4", cat(ting, v4), 4095, 1_700_000_000_000_000_123, true},
		{"ipv6, SCM_TIMESTAMPNS too", cat(ns, ting, v6), 7, 1_700_000_000_000_000_123, true},
		{"error first", cat(v4, ting), 4095, 1_700_000_000_000_000_123, true},
		{"no stamp", v4, 0, 0, false},
		{"no key", ting, 0, 0, false},
		{"zero stamp", cat(cmsg(solSocket, scmTimestamping, scmTimestampingData(0, 0)), v4), 0, 0, false},
		{"ICMP error", cat(ting, cmsg(solIP, ipRecvErr, sockExtendedErr(2, 0, 1))), 0, 0, false},
		{"ack stamp", cat(ting, cmsg(solIP, ipRecvErr, sockExtendedErr(eeOriginTimestamping, 2, 1))), 0, 0, false},
		{"short error", cat(ting, cmsg(solIP, ipRecvErr, []byte{1, 2, 3})), 0, 0, false},
		{"truncated", cat(ting, v4)[:len(ting)+cmsgHeaderSize+4], 0, 0, false},
		{"empty", nil, 0, 0, false},
	} {
		key, stamp, ok := txStampOf(tc.b)
		if key != tc.key || stamp != tc.stamp || ok != tc.ok {
			t.Errorf("%s: txStampOf = %d, %d, %v; want %d, %d, %v", tc.name, key, stamp, ok, tc.key, tc.stamp, tc.ok)
		}
	}
}

// FuzzTxStampOf checks that the error queue's control-message parser
// never panics and only returns plausible stamps.
func FuzzTxStampOf(f *testing.F) {
	ting := cmsg(solSocket, scmTimestamping, scmTimestampingData(1_700_000_000, 5))
	f.Add(slices.Concat(ting, cmsg(solIP, ipRecvErr, sockExtendedErr(eeOriginTimestamping, scmTstampSnd, 9))))
	f.Add(slices.Concat(cmsg(solIPv6, ipv6RecvErr, sockExtendedErr(eeOriginTimestamping, scmTstampSnd, 1)), ting))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, stamp, ok := txStampOf(b)
		if ok && (stamp <= 0 || stamp > (1<<33+1)*1e9) || !ok && stamp != 0 {
			t.Fatalf("txStampOf: stamp %d, ok %v: not a plausible time", stamp, ok)
		}
	})
}

// TestRequestSendSkipsWriterPause: net/http writes a request's headers,
// then its body; a writer descheduled between the two (a starved client)
// left its pause inside TTFT once latencies started at the first write's
// stamp (timing truth, starved client at 16 streams: TTFT error p99 0.99
// ms, against 0.002 when the stamp was the last byte's). RequestSend moves
// by the writer's time between the request's writes: it is within a
// couple of milliseconds of the second write's start, not 30 ms before.
func TestRequestSendSkipsWriterPause(t *testing.T) {
	if !Supported() {
		t.Skip("no kernel stamps on this platform")
	}
	start := time.Now()
	client, server, err := pair(t)
	if err != nil {
		t.Fatal(err)
	}
	src := SourceOf(client)
	off := Offset(start)
	buf := make([]byte, 64)
	for i := range 3 {
		src.MarkRequest()
		if _, err := client.Write([]byte("POST / HTTP/1.1\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond)
		second := time.Since(start)
		if _, err := client.Write([]byte("{}")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(server, buf[:21]); err != nil {
			t.Fatal(err)
		}
		if _, err := server.Write([]byte("ok")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(client, buf[:2]); err != nil {
			t.Fatal(err)
		}
		rq := src.RequestSend()
		if rq == 0 {
			t.Fatalf("request %d: no RequestSend after the answer was read", i)
		}
		if at := time.Duration(rq - off); at < second-2*time.Millisecond || at > second+2*time.Millisecond {
			t.Errorf("request %d: RequestSend %v, want within 2 ms of the second write's start %v (the writer's 30 ms pause is not the server's)", i, at, second)
		}
	}
}

// awaitOK reads the server's "ok" answer on client in a goroutine, as
// net/http's reader waits for a response while the body is written; the
// channel gets the read's error.
func awaitOK(client net.Conn) <-chan error {
	answer := make(chan error, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := io.ReadFull(client, buf[:2])
		if err == nil && string(buf[:n]) != "ok" {
			err = fmt.Errorf("read %q", buf[:n])
		}
		answer <- err
	}()
	return answer
}

// sendBody writes size bytes of body through client's ReadFrom, as
// net/http sends a request body, then waits for the server goroutine's
// result and for awaitOK's.
func sendBody(t *testing.T, round int, client net.Conn, body []byte, size int64, served, answer <-chan error) {
	t.Helper()
	if n, err := client.(io.ReaderFrom).ReadFrom(io.LimitReader(bytes.NewReader(body), size)); err != nil || n != size {
		t.Fatalf("round %d: body written: %d, %v", round, n, err)
	}
	if err := <-served; err != nil {
		t.Fatalf("round %d: server: %v", round, err)
	}
	if err := <-answer; err != nil {
		t.Fatalf("round %d: the read waiting for the answer: %v", round, err)
	}
}
