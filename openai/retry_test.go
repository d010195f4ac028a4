package openai

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// staleConnTransport fails the first round trip the way a pooled
// connection that the server has just closed fails (llama.cpp closes a
// keep-alive connection after 100 requests or 5 s idle): GotConn reports a
// reused connection, then the write fails with net.ErrClosed. With
// written, the request is first reported written, as when the server
// closed after receiving it. Later round trips go to next.
type staleConnTransport struct {
	next    http.RoundTripper
	written bool
	calls   int
	err     error // the first attempt's error; nil: a write on a closed connection
}

func (t *staleConnTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.calls++
	if t.calls > 1 {
		return t.next.RoundTrip(req)
	}
	if tr := httptrace.ContextClientTrace(req.Context()); tr != nil {
		if tr.GotConn != nil {
			tr.GotConn(httptrace.GotConnInfo{Reused: true})
		}
		if t.written && tr.WroteRequest != nil {
			tr.WroteRequest(httptrace.WroteRequestInfo{})
		}
	}
	if t.err != nil {
		return nil, t.err
	}
	return nil, &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}
}

// TestPeerResetOnReusedConnRetried: a server that closes idle keep-alive
// connections just after a response (0–400 µs later) races our next
// request on that connection: the request is written into the socket,
// then the write fails with EPIPE or the read with ECONNRESET, before any
// response byte. The server closed the connection without reading it, so
// the request is sent again, once, on a fresh connection, and says so
// (conn_retried), rather than counted as the server's disconnect (issue
// 25, second review: closedUnderWrite required nothing written).
func TestPeerResetOnReusedConnRetried(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\"hi\",\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	for _, err := range []error{
		&net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)},
		&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)},
	} {
		tr := &staleConnTransport{next: http.DefaultTransport, written: true, err: err}
		c, cerr := New(srv.URL, WithModel("m"), WithHTTPClient(&http.Client{Transport: tr}))
		if cerr != nil {
			t.Fatal(cerr)
		}
		clock := loadgen.NewClock(time.Now())
		var rec loadgen.Record
		c.Do(context.Background(), clock, &loadgen.Request{Prompt: "hello", MaxTokens: 1}, &rec)
		if rec.Status != loadgen.StatusOK || !rec.ConnRetried || tr.calls != 2 {
			t.Errorf("%v: status %s (%s: %s), retried %v, %d attempts; want ok after one retry", err, rec.Status, rec.ErrorKind, rec.ErrorMessage, rec.ConnRetried, tr.calls)
		}
	}
}

// TestStaleConnectionRetried: what was seen on llama.cpp: a request on a
// reused connection failed after 1.75 s as "disconnect: write tcp ...:
// use of closed network connection" and was counted among the server's
// failures, though nothing reached the server. Such a request is sent
// again, once, on another connection, and says so; one that was written
// before the connection closed is not.
func TestStaleConnectionRetried(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\"hi\",\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	for _, written := range []bool{false, true} {
		tr := &staleConnTransport{next: http.DefaultTransport, written: written}
		c, err := New(srv.URL, WithModel("m"), WithHTTPClient(&http.Client{Transport: tr}))
		if err != nil {
			t.Fatal(err)
		}
		clock := loadgen.NewClock(time.Now())
		var rec loadgen.Record
		c.Do(context.Background(), clock, &loadgen.Request{Prompt: "hello", MaxTokens: 1}, &rec)
		if written {
			if rec.Status != loadgen.StatusError || rec.ConnRetried || tr.calls != 1 {
				t.Errorf("written before the close: status %s, retried %v, %d attempts; want an error, not retried", rec.Status, rec.ConnRetried, tr.calls)
			}
			continue
		}
		if rec.Status != loadgen.StatusOK || !rec.ConnRetried || tr.calls != 2 {
			t.Errorf("status %s (%s: %s), retried %v, %d attempts; want ok after one retry", rec.Status, rec.ErrorKind, rec.ErrorMessage, rec.ConnRetried, tr.calls)
		}
	}
}
