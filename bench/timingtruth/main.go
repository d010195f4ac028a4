// Command timingtruth measures gollm-bench's timing error against the
// mock server's ground truth (issue 7, item 1.2; run by
// bench/timing-truth.sh). For each stream count N it drives the mock
// (fixed scheduler, --ttft, --itl) with the real client stack
// (openai.Client driven by loadgen.Generator, closed loop with N concurrent
// streams, --osl tokens each), then matches each record with the server's
// trace of the same prompt and reports, over every request but each
// stream's first, which dials its connection (ms):
//
//   - TTFT error = client TTFT − true TTFT. The true TTFT is the server's
//     flush of the first token − the server kernel's receive stamp of the
//     request's last byte: the mock's connections have kernel receive
//     stamps (rxstamp.EnableReceive), so the truth owes nothing to the
//     client's stamps. The client's TTFT starts at wire_at (the client
//     kernel's transmit stamp of the request's first write, which for the
//     short prompts sent here is the whole request, so that byte too) on
//     the kernel clock, at sent_at on the user clock; the error is the
//     first chunk's delay plus the request's transit, and on the user
//     clock the send overhead too.
//   - ITL error = |client ITL − server ITL|, ITL = (E2E − TTFT)/(OSL − 1) on
//     both sides (docs/metrics.md#itl-and-tpot, AIPerf's definition).
//   - chunk delay = client arrival stamp − server flush stamp, every token
//     chunk: the receive side's error.
//   - send overhead = wrote_at − sent_at: the client's time to put the
//     request on the wire (encode, connection, write, wait for a CPU).
//   - request transit = server kernel receive stamp of the request's last
//     byte − client wire_at (kernel clock only): for a request of one
//     write, the two kernels' stamps of one byte, which agree to
//     microseconds on loopback.
//
// With the kernel receive clock (openai.ReceiveAuto on Linux), each record
// carries both clocks: the kernel's receive time of each chunk (ChunkTimes)
// and the user-space time the client had parsed it (ChunkUserTimes). The
// table gives the errors of each clock from the same run, one row each, and
// the receive queueing (user − kernel stamp, every token chunk): the
// client's own delay, which only the user clock counts.
//
// Each N runs --reps times; the table shows the median over runs of each
// run's p50 and p99 (nearest rank). The goal (--goal-ms) is judged on
// the p99 of the TTFT and ITL errors' absolute values, so that a large
// negative error cannot pass it.
//
// --tls serves the mock over TLS (a self-signed certificate; the client
// does not verify it): the kernel stamps then time the TLS records the
// client decrypts.
//
// The mock runs in the same process (default) or, in split mode, in
// another one (--serve on one side, --server on the other, each pinned to
// its own CPU by the script); the two compare CLOCK_MONOTONIC stamps,
// which every process on the machine shares.
//
// Usage: timingtruth [--streams 16,64,256] [--per-stream 40] [--reps 3]
//
//	[--ttft 20ms] [--itl 5ms] [--osl 16] [--server URL | --serve ADDR]
//	[--tls] [--receive-clock auto|kernel|user]
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/internal/rxstamp"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// tagged is a Workload whose prompt starts with a unique tag per Seq, so a
// record can be matched with the server's trace by prompt.
type tagged struct {
	nonce string
	osl   int // max_tokens, tokens
}

func (w tagged) Request(seq int64) (loadgen.Request, error) {
	return loadgen.Request{
		Prompt:    fmt.Sprintf("%s-%d %s", w.nonce, seq, strings.Repeat("w ", 15)),
		MaxTokens: w.osl,
	}, nil
}

// memSink keeps every record.
type memSink struct{ recs []*loadgen.Record }

func (s *memSink) Write(r *loadgen.Record) error { s.recs = append(s.recs, r); return nil }

// clockErrs holds one clock's errors of one run, ms (see the package
// comment).
type clockErrs struct{ ttft, itl, chunk []float64 }

// errs holds the per-request errors of one run, ms.
type errs struct {
	clocks    [2]clockErrs // kernel (empty with the user clock), user
	queue     []float64    // receive queueing, user − kernel stamp, every token chunk
	send      []float64    // send overhead, wrote_at − sent_at
	transit   []float64    // request transit, server kernel receive − client wire_at
	userClock int          // records that fell back to the user clock
	note      string       // why, the first one
	noWire    int          // kernel-clock records without wire_at (their TTFT starts at sent_at)
	wireNote  string       // why, the first one
}

