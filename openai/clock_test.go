package openai

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/rxstamp"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
)

// bodyTimes is a handler in front of the mock that reads each request's
// body before the mock does and keeps, by the prompt's first word, when it
// had read it (time.Now): no byte of the request can have left the client
// later.
type bodyTimes struct {
	h  http.Handler
	mu sync.Mutex
	at map[string]time.Time
}

func (b *bodyTimes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	now := time.Now()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		Prompt string `json:"prompt"`
	}
	if json.Unmarshal(body, &req) == nil && req.Prompt != "" {
		b.mu.Lock()
		b.at[strings.Fields(req.Prompt)[0]] = now
		b.mu.Unlock()
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	b.h.ServeHTTP(w, r)
}

// of returns when the body of the request whose prompt starts with tag was
// read (zero if it was not seen).
func (b *bodyTimes) of(tag string) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.at[tag]
}

// clockRun sends streams × perStream requests, streams at a time, to a
// mock with ground truth served by srv (plain or TLS), and returns each
// record with its server trace; bodies tells when the server had read
// each request's body.
func clockRun(t *testing.T, tlsServer bool, streams, perStream int, opts ...Option) ([]*loadgen.Record, map[string]mockserver.RequestTrace, loadgen.Clock, *bodyTimes) {
	t.Helper()
	mock, err := mockserver.New(mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: 2 * time.Millisecond, ITL: time.Millisecond},
		mockserver.WithGroundTruth())
	if err != nil {
		t.Fatal(err)
	}
	bodies := &bodyTimes{h: mock.Handler(), at: map[string]time.Time{}}
	var srv *httptest.Server
	if tlsServer {
		srv = httptest.NewTLSServer(bodies)
		pool := x509.NewCertPool()
		pool.AddCert(srv.Certificate())
		opts = append(opts, WithTLSConfig(&tls.Config{RootCAs: pool}))
	} else {
		srv = httptest.NewServer(bodies)
	}
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, append([]Option{WithModel(mockserver.DefaultModel)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	clock := loadgen.NewClock(time.Now())
	// Linux switches receive stamping on from a work queue when the first
	// socket asks (see rxstamp.Keeper): until then, segments come
	// unstamped. Warm up until a request is stamped.
	for i := 0; rxstamp.Supported() && i < 200; i++ {
		rec := &loadgen.Record{SentAt: clock.Now()}
		c.Do(context.Background(), clock, &loadgen.Request{Prompt: "warmup", MaxTokens: 2}, rec)
		if rec.ReceiveClock == loadgen.ReceiveClockKernel || rec.ReceiveClockNote != "a read without a kernel receive stamp" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	recs := doStreams(c, clock, streams, perStream, 8, func(s, i int) string { return fmt.Sprintf("clock-%d-%d hello world", s, i) })
	truth := map[string]mockserver.RequestTrace{}
	for _, tr := range mock.GroundTruth() {
		if tr.Prompt == "warmup" {
			continue
		}
		truth[strings.Fields(tr.Prompt)[0]] = tr
	}
	return recs, truth, clock, bodies
}

// TestKernelClockOrdering is the loopback acceptance test of the kernel
// receive clock: each token chunk's kernel stamp is never later than the
// client's user-space stamp of it (and, for one chunk of each record at
// least, 1 µs or more earlier) and never earlier than the start of the
// server's write that carried it; so is the first token's, which makes
// the kernel-stamped TTFT never longer than the user-space one and never
// shorter than the server's. It is an ordering check, not a timing one.
func TestKernelClockOrdering(t *testing.T) {
	if !rxstamp.Supported() {
		t.Skip("no kernel receive stamps on this platform")
	}
	for _, tlsServer := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "tls"}[tlsServer], func(t *testing.T) {
			recs, truth, clock, bodies := clockRun(t, tlsServer, 8, 6)
			for _, rec := range recs {
				if rec.Status != loadgen.StatusOK {
					t.Fatalf("seq %d: %s %s", rec.Seq, rec.Status, rec.ErrorMessage)
				}
				if rec.ReceiveClock != loadgen.ReceiveClockKernel {
					t.Fatalf("seq %d: receive clock %q (%s), want kernel", rec.Seq, rec.ReceiveClock, rec.ReceiveClockNote)
				}
				tag := fmt.Sprintf("clock-%d-%d", rec.Seq/6, rec.Seq%6)
				tr, ok := truth[tag]
				if !ok {
					t.Fatalf("seq %d: no trace", rec.Seq)
				}
				if len(rec.ChunkTimes) != len(tr.ChunkWriteStarts) || len(rec.ChunkUserTimes) != len(rec.ChunkTimes) {
					t.Fatalf("seq %d: %d chunks, %d user stamps; the server wrote %d", rec.Seq, len(rec.ChunkTimes), len(rec.ChunkUserTimes), len(tr.ChunkWriteStarts))
				}
				at := func(d time.Duration) time.Time { return clock.Start().Add(d) }
				// The kernel stamps a chunk when it arrives, the client
				// after its read returns: a record whose stamps all equal
				// the user-space ones was not stamped by the kernel.
				earlier := false
				for i, k := range rec.ChunkTimes {
					if rec.ChunkUserTimes[i]-k >= time.Microsecond {
						earlier = true
					}
					if w := tr.ChunkWriteStarts[i]; at(k).Before(w) {
						t.Errorf("seq %d chunk %d: kernel stamp %v before the server's write began (%v earlier)", rec.Seq, i, k, w.Sub(at(k)))
					}
					if u := rec.ChunkUserTimes[i]; k > u {
						t.Errorf("seq %d chunk %d: kernel stamp %v after the user-space stamp %v", rec.Seq, i, k, u)
					}
				}
				if !earlier {
					t.Errorf("seq %d: no chunk's kernel stamp is 1 µs or more before its user-space stamp (%v, %v): not the kernel's", rec.Seq, rec.ChunkTimes, rec.ChunkUserTimes)
				}
				if rec.FirstTokenAt != rec.ChunkTimes[0] || rec.LastTokenAt != rec.ChunkTimes[len(rec.ChunkTimes)-1] {
					t.Errorf("seq %d: first/last token %v/%v, chunks from %v to %v", rec.Seq, rec.FirstTokenAt, rec.LastTokenAt, rec.ChunkTimes[0], rec.ChunkTimes[len(rec.ChunkTimes)-1])
				}
				ttft, _ := rec.TTFT()
				if user := rec.ChunkUserTimes[0] - rec.SentAt; ttft > user {
					t.Errorf("seq %d: kernel TTFT %v longer than the user-space TTFT %v", rec.Seq, ttft, user)
				}
				if rec.HeadersAt == 0 || rec.HeadersAt > rec.FirstTokenAt || rec.HeadersAt < rec.SentAt {
					t.Errorf("seq %d: headers_at %v outside [sent_at %v, first token %v]", rec.Seq, rec.HeadersAt, rec.SentAt, rec.FirstTokenAt)
				}
				checkWire(t, rec, tr, clock, bodies.of(tag))
			}
		})
	}
}

