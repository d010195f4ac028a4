// Command timingtruth measures gollm-bench's timing error against the
// mock server's ground truth (issue 7, item 1.2; run by
// bench/timing-truth.sh). For each stream count N it runs the mock
// (fixed scheduler: TTFT 20 ms, ITL 5 ms, 16 tokens) with WithGroundTruth
// and the real client stack (openai.Client driven by loadgen.Generator,
// closed loop with N concurrent streams) in one process, then matches each
// record with the server's trace of the same prompt and reports, over
// every request but each stream's first, which dials its connection (ms):
//
//   - TTFT error = client TTFT (first token − sent) − server TTFT (first
//     token flush − handler entry): the request's trip to the handler plus
//     the delay in reading the first token.
//   - ITL error = |client ITL − server ITL|, ITL = (E2E − TTFT)/(OSL − 1) on
//     both sides (SPEC §5, AIPerf's definition).
//   - chunk delay = client arrival stamp − server flush stamp, every token
//     chunk: the pure receive-side error.
//
// Each N runs --reps times; the table shows the median over runs of each
// run's p50 and p99 (nearest rank). Client and mock share the process and
// both cores (the ground truth needs one monotonic clock), so the figures
// include the server's own load.
//
// Usage: timingtruth [--streams 16,64,256] [--per-stream 40] [--reps 3]
package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/internal/mockserver"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/openai"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

const osl = 16

// tagged is a Workload whose prompt starts with a unique tag per Seq, so a
// record can be matched with the server's trace by prompt.
type tagged struct{ nonce string }

func (w tagged) Request(seq int64) (loadgen.Request, error) {
	return loadgen.Request{
		Prompt:    fmt.Sprintf("%s-%d %s", w.nonce, seq, strings.Repeat("w ", 15)),
		MaxTokens: osl,
	}, nil
}

// memSink keeps every record.
type memSink struct{ recs []*loadgen.Record }

func (s *memSink) Write(r *loadgen.Record) error { s.recs = append(s.recs, r); return nil }

// errs holds the per-request errors of one run, ms.
type errs struct{ ttft, itl, chunk []float64 }

func measure(ctx context.Context, streams, requests int, nonce string) (errs, error) {
	var out errs
	srv, err := mockserver.New(mockserver.Config{
		Scheduler: mockserver.SchedulerFixed, TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond,
	}, mockserver.WithGroundTruth())
	if err != nil {
		return out, err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return out, err
	}
	hs := &http.Server{Handler: srv.Handler()}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	defer func() {
		_ = hs.Close()
		<-done
	}()

	client, err := openai.New("http://"+ln.Addr().String(), openai.WithModel(mockserver.DefaultModel),
		openai.WithMaxConcurrency(streams))
	if err != nil {
		return out, err
	}
	clock := loadgen.NewClock(time.Now())
	w := tagged{nonce: nonce}
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
	truth := map[string]mockserver.RequestTrace{}
	for _, tr := range srv.GroundTruth() {
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
		if len(rec.ChunkTimes) != len(tr.ChunkTimes) || rec.OutputTokens != osl {
			return out, fmt.Errorf("seq %d: %d chunks, %d tokens; the server sent %d chunks", rec.Seq, len(rec.ChunkTimes), rec.OutputTokens, len(tr.ChunkTimes))
		}
		for k, at := range rec.ChunkTimes {
			out.chunk = append(out.chunk, ms(clock.Start().Add(at).Sub(tr.ChunkTimes[k])))
		}
		ttft, _ := rec.TTFT()
		out.ttft = append(out.ttft, ms(ttft-tr.TTFT()))
		itl := (rec.E2E() - ttft) / time.Duration(rec.OutputTokens-1)
		out.itl = append(out.itl, math.Abs(ms(itl-tr.ITL())))
	}
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

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
	goal := fs.Float64("goal-ms", 0.5, "p99 error goal at the largest stream count, ms")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fmt.Fprintln(stdout, "| streams | requests/run | TTFT error p50 (ms) | TTFT error p99 (ms) | ITL error p50 (ms) | ITL error p99 (ms) | chunk delay p50 (ms) | chunk delay p99 (ms) |")
	fmt.Fprintln(stdout, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var lastTTFT99, lastITL99 float64
	for _, n := range *streams {
		var t50, t99, i50, i99, c50, c99 []float64
		for r := range *reps {
			e, err := measure(ctx, n, n**perStream, fmt.Sprintf("truth%d-%d", n, r))
			if err != nil {
				fmt.Fprintln(stderr, "timingtruth:", err)
				return 1
			}
			t50, t99 = append(t50, quantile(e.ttft, 0.5)), append(t99, quantile(e.ttft, 0.99))
			i50, i99 = append(i50, quantile(e.itl, 0.5)), append(i99, quantile(e.itl, 0.99))
			c50, c99 = append(c50, quantile(e.chunk, 0.5)), append(c99, quantile(e.chunk, 0.99))
		}
		fmt.Fprintf(stdout, "| %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", n, n**perStream,
			median(t50), median(t99), median(i50), median(i99), median(c50), median(c99))
		lastTTFT99, lastITL99 = median(t99), median(i99)
	}
	last := (*streams)[len(*streams)-1]
	for _, g := range []struct {
		name string
		p99  float64
	}{{"TTFT", lastTTFT99}, {"ITL", lastITL99}} {
		v := "met"
		if g.p99 > *goal {
			v = "not met"
		}
		fmt.Fprintf(stdout, "\n- Goal: %s error p99 ≤ %.1f ms at %d streams: **%s** (%.3f ms, %.2fx the goal).", g.name, *goal, last, v, g.p99, g.p99 / *goal)
	}
	fmt.Fprintln(stdout)
	return 0
}