// The clocks of errs.clocks.
const (
	kernelClock = 0
	userClock   = 1
)

// trace is the server's ground truth for one request: its TTFT and ITL as
// the server saw them, the kernel's receive time of the request's last
// byte (RequestNS, 0 when the kernel did not stamp it) and each token
// chunk's flush time, in CLOCK_MONOTONIC ns (see monoClock), comparable
// across processes.
type trace struct {
	Prompt    string        `json:"prompt"`
	TTFT      time.Duration `json:"ttft_ns"`
	ITL       time.Duration `json:"itl_ns"`
	ArrivalNS int64         `json:"arrival_ns"`
	RequestNS int64         `json:"request_rx_ns"`
	ChunkNS   []int64       `json:"chunk_ns"`
}

func traceOf(mc monoClock, rx *rxTruth, tr mockserver.RequestTrace) trace {
	t := trace{Prompt: tr.Prompt, TTFT: tr.TTFT(), ITL: tr.ITL(), ArrivalNS: mc.ns(tr.Arrival), RequestNS: rx.of(tr.Prompt)}
	for _, at := range tr.ChunkTimes {
		t.ChunkNS = append(t.ChunkNS, mc.ns(at))
	}
	return t
}

// rxTruth keeps, for each request, the server kernel's receive time of
// its last byte, CLOCK_MONOTONIC ns, by the request's tag (its prompt's
// first word).
type rxTruth struct {
	mc monoClock
	mu sync.Mutex
	at map[string]int64
}

func newRxTruth(mc monoClock) *rxTruth { return &rxTruth{mc: mc, at: map[string]int64{}} }

// of returns the receive time of the request whose prompt is prompt; 0
// when none was stamped.
func (x *rxTruth) of(prompt string) int64 {
	tag, _, _ := strings.Cut(prompt, " ")
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.at[tag]
}

// connKey is the context key of the server's connection (connContext).
type connKey struct{}

func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// stampListener turns on kernel receive stamps on each connection it
// accepts; one the kernel cannot stamp is served without.
type stampListener struct{ net.Listener }

func (l stampListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	sc, _ := rxstamp.EnableReceive(c)
	return sc, nil
}

// promptField opens the prompt of a completions request body.
var promptField = []byte(`"prompt":"`)

// wrap reads each request's body before h does, so that the connection's
// latest read is the one that delivered the body's last byte, and keeps
// its kernel receive stamp by the prompt's tag.
func (x *rxTruth) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey{}).(net.Conn)
		src := rxstamp.SourceOf(c)
		if src == nil || r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		stamp := src.LastReceive()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if i := bytes.Index(body, promptField); i >= 0 && stamp != 0 {
			rest := body[i+len(promptField):]
			if end := bytes.IndexAny(rest, ` "`); end > 0 {
				ns := x.mc.fromRealtime(stamp)
				x.mu.Lock()
				x.at[string(rest[:end])] = ns
				x.mu.Unlock()
			}
		}
		h.ServeHTTP(w, r)
	})
}

// startMock serves the mock on ln, its connections stamped by the kernel
// on receipt, over TLS with a self-signed certificate when useTLS is set;
// extra, if not nil, serves the paths the mock does not.
func startMock(srv *mockserver.Server, rx *rxTruth, ln net.Listener, useTLS bool, extra func(*http.ServeMux)) *httptest.Server {
	mux := http.NewServeMux()
	if extra != nil {
		extra(mux)
	}
	mux.Handle("/", rx.wrap(srv.Handler()))
	hs := httptest.NewUnstartedServer(mux)
	hs.Listener.Close()
	hs.Listener = stampListener{ln}
	hs.Config.ConnContext = connContext
	if useTLS {
		hs.StartTLS()
	} else {
		hs.Start()
	}
	return hs
}

// serverTiming is the mock's fixed TTFT and ITL.
type serverTiming struct{ ttft, itl time.Duration }

// newMock returns the mock of every run: the fixed scheduler at t, with its
// ground truth kept.
func newMock(t serverTiming) (*mockserver.Server, error) {
	return mockserver.New(mockserver.Config{
		Scheduler: mockserver.SchedulerFixed, TTFT: t.ttft, ITL: t.itl,
	}, mockserver.WithGroundTruth())
}

