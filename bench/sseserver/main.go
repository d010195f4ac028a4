// Command sseserver is a minimal OpenAI-compatible streaming server for the
// client-ceiling bench (bench/client-ceiling.sh): every POST to
// /v1/completions or /v1/chat/completions gets the same vLLM-shaped
// completions stream, TTFT after the request arrives and then one token
// every ITL, with a usage chunk and [DONE]. It does no scheduling, no JSON
// encoding and no accounting: every frame is rendered once at start-up, so
// its ceiling (measured with wrk) sits above the loads the bench offers.
// It is a measuring instrument, not part of gollm-bench.
//
// HTTP/1.1 is handled by hand over raw TCP (see server) to keep the
// per-request cost down to the write syscalls a real server also makes.
//
// GET /stats returns the served TTFT p50/p99 since the previous GET /stats
// (the ground truth for the clients' TTFT), and resets it.
//
// Usage: sseserver [--addr 127.0.0.1:18090] [--ttft 20ms] [--itl 5ms] [--tokens 16]
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// frames holds the pre-rendered stream: the token chunks (the last one
// carries finish_reason), then the usage chunk and [DONE] as one write.
type frames struct {
	tokens [][]byte
	tail   []byte
}

func render(n int) frames {
	var f frames
	for i := range n {
		finish := "null"
		if i == n-1 {
			finish = `"length"`
		}
		f.tokens = append(f.tokens, fmt.Appendf(nil,
			`data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"mock-model","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":%s}]}`+"\n\n", finish))
	}
	f.tail = fmt.Appendf(nil, `data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"mock-model","choices":[],"usage":{"prompt_tokens":16,"total_tokens":%d,"completion_tokens":%d}}`+"\n\ndata: [DONE]\n\n", 16+n, n)
	return f
}

func run(args []string, stderr io.Writer) int {
	fs := pflag.NewFlagSet("sseserver", pflag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:18090", "listen address")
	ttft := fs.Duration("ttft", 20*time.Millisecond, "time to first token")
	itl := fs.Duration("itl", 5*time.Millisecond, "time between tokens")
	n := fs.Int("tokens", 16, "output tokens per request")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *n < 1 {
		fmt.Fprintln(stderr, "sseserver: --tokens must be >= 1")
		return 2
	}
	f := render(*n)

	srv := server{f: f, ttft: *ttft, itl: *itl}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "sseserver:", err)
		return 1
	}
	go func() { <-ctx.Done(); _ = ln.Close() }()
	errc := make(chan error, 1)
	go func() { errc <- srv.serve(ctx, ln) }()
	fmt.Fprintf(stderr, "sseserver: listening on http://%s (TTFT %v, ITL %v, %d tokens)\n", ln.Addr(), *ttft, *itl, *n)
	if err := <-errc; err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "sseserver:", err)
		return 1
	}
	return 0
}

// server speaks just enough HTTP/1.1 over raw TCP: keep-alive, a
// Content-Length request body, a chunked event-stream response written with
// one write per token (the same syscall count as a real server flushing
// each token), and no other work per request.
type server struct {
	f         frames
	ttft, itl time.Duration

	// mu guards served: the served TTFT of each request since the last
	// GET /stats, ns (from the end of the request to the return of the
	// first token's write, as the mock's ground truth stamps it).
	mu     sync.Mutex
	served []int64
}

// stats returns the count and the p50/p99 (nearest rank) of the served
// TTFTs since the last call, in ms, and resets them.
func (s *server) stats() string {
	s.mu.Lock()
	xs := s.served
	s.served = nil
	s.mu.Unlock()
	slices.Sort(xs)
	q := func(p float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		i := int(math.Ceil(p*float64(len(xs)))) - 1
		return float64(xs[max(i, 0)]) / 1e6
	}
	return fmt.Sprintf(`{"count":%d,"ttft_p50_ms":%.3f,"ttft_p99_ms":%.3f}`, len(xs), q(0.5), q(0.99))
}

// serve accepts connections until ln is closed; each connection is owned by
// a goroutine that ends when its peer hangs up or ctx ends.
func (s *server) serve(ctx context.Context, ln net.Listener) error {
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				// Out of file descriptors (a client opening thousands of
				// connections): wait for some to close, as net/http does.
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return err
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			defer c.Close()
			stop := context.AfterFunc(ctx, func() { _ = c.Close() })
			defer stop()
			s.conn(c)
		}()
	}
}

var (
	streamHead = []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n")
	modelsBody = `{"object":"list","data":[{"id":"mock-model","object":"model","owned_by":"bench"}]}`
)

// conn serves the requests of one connection, one after another.
func (s *server) conn(c net.Conn) {
	br := bufio.NewReaderSize(c, 4096)
	chunked := make([][]byte, len(s.f.tokens))
	for k, tok := range s.f.tokens {
		if k == len(s.f.tokens)-1 {
			tok = append(tok[:len(tok):len(tok)], s.f.tail...)
		}
		b := fmt.Appendf(nil, "%x\r\n", len(tok))
		b = append(append(b, tok...), "\r\n"...)
		if k == len(s.f.tokens)-1 {
			b = append(b, "0\r\n\r\n"...)
		}
		chunked[k] = b
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		get := bytes.HasPrefix(line, []byte("GET "))
		n := 0
		for {
			h, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(bytes.TrimSpace(h)) == 0 {
				break
			}
			if k, v, ok := bytes.Cut(h, []byte(":")); ok && bytes.EqualFold(bytes.TrimSpace(k), []byte("content-length")) {
				n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
			}
		}
		if _, err := br.Discard(n); err != nil {
			return
		}
		start := time.Now()
		if get {
			body := modelsBody
			if bytes.HasPrefix(line, []byte("GET /stats")) {
				body = s.stats()
			}
			if _, err := fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body); err != nil {
				return
			}
			continue
		}
		if _, err := c.Write(streamHead); err != nil {
			return
		}
		// Token k is due at start + TTFT + k·ITL, on nominal times, so
		// timer lateness does not accumulate.
		for k, b := range chunked {
			if d := time.Until(start.Add(s.ttft + time.Duration(k)*s.itl)); d > 0 {
				timer.Reset(d)
				<-timer.C
			}
			if _, err := c.Write(b); err != nil {
				return
			}
			if k == 0 {
				d := int64(time.Since(start))
				s.mu.Lock()
				s.served = append(s.served, d)
				s.mu.Unlock()
			}
		}
	}
}
