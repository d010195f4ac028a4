package machine

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"time"
)

// RTT is the round trip to the target, estimated as TCP connect times
// (SYN to SYN-ACK, plus the client's own scheduling), in milliseconds.
type RTT struct {
	// Addr is the host:port dialed.
	Addr string `json:"addr"`
	// Method is how it was measured: "tcp_connect".
	Method string `json:"method"`
	// Probes is the number of connects that succeeded; Failed those that did not.
	Probes int `json:"probes"`
	Failed int `json:"failed,omitempty"`
	// P50MS, MinMS and MaxMS are the median, fastest and slowest connect
	// times, ms. Zero when no probe succeeded.
	P50MS float64 `json:"p50_ms"`
	MinMS float64 `json:"min_ms"`
	MaxMS float64 `json:"max_ms"`
	// LastError is the last failed probe's error, if any.
	LastError string `json:"last_error,omitempty"`
}

// Addr returns the host:port a base URL connects to: its port, else 443
// for https and 80 for http.
func Addr(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	if u.Host == "" {
		return "", fmt.Errorf("machine: URL %q has no host", rawURL)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// ProbeRTT opens and closes n TCP connections to addr one after another
// (2 s timeout each) and returns their connect times. The median of a few
// probes is robust to one slow handshake. Probes that fail are counted, not
// fatal; only ctx's cancellation is returned as an error.
func ProbeRTT(ctx context.Context, addr string, n int) (RTT, error) {
	d := &net.Dialer{Timeout: 2 * time.Second}
	return probe(ctx, addr, n, d.DialContext, time.Now)
}

func probe(ctx context.Context, addr string, n int, dial func(ctx context.Context, network, addr string) (net.Conn, error), now func() time.Time) (RTT, error) {
	r := RTT{Addr: addr, Method: "tcp_connect"}
	var ms []float64
	for range n {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		t0 := now()
		c, err := dial(ctx, "tcp", addr)
		dt := now().Sub(t0)
		if err != nil {
			r.Failed++
			r.LastError = err.Error()
			continue
		}
		c.Close()
		ms = append(ms, float64(dt)/float64(time.Millisecond))
	}
	r.Probes = len(ms)
	if len(ms) > 0 {
		slices.Sort(ms)
		r.MinMS, r.MaxMS = ms[0], ms[len(ms)-1]
		if m := len(ms) / 2; len(ms)%2 == 1 {
			r.P50MS = ms[m]
		} else {
			r.P50MS = (ms[m-1] + ms[m]) / 2
		}
	}
	return r, nil
}