// truthHandler serves the mock's ground truth as JSON traces whose prompt
// starts with the query's prefix (GET /truth?prefix=P), for a client in
// another process.
func truthHandler(srv *mockserver.Server, mc monoClock, rx *rxTruth) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prefix := r.URL.Query().Get("prefix")
		var out []trace
		for _, tr := range srv.GroundTruth() {
			if strings.HasPrefix(tr.Prompt, prefix) {
				out = append(out, traceOf(mc, rx, tr))
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
}

// serve runs the mock and its /truth endpoint on addr until ctx is done
// (split mode's server side), over TLS with a self-signed certificate when
// useTLS is set.
func serve(ctx context.Context, addr string, t serverTiming, useTLS bool, stderr io.Writer) error {
	mc, err := newMonoClock()
	if err != nil {
		return err
	}
	srv, err := newMock(t)
	if err != nil {
		return err
	}
	defer srv.Close()
	if k, err := rxstamp.Keep(); err == nil {
		defer k.Close()
	}
	rx := newRxTruth(mc)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "timingtruth: serving the mock and /truth on", ln.Addr(), "tls:", useTLS)
	hs := startMock(srv, rx, ln, useTLS, func(mux *http.ServeMux) { mux.Handle("/truth", truthHandler(srv, mc, rx)) })
	<-ctx.Done()
	hs.Close()
	return nil
}

// truthFrom fetches the traces of one run from a split-mode server.
func truthFrom(ctx context.Context, base, prefix string) ([]trace, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/truth?prefix="+url.QueryEscape(prefix), nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}).Do(req) //nolint:gosec // the bench's own self-signed mock
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s/truth: %s", base, resp.Status)
	}
	var out []trace
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

// measure runs streams closed-loop streams for requests requests against
// server (split mode) or an in-process mock (server empty), and returns the
// errors against the ground truth.
func measure(ctx context.Context, server string, t serverTiming, osl, streams, requests int, nonce string, rx openai.ReceiveClockMode, useTLS bool) (errs, error) {
	var out errs
	mc, err := newMonoClock()
	if err != nil {
		return out, err
	}
	base := server
	var srv *mockserver.Server
	rxt := newRxTruth(mc)
	if server == "" {
		if srv, err = newMock(t); err != nil {
			return out, err
		}
		defer srv.Close()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return out, err
		}
		hs := startMock(srv, rxt, ln, useTLS, nil)
		defer hs.Close()
		base = hs.URL
	}

	client, err := openai.New(base, openai.WithModel(mockserver.DefaultModel),
		openai.WithMaxConcurrency(streams), openai.WithReceiveClock(rx),
		openai.WithTLSConfig(&tls.Config{InsecureSkipVerify: true})) //nolint:gosec // the bench's own self-signed mock
	if err != nil {
		return out, err
	}
	clock := loadgen.NewClock(time.Now())
	w := tagged{nonce: nonce, osl: osl}
	gen := loadgen.New(client, w, loadgen.WithClock(clock))
	var sink memSink
	res, err := gen.Run(ctx, 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: streams},
		loadgen.Limits{MaxRequests: int64(requests)}, &sink)
	if err != nil {
		return out, err
	}
	if res.OK != int64(requests) {
		return out, fmt.Errorf("%d streams: %d of %d requests ok", streams, res.OK, requests)
	}
	var traces []trace
	if srv != nil {
		for _, tr := range srv.GroundTruth() {
			traces = append(traces, traceOf(mc, rxt, tr))
		}
	} else if traces, err = truthFrom(ctx, server, nonce+"-"); err != nil {
		return out, err
	}
	truth := map[string]trace{}
	for _, tr := range traces {
		truth[tr.Prompt] = tr
	}
	for _, rec := range sink.recs {
		if rec.Seq < int64(streams) {
			continue // warmup: each stream's first request dials its connection
		}
		req, _ := w.Request(rec.Seq)
		tr, ok := truth[req.Prompt]
		if !ok {
			return out, fmt.Errorf("seq %d: no ground truth for its prompt", rec.Seq)
		}
		if len(rec.ChunkTimes) != len(tr.ChunkNS) || rec.OutputTokens != w.osl {
			return out, fmt.Errorf("seq %d: %d chunks, %d tokens; the server sent %d chunks", rec.Seq, len(rec.ChunkTimes), rec.OutputTokens, len(tr.ChunkNS))
		}
		if rec.WroteAt == 0 {
			return out, fmt.Errorf("seq %d: no wrote_at stamp", rec.Seq)
		}
		if tr.RequestNS == 0 {
			return out, fmt.Errorf("seq %d: the server's kernel did not stamp the request's receipt", rec.Seq)
		}
		out.send = append(out.send, ms(rec.WroteAt-rec.SentAt))
		stamps := [2][]time.Duration{nil, rec.ChunkTimes}
		if rec.ReceiveClock == loadgen.ReceiveClockKernel {
			stamps = [2][]time.Duration{rec.ChunkTimes, rec.ChunkUserTimes}
			for k, u := range rec.ChunkUserTimes {
				out.queue = append(out.queue, ms(u-rec.ChunkTimes[k]))
			}
			if rec.WireAt != 0 {
				out.transit = append(out.transit, ms(time.Duration(tr.RequestNS-mc.ns(clock.Start().Add(rec.WireAt)))))
			} else if out.noWire++; out.wireNote == "" {
				out.wireNote = rec.ReceiveClockNote
			}
		} else {
			out.userClock++
			if out.note == "" {
				out.note = rec.ReceiveClockNote
			}
		}
		if os.Getenv("TT_DEBUG") != "" && rec.ReceiveClock == loadgen.ReceiveClockKernel {
			for k, a := range rec.ChunkTimes {
				d := ms(time.Duration(mc.ns(clock.Start().Add(a)) - tr.ChunkNS[k]))
				if d > 1 {
					fmt.Fprintf(os.Stderr, "DBG seq %d chunk %d/%d kernel-flush %.3f user-flush %.3f next-flush-gap %.3f\n", rec.Seq, k, len(rec.ChunkTimes), d,
						ms(time.Duration(mc.ns(clock.Start().Add(rec.ChunkUserTimes[k]))-tr.ChunkNS[k])), func() float64 {
							if k+1 < len(tr.ChunkNS) {
								return ms(time.Duration(tr.ChunkNS[k+1] - tr.ChunkNS[k]))
							}
							return -1
						}())
				}
			}
		}
		for c, at := range stamps {
			if len(at) == 0 {
				continue
			}
			e := &out.clocks[c]
			for k, a := range at {
				e.chunk = append(e.chunk, ms(time.Duration(mc.ns(clock.Start().Add(a))-tr.ChunkNS[k])))
			}
			// The true TTFT starts when the server's kernel received the
			// request's last byte; the client's at wire_at on the kernel
			// clock (LatencyStart), at sent_at on the user clock.
			start := rec.SentAt
			if c == kernelClock {
				start = rec.LatencyStart()
			}
			e.ttft = append(e.ttft, ms(at[0]-start-time.Duration(tr.ChunkNS[0]-tr.RequestNS)))
			itl := (at[len(at)-1] - at[0]) / time.Duration(rec.OutputTokens-1)
			e.itl = append(e.itl, math.Abs(ms(itl-tr.ITL)))
		}
	}
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// absolute returns the absolute values of xs, in a new slice.
func absolute(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Abs(x)
	}
	return out
}

