package openai

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/rxstamp"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
)

// clockRun sends streams × perStream requests, streams at a time, to a
// mock with ground truth served by srv (plain or TLS), and returns each
// record with its server trace.
func clockRun(t *testing.T, tlsServer bool, streams, perStream int, opts ...Option) ([]*loadgen.Record, map[string]mockserver.RequestTrace, loadgen.Clock) {
	t.Helper()
	mock, err := mockserver.New(mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: 2 * time.Millisecond, ITL: time.Millisecond},
		mockserver.WithGroundTruth())
	if err != nil {
		t.Fatal(err)
	}
	var srv *httptest.Server
	if tlsServer {
		srv = httptest.NewTLSServer(mock.Handler())
		pool := x509.NewCertPool()
		pool.AddCert(srv.Certificate())
		opts = append(opts, WithTLSConfig(&tls.Config{RootCAs: pool}))
	} else {
		srv = httptest.NewServer(mock.Handler())
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
	var mu sync.Mutex
	var recs []*loadgen.Record
	var wg sync.WaitGroup
	for s := range streams {
		wg.Go(func() {
			for i := range perStream {
				req := &loadgen.Request{Prompt: fmt.Sprintf("clock-%d-%d hello world", s, i), MaxTokens: 8}
				rec := &loadgen.Record{Seq: int64(s*perStream + i), SentAt: clock.Now()}
				c.Do(context.Background(), clock, req, rec)
				mu.Lock()
				recs = append(recs, rec)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	truth := map[string]mockserver.RequestTrace{}
	for _, tr := range mock.GroundTruth() {
		if tr.Prompt == "warmup" {
			continue
		}
		truth[strings.Fields(tr.Prompt)[0]] = tr
	}
	return recs, truth, clock
}

// TestKernelClockOrdering is the loopback acceptance test of the kernel
// receive clock: each token chunk's kernel stamp is never later than the
// client's user-space stamp of it and never earlier than the start of the
// server's write that carried it; so is the first token's, which makes
// the kernel-stamped TTFT never longer than the user-space one and never
// shorter than the server's. It is an ordering check, not a timing one.
func TestKernelClockOrdering(t *testing.T) {
	if !rxstamp.Supported() {
		t.Skip("no kernel receive stamps on this platform")
	}
	for _, tlsServer := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "tls"}[tlsServer], func(t *testing.T) {
			recs, truth, clock := clockRun(t, tlsServer, 8, 6)
			for _, rec := range recs {
				if rec.Status != loadgen.StatusOK {
					t.Fatalf("seq %d: %s %s", rec.Seq, rec.Status, rec.ErrorMessage)
				}
				if rec.ReceiveClock != loadgen.ReceiveClockKernel {
					t.Fatalf("seq %d: receive clock %q (%s), want kernel", rec.Seq, rec.ReceiveClock, rec.ReceiveClockNote)
				}
				tr, ok := truth[fmt.Sprintf("clock-%d-%d", rec.Seq/6, rec.Seq%6)]
				if !ok {
					t.Fatalf("seq %d: no trace", rec.Seq)
				}
				if len(rec.ChunkTimes) != len(tr.ChunkWriteStarts) || len(rec.ChunkUserTimes) != len(rec.ChunkTimes) {
					t.Fatalf("seq %d: %d chunks, %d user stamps; the server wrote %d", rec.Seq, len(rec.ChunkTimes), len(rec.ChunkUserTimes), len(tr.ChunkWriteStarts))
				}
				at := func(d time.Duration) time.Time { return clock.Start().Add(d) }
				for i, k := range rec.ChunkTimes {
					if w := tr.ChunkWriteStarts[i]; at(k).Before(w) {
						t.Errorf("seq %d chunk %d: kernel stamp %v before the server's write began (%v earlier)", rec.Seq, i, k, w.Sub(at(k)))
					}
					if u := rec.ChunkUserTimes[i]; k > u {
						t.Errorf("seq %d chunk %d: kernel stamp %v after the user-space stamp %v", rec.Seq, i, k, u)
					}
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
			}
		})
	}
}

// TestReceiveClockUser checks --receive-clock user and the notes of a
// user-clock record.
func TestReceiveClockUser(t *testing.T) {
	recs, _, _ := clockRun(t, false, 1, 2, WithReceiveClock(ReceiveUser))
	for _, rec := range recs {
		if rec.ReceiveClock != loadgen.ReceiveClockUser || rec.ReceiveClockNote == "" || rec.ChunkUserTimes != nil {
			t.Fatalf("seq %d: clock %q, note %q, %d user stamps; want user, a note, none", rec.Seq, rec.ReceiveClock, rec.ReceiveClockNote, len(rec.ChunkUserTimes))
		}
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
