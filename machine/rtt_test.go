package machine

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

func TestAddr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8000", "127.0.0.1:8000"},
		{"http://vllm.inference.svc", "vllm.inference.svc:80"},
		{"https://api.example.com/v1", "api.example.com:443"},
		{"http://[::1]:9000/v1", "[::1]:9000"},
	}
	for _, tt := range tests {
		if got, err := Addr(tt.in); err != nil || got != tt.want {
			t.Errorf("Addr(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := Addr("127.0.0.1:8000"); err == nil {
		t.Error("a URL without a scheme has no host: want an error")
	}
}

// stepClock advances by the next step on every second call (one probe =
// two readings), so each probe takes exactly its step.
func stepClock(steps ...time.Duration) func() time.Time {
	t, i, calls := time.Unix(0, 0), 0, 0
	return func() time.Time {
		calls++
		if calls%2 == 0 {
			t = t.Add(steps[i])
			i++
		}
		return t
	}
}

func TestProbeMedian(t *testing.T) {
	fails := map[int]bool{2: true}
	n := 0
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		n++
		if fails[n] {
			return nil, errors.New("connection refused")
		}
		c, s := net.Pipe()
		s.Close()
		return c, nil
	}
	ms := time.Millisecond
	r, err := probe(context.Background(), "10.0.0.1:8000", 5, dial, stepClock(3*ms, 100*ms, 1*ms, 2*ms, 9*ms))
	if err != nil {
		t.Fatal(err)
	}
	want := RTT{Addr: "10.0.0.1:8000", Method: "tcp_connect", Probes: 4, Failed: 1, P50MS: 2.5, MinMS: 1, MaxMS: 9, LastError: "connection refused"}
	if r != want {
		t.Errorf("probe = %+v\nwant    %+v", r, want)
	}
}

func TestProbeRTTLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	r, err := ProbeRTT(context.Background(), ln.Addr().String(), 3)
	ln.Close()
	<-done
	if err != nil || r.Probes != 3 || r.Failed != 0 || r.MinMS > r.P50MS || r.P50MS > r.MaxMS {
		t.Errorf("ProbeRTT = %+v, %v", r, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ProbeRTT(ctx, ln.Addr().String(), 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