// checkWire checks a kernel-clock record's transmit stamp against the
// server's trace: the request went on the wire after it was sent
// (sent_at ≤ wire_at) and before the server had read its body (bodyRead);
// TTFT starts at wire_at, so it is never longer than the user-space TTFT
// from sent_at, and never shorter than the server's write of the first
// token minus the transmit moment.
func checkWire(t *testing.T, rec *loadgen.Record, tr mockserver.RequestTrace, clock loadgen.Clock, bodyRead time.Time) {
	t.Helper()
	at := func(d time.Duration) time.Time { return clock.Start().Add(d) }
	if rec.WireAt == 0 || rec.ReceiveClockNote != "" {
		t.Errorf("seq %d: wire_at %v, note %q; want a transmit stamp", rec.Seq, rec.WireAt, rec.ReceiveClockNote)
		return
	}
	if rec.WireAt < rec.SentAt || rec.WireAt > rec.HeadersAt {
		t.Errorf("seq %d: wire_at %v outside [sent_at %v, headers_at %v]", rec.Seq, rec.WireAt, rec.SentAt, rec.HeadersAt)
	}
	if bodyRead.IsZero() {
		t.Errorf("seq %d: the server did not read the body", rec.Seq)
	} else if at(rec.WireAt).After(bodyRead) {
		t.Errorf("seq %d: wire_at %v after the server had read the body (%v later)", rec.Seq, rec.WireAt, at(rec.WireAt).Sub(bodyRead))
	}
	if rec.LatencyStart() != rec.WireAt {
		t.Errorf("seq %d: latencies start at %v, want wire_at %v", rec.Seq, rec.LatencyStart(), rec.WireAt)
	}
	ttft, _ := rec.TTFT()
	if ttft != rec.FirstTokenAt-rec.WireAt {
		t.Errorf("seq %d: TTFT %v, want first_token_at − wire_at %v", rec.Seq, ttft, rec.FirstTokenAt-rec.WireAt)
	}
	if user := rec.ChunkUserTimes[0] - rec.SentAt; ttft > user {
		t.Errorf("seq %d: kernel TTFT %v longer than the user-space TTFT %v", rec.Seq, ttft, user)
	}
	if server := tr.ChunkWriteStarts[0].Sub(at(rec.WireAt)); ttft < server {
		t.Errorf("seq %d: kernel TTFT %v shorter than the server's first write − wire_at, %v", rec.Seq, ttft, server)
	}
}

