package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

const benchChatChunk = `{"id":"chatcmpl-8f3a","object":"chat.completion.chunk","created":1718000000,"model":"tiny-qwen3","choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null}]}`

func BenchmarkChunkDecode(b *testing.B) {
	b.ReportAllocs()
	data := []byte(benchChatChunk)
	var c chunk
	for b.Loop() {
		if err := c.decode(data); err != nil {
			b.Fatal(err)
		}
		if !c.classify().token {
			b.Fatal("not a token")
		}
	}
}

func BenchmarkSSENext(b *testing.B) {
	b.ReportAllocs()
	frame := []byte("data: " + benchChatChunk + "\n\n")
	stream := bytes.Repeat(frame, 1000)
	var s sseReader
	r := bytes.NewReader(stream)
	b.SetBytes(int64(len(frame)))
	for i := 0; b.Loop(); i++ {
		if i%1000 == 0 {
			r.Reset(stream)
			s.reset(r)
		}
		if _, err := s.next(); err != nil {
			b.Fatal(err)
		}
	}
}

// memTransport answers every request with the same SSE body, in memory, so
// a benchmark measures the client rather than the loopback network.
type memTransport struct{ body []byte }

func (m memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(m.body)),
		Request:    r,
	}, nil
}

const benchChunks = 256

func benchStream() []byte {
	var b bytes.Buffer
	b.WriteString(roleChunk)
	for range benchChunks {
		b.WriteString("data: " + benchChatChunk + "\n\n")
	}
	b.WriteString(finishChunk + usageChunk + doneFrame)
	return b.Bytes()
}

// BenchmarkDoStream measures a whole streamed request of 256 token chunks,
// reporting the cost per chunk (allocs/op covers the whole request).
func BenchmarkDoStream(b *testing.B) {
	tok, err := tokenize.Load(filepath.Join("..", "testdata", "tokenizers", "files", "qwen3", "tokenizer.json.gz"))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		opts []Option
	}{
		{"plain", nil},
		{"tokencounter", []Option{WithTokenCounter(func(s string) int { return 1 })}},
		{"bytetokencounter", []Option{WithByteTokenCounter(func(b []byte) int { return 1 })}},
		// The CLI's --tokenizer: the Qwen3 tokenizer counting each chunk.
		{"tokenizer", []Option{WithByteTokenCounter(tok.CountBytes)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := New("http://bench.invalid", append(bc.opts, WithHTTPClient(&http.Client{Transport: memTransport{benchStream()}}))...)
			if err != nil {
				b.Fatal(err)
			}
			clock := loadgen.NewClock(time.Now())
			req := &loadgen.Request{Prompt: "hello", MaxTokens: benchChunks}
			b.ReportAllocs()
			for b.Loop() {
				rec := loadgen.Record{SentAt: clock.Now()}
				c.Do(context.Background(), clock, req, &rec)
				if rec.Status != loadgen.StatusOK || len(rec.ChunkTimes) != benchChunks {
					b.Fatalf("%s %s, %d chunks", rec.Status, rec.ErrorMessage, len(rec.ChunkTimes))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
		})
	}
}

// BenchmarkDoStreamLoopback is BenchmarkDoStream over real loopback HTTP,
// the server writing the whole stream at once. Its sub-benchmarks time
// the kernel receive clock (Linux) against the user clock.
func BenchmarkDoStreamLoopback(b *testing.B) {
	url, _ := serve(b, script{frames: []string{string(benchStream())}})
	for _, rx := range []ReceiveClockMode{ReceiveAuto, ReceiveUser} {
		b.Run(string(rx), func(b *testing.B) {
			c, err := New(url, WithReceiveClock(rx))
			if err != nil {
				b.Fatal(err)
			}
			clock := loadgen.NewClock(time.Now())
			req := &loadgen.Request{Prompt: "hello", MaxTokens: benchChunks}
			b.ReportAllocs()
			for b.Loop() {
				rec := loadgen.Record{SentAt: clock.Now()}
				c.Do(context.Background(), clock, req, &rec)
				if rec.Status != loadgen.StatusOK {
					b.Fatal(rec.ErrorMessage)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
		})
	}
}

// BenchmarkDoLongPrompt sends a 512 KiB prompt (about 128,000 tokens) over
// loopback and reads a one-chunk answer: the cost of encoding and writing
// a long request body (B/op counts the copies).
func BenchmarkDoLongPrompt(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, content("x")+doneFrame)
	}))
	b.Cleanup(srv.Close)
	c, err := New(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	clock := loadgen.NewClock(time.Now())
	req := &loadgen.Request{Prompt: strings.Repeat("lorem ipsum dolor sit amet, ", 512<<10/28), MaxTokens: 1}
	b.SetBytes(int64(len(req.Prompt)))
	b.ReportAllocs()
	var send time.Duration
	for b.Loop() {
		rec := loadgen.Record{SentAt: clock.Now()}
		c.Do(context.Background(), clock, req, &rec)
		if rec.Status != loadgen.StatusOK {
			b.Fatal(rec.ErrorMessage)
		}
		send += rec.WroteAt - rec.SentAt
	}
	b.ReportMetric(float64(send.Microseconds())/float64(b.N), "send-µs/op")
}
