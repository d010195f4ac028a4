package rxstamp

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
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