// TestKernelClockLargeBody sends 2 MiB prompts, four streams at once,
// with the kernel clock: a request of several writes, whose later
// transmit stamps come after its first write's, must get a usable
// wire_at (the stamp of its first write: after sent_at, before the
// server had read the body, and TTFT from it, checkWire). The mock reads
// the bodies promptly, so the send buffer never stays full and Go's
// poller never sees an EPOLLERR-only event here: rxstamp's
// TestSendStampLargeBody covers that path.
func TestKernelClockLargeBody(t *testing.T) {
	if !rxstamp.Supported() {
		t.Skip("no kernel stamps on this platform")
	}
	mock, err := mockserver.New(mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: time.Millisecond, ITL: time.Millisecond},
		mockserver.WithGroundTruth())
	if err != nil {
		t.Fatal(err)
	}
	bodies := &bodyTimes{h: mock.Handler(), at: map[string]time.Time{}}
	srv := httptest.NewServer(bodies)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, WithModel(mockserver.DefaultModel), WithReceiveClock(ReceiveKernel))
	if err != nil {
		t.Fatal(err)
	}
	clock := loadgen.NewClock(time.Now())
	big := strings.Repeat("lorem ipsum ", (2<<20)/12)
	recs := doStreams(c, clock, 4, 4, 4, func(s, i int) string { return fmt.Sprintf("big-%d-%d %s", s, i, big) })
	truth := map[string]mockserver.RequestTrace{}
	for _, tr := range mock.GroundTruth() {
		truth[strings.Fields(tr.Prompt)[0]] = tr
	}
	kernel := 0
	defer func() {
		if kernel == 0 {
			t.Error("no record on the kernel clock")
		}
	}()
	for _, rec := range recs {
		if rec.Status != loadgen.StatusOK {
			t.Fatalf("seq %d: %s %s", rec.Seq, rec.Status, rec.ErrorMessage)
		}
		if rec.ReceiveClock != loadgen.ReceiveClockKernel {
			// The first segments of a process can come unstamped
			// (rxstamp.Keeper): not this test's subject.
			continue
		}
		kernel++
		tag := fmt.Sprintf("big-%d-%d", rec.Seq/4, rec.Seq%4)
		checkWire(t, rec, truth[tag], clock, bodies.of(tag))
	}
}

// TestReceiveClockUser checks --receive-clock user and the notes of a
// user-clock record: no transmit stamp, latencies from sent_at.
func TestReceiveClockUser(t *testing.T) {
	recs, _, _, _ := clockRun(t, false, 1, 2, WithReceiveClock(ReceiveUser))
	for _, rec := range recs {
		if rec.ReceiveClock != loadgen.ReceiveClockUser || rec.ReceiveClockNote == "" || rec.ChunkUserTimes != nil {
			t.Fatalf("seq %d: clock %q, note %q, %d user stamps; want user, a note, none", rec.Seq, rec.ReceiveClock, rec.ReceiveClockNote, len(rec.ChunkUserTimes))
		}
		if ttft, _ := rec.TTFT(); rec.WireAt != 0 || rec.LatencyStart() != rec.SentAt || ttft != rec.FirstTokenAt-rec.SentAt {
			t.Fatalf("seq %d: wire_at %v, TTFT %v; want none, and TTFT from sent_at", rec.Seq, rec.WireAt, ttft)
		}
	}
}