// quantile returns the nearest-rank q-quantile of xs (sorted in place).
func quantile(xs []float64, q float64) float64 {
	slices.Sort(xs)
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[max(i, 0)]
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("timingtruth", pflag.ContinueOnError)
	streams := fs.IntSlice("streams", []int{16, 64, 256}, "concurrent streams, a list")
	perStream := fs.Int("per-stream", 40, "requests per stream per run")
	reps := fs.Int("reps", 3, "runs per stream count")
	goal := fs.Float64("goal-ms", 0.1, "p99 |error| goal at the largest stream count (TTFT and ITL), ms")
	serveAddr := fs.String("serve", "", "split mode, server side: serve the mock and its ground truth on this loopback address (e.g. 127.0.0.1:18395) until killed")
	server := fs.String("server", "", "split mode, client side: measure against a --serve process at this base URL (e.g. http://127.0.0.1:18395) instead of an in-process mock")
	ttft := fs.Duration("ttft", 20*time.Millisecond, "the mock's fixed TTFT (in-process mock, or the --serve side)")
	itl := fs.Duration("itl", 5*time.Millisecond, "the mock's fixed ITL (in-process mock, or the --serve side)")
	osl := fs.Int("osl", 16, "output tokens per request (max_tokens), at least 2")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	useTLS := fs.Bool("tls", false, "the --serve side (or the in-process mock) serves TLS with a self-signed certificate; the client uses https and does not verify it")
	rxFlag := fs.String("receive-clock", "auto", "the client's --receive-clock: auto, kernel or user")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rx, err := openai.ParseReceiveClock(*rxFlag)
	if err != nil {
		fmt.Fprintln(stderr, "timingtruth:", err)
		return 2
	}
	if *osl < 2 {
		fmt.Fprintf(stderr, "timingtruth: --osl %d: ITL needs at least 2 output tokens\n", *osl)
		return 2
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(stderr, "timingtruth: --cpuprofile:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if *serveAddr != "" {
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := serve(ctx, *serveAddr, serverTiming{*ttft, *itl}, *useTLS, stderr); err != nil {
			fmt.Fprintln(stderr, "timingtruth:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintln(stdout, "| streams | requests/run | clock | TTFT error p50 (ms) | TTFT error p99 (ms) | ITL error p50 (ms) | ITL error p99 (ms) | chunk delay p50 (ms) | chunk delay p99 (ms) | receive queueing p50 (ms) | receive queueing p99 (ms) | send overhead p50 (ms) | send overhead p99 (ms) | request transit p50 (ms) | request transit p99 (ms) |")
	fmt.Fprintln(stdout, "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	// last[c] holds the TTFT and ITL |error| p99 of clock c at the
	// largest stream count (the goal is judged on the error's size, so
	// that a large negative error cannot pass); NaN when the clock had no
	// sample.
	var last [2][2]float64
	var notes []string
	for _, n := range *streams {
		// q[c][k] holds, for clock c and figure k (TTFT, ITL, chunk
		// delay, receive queueing, send overhead, request transit),
		// each run's p50 and p99.
		var q [2][6][2][]float64
		// abs[c][k] holds, for clock c and figure k (TTFT, ITL), each
		// run's p99 of the |error|.
		var abs [2][2][]float64
		for r := range *reps {
			e, err := measure(ctx, *server, serverTiming{*ttft, *itl}, *osl, n, n**perStream, fmt.Sprintf("truth%d-%d", n, r), rx, *useTLS)
			if err != nil {
				fmt.Fprintln(stderr, "timingtruth:", err)
				return 1
			}
			if e.userClock > 0 {
				notes = append(notes, fmt.Sprintf("%d streams, run %d: %d requests on the user clock (%s)", n, r+1, e.userClock, e.note))
			}
			if e.noWire > 0 {
				notes = append(notes, fmt.Sprintf("%d streams, run %d: %d kernel-clock requests without wire_at, their TTFT from sent_at (%s)", n, r+1, e.noWire, e.wireNote))
			}
			for c := range e.clocks {
				ce := e.clocks[c]
				if len(ce.ttft) == 0 {
					continue
				}
				queue, transit := e.queue, e.transit
				if c == userClock {
					queue, transit = nil, nil
				}
				for k, xs := range [][]float64{ce.ttft, ce.itl, ce.chunk, queue, e.send, transit} {
					if len(xs) == 0 {
						continue
					}
					q[c][k][0] = append(q[c][k][0], quantile(xs, 0.5))
					q[c][k][1] = append(q[c][k][1], quantile(xs, 0.99))
					if k < len(abs[c]) {
						abs[c][k] = append(abs[c][k], quantile(absolute(xs), 0.99))
					}
				}
			}
		}
		for c, name := range []string{"kernel", "user"} {
			last[c] = [2]float64{math.NaN(), math.NaN()}
			if len(q[c][0][0]) == 0 {
				continue
			}
			fmt.Fprintf(stdout, "| %d | %d | %s |", n, n**perStream, name)
			for k := range q[c] {
				if len(q[c][k][0]) == 0 {
					fmt.Fprint(stdout, " - | - |")
					continue
				}
				fmt.Fprintf(stdout, " %.3f | %.3f |", median(q[c][k][0]), median(q[c][k][1]))
			}
			fmt.Fprintln(stdout)
			last[c] = [2]float64{median(abs[c][0]), median(abs[c][1])}
		}
	}
	top := (*streams)[len(*streams)-1]
	fmt.Fprintln(stdout)
	for c, name := range []string{"kernel", "user"} {
		for k, figure := range []string{"TTFT", "ITL"} {
			p99 := last[c][k]
			if math.IsNaN(p99) {
				continue
			}
			v := "met"
			if p99 > *goal {
				v = "not met"
			}
			fmt.Fprintf(stdout, "- Goal: %s |error| p99 ≤ %.1f ms at %d streams, %s clock: **%s** (%.3f ms, %.2fx the goal).\n", figure, *goal, top, name, v, p99, p99 / *goal)
		}
	}
	for _, n := range notes {
		fmt.Fprintln(stdout, "- "+n)
	}
	return 0
}