// TestSettleWire checks the transmit stamps a record does not use.
func TestSettleWire(t *testing.T) {
	const off = 1_000_000
	for _, tc := range []struct {
		name string
		wire int64
		want time.Duration
		note string
	}{
		{"inside", off + 150, 150, ""},
		{"missing", 0, 0, "no kernel transmit stamp"},
		{"before sent_at", off + 50, 0, "outside [sent_at, headers_at]"},
		{"after the headers", off + 250, 0, "outside [sent_at, headers_at]"},
	} {
		rec := &loadgen.Record{SentAt: 100, HeadersAt: 200, FirstTokenAt: 300, ReceiveClock: loadgen.ReceiveClockKernel}
		settleWire(rec, &streamState{wire: tc.wire, off: off})
		if rec.WireAt != tc.want || tc.note == "" && rec.ReceiveClockNote != "" || !strings.Contains(rec.ReceiveClockNote, tc.note) {
			t.Errorf("%s: wire_at %v, note %q; want %v, a note with %q", tc.name, rec.WireAt, rec.ReceiveClockNote, tc.want, tc.note)
		}
		if start := rec.LatencyStart(); tc.want == 0 && start != rec.SentAt || tc.want != 0 && start != tc.want {
			t.Errorf("%s: latencies start at %v", tc.name, start)
		}
	}

	// The last byte's stamp starts the latencies where the kernel sent
	// it as the write returned: a small request, where the first write's
	// stamp (its headers) plus the writer's pauses read 0.1 ms late at
	// p99 in the timing-truth bench. Where the kernel held it longer
	// (a server reading slowly), the first write's stamp does, so that
	// the held-up upload counts (TestKernelClockSlowRead).
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	for _, tc := range []struct {
		name       string
		lastWire   time.Duration
		want       time.Duration
		wroteAfter time.Duration
	}{
		{"sent as written", ms(10.02), ms(10.02), ms(10.05)},
		{"held 0.9 ms", ms(10.95), ms(10.95), ms(10.05)},
		{"held by the server", ms(15), ms(10), ms(10.05)},
		// A server that stalled 500 ms, then read fast: the write
		// returned as the last byte left, but the upload took 500 ms
		// after the first write. It was left out of TTFT.
		{"stalled, then read fast", ms(510), ms(10), ms(510.2)},
	} {
		rec := &loadgen.Record{SentAt: ms(9), WroteAt: tc.wroteAfter, HeadersAt: ms(600), ReceiveClock: loadgen.ReceiveClockKernel}
		settleWire(rec, &streamState{wire: off + int64(ms(10)), lastWire: off + int64(tc.lastWire), off: off, bodyLen: 1 << 20})
		if rec.WireAt != tc.want || rec.ReceiveClockNote != "" {
			t.Errorf("%s: wire_at %v, note %q; want %v", tc.name, rec.WireAt, rec.ReceiveClockNote, tc.want)
		}
	}
	// A small request leaves whole into the server's first TCP window:
	// its last byte's stamp stands even 5 ms after its headers' (a
	// client preempted inside its write call; timing truth at 256
	// streams read 16.6 ms of TTFT error with the upload rule alone).
	rec := &loadgen.Record{SentAt: ms(9), WroteAt: ms(15.1), HeadersAt: ms(600), ReceiveClock: loadgen.ReceiveClockKernel}
	settleWire(rec, &streamState{wire: off + int64(ms(10)), lastWire: off + int64(ms(15)), off: off, bodyLen: 400})
	if rec.WireAt != ms(15) {
		t.Errorf("small request: wire_at %v, want the last byte's 15ms", rec.WireAt)
	}
}

func TestReceiveClockOptions(t *testing.T) {
	if _, err := ParseReceiveClock("wall"); err == nil || !strings.Contains(err.Error(), `receive clock "wall"`) {
		t.Fatalf("ParseReceiveClock(wall): %v", err)
	}
	_, err := New("http://127.0.0.1:1", WithReceiveClock(ReceiveKernel), WithHTTPClient(&http.Client{}))
	if err == nil || !strings.Contains(err.Error(), "receive clock kernel") {
		t.Fatalf("kernel clock with an injected HTTP client: %v, want an error", err)
	}
	if !rxstamp.Supported() {
		if _, err := New("http://127.0.0.1:1", WithReceiveClock(ReceiveKernel)); err == nil {
			t.Fatal("kernel clock on a platform without it: no error")
		}
	}
}

// slowReader is a server on a plain listener that waits 100 ms after
// accepting a connection, reads the request, a body over 1 MiB 16 KiB
// at a time with a pause of 1 ms between reads (a server under
// backpressure), then answers with one streamed token and closes. For
// each large request it sends, on big, when its first read returned and
// when it began to write the token, on the loadgen clock.
type slowReader struct {
	ln    net.Listener
	clock loadgen.Clock
	big   chan [2]time.Duration
	wg    sync.WaitGroup
}

func (s *slowReader) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Go(func() { s.conn(c) })
	}
}

func (s *slowReader) conn(c net.Conn) {
	defer c.Close()
	// A receive buffer held small, so that the client's last byte leaves
	// only as the body is read.
	_ = c.(*net.TCPConn).SetReadBuffer(64 << 10)
	time.Sleep(100 * time.Millisecond)
	buf := make([]byte, 16<<10)
	var head []byte
	var first time.Duration
	for {
		n, err := c.Read(buf)
		if first == 0 {
			first = s.clock.Now()
		}
		if err != nil {
			return
		}
		head = append(head, buf[:n]...)
		if bytes.Contains(head, []byte("\r\n\r\n")) {
			break
		}
	}
	i := bytes.Index(head, []byte("\r\n\r\n"))
	var length int
	for _, line := range strings.Split(string(head[:i]), "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	for left := length - (len(head) - i - 4); left > 0; {
		n, err := c.Read(buf[:min(left, len(buf))])
		if err != nil {
			return
		}
		left -= n
		if length > 1<<20 {
			time.Sleep(time.Millisecond)
		}
	}
	token := s.clock.Now()
	_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"+
		`data: {"choices":[{"index":0,"text":"hi"}]}`+"\n\ndata: [DONE]\n\n")
	if length > 1<<20 {
		s.big <- [2]time.Duration{first, token}
	}
}

// TestKernelClockSlowRead sends a 2 MiB prompt to a server that begins
// reading it 100 ms late and then reads it slowly: the request's last
// byte leaves long after its first. The slow read is the server's
// latency, so the kernel-clock TTFT starts when the request began to
// leave (wire_at, the stamp of its first write): no later than the
// server's first read returned, and TTFT at least the server's time from
// that read to its write of the token.
func TestKernelClockSlowRead(t *testing.T) {
	if !rxstamp.Supported() {
		t.Skip("no kernel stamps on this platform")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	clock := loadgen.NewClock(time.Now())
	s := &slowReader{ln: ln, clock: clock, big: make(chan [2]time.Duration, 1)}
	served := make(chan struct{})
	go func() { defer close(served); s.serve() }()
	t.Cleanup(func() { ln.Close(); <-served; s.wg.Wait() })
	c, err := New("http://"+ln.Addr().String(), WithModel("m"), WithReceiveClock(ReceiveKernel))
	if err != nil {
		t.Fatal(err)
	}
	// Warm up until a request is stamped (rxstamp.Keeper).
	for i := 0; i < 30; i++ {
		rec := &loadgen.Record{SentAt: clock.Now()}
		c.Do(context.Background(), clock, &loadgen.Request{Prompt: "warmup", MaxTokens: 1}, rec)
		if rec.ReceiveClock == loadgen.ReceiveClockKernel {
			break
		}
	}
	req := &loadgen.Request{Prompt: "slow " + strings.Repeat("lorem ipsum ", (2<<20)/12), MaxTokens: 1}
	rec := &loadgen.Record{SentAt: clock.Now()}
	c.Do(context.Background(), clock, req, rec)
	if rec.Status != loadgen.StatusOK {
		t.Fatalf("%s %s", rec.Status, rec.ErrorMessage)
	}
	if rec.ReceiveClock != loadgen.ReceiveClockKernel || rec.WireAt == 0 {
		t.Fatalf("receive clock %q, wire_at %v (%s); want kernel, a transmit stamp", rec.ReceiveClock, rec.WireAt, rec.ReceiveClockNote)
	}
	times := <-s.big
	firstRead, tokenWrite := times[0], times[1]
	if rec.WireAt > firstRead {
		t.Errorf("wire_at %v after the server's first read returned (%v): it is not when the request began to leave", rec.WireAt, firstRead)
	}
	ttft, _ := rec.TTFT()
	if server := tokenWrite - firstRead; ttft < server {
		t.Errorf("kernel TTFT %v shorter than the server's time from its first read to its token %v: the slow read is left out", ttft, server)
	}
}

// doStreams sends perStream requests of maxTokens on each of streams
// concurrent streams through c, the prompt of stream s's request i being
// prompt(s, i), and returns their records.
func doStreams(c *Client, clock loadgen.Clock, streams, perStream, maxTokens int, prompt func(s, i int) string) []*loadgen.Record {
	var mu sync.Mutex
	var recs []*loadgen.Record
	var wg sync.WaitGroup
	for s := range streams {
		wg.Go(func() {
			for i := range perStream {
				req := &loadgen.Request{Prompt: prompt(s, i), MaxTokens: maxTokens}
				rec := &loadgen.Record{Seq: int64(s*perStream + i), SentAt: clock.Now()}
				c.Do(context.Background(), clock, req, rec)
				mu.Lock()
				recs = append(recs, rec)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return recs
}
