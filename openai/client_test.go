package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gollm-bench/gollm-bench/internal/jsonstring"
	"github.com/gollm-bench/gollm-bench/loadgen"
)

// Frames as vLLM and llama.cpp send them.
const (
	roleChunk   = `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n"
	finishChunk = `data: {"id":"c","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}` + "\n\n"
	usageChunk  = `data: {"id":"c","choices":[],"usage":{"prompt_tokens":5,"total_tokens":8,"completion_tokens":3}}` + "\n\n"
	doneFrame   = "data: [DONE]\n\n"
)

func content(s string) string {
	return `data: {"id":"c","choices":[{"index":0,"delta":{"content":` + string(jsonstring.Append(nil, s)) + `},"finish_reason":null}]}` + "\n\n"
}

func delta(field, s string) string {
	return `data: {"choices":[{"index":0,"delta":{"` + field + `":` + string(jsonstring.Append(nil, s)) + `}}]}` + "\n\n"
}

func text(s string) string {
	return `data: {"choices":[{"index":0,"text":` + string(jsonstring.Append(nil, s)) + `,"logprobs":null,"finish_reason":null}]}` + "\n\n"
}

// script is a scripted server response.
type script struct {
	status int      // 0: 200
	ctype  string   // "": text/event-stream; "none": no Content-Type
	frames []string // written one by one, flushed between
	reset  bool     // after the frames, hijack the connection and reset it
	stall  bool     // after the frames, block until the client goes away
}

// serve starts a loopback server that plays s for every request and
// records the last request body.
func serve(t testing.TB, s script) (url string, body func() []byte) {
	t.Helper()
	var mu sync.Mutex
	var last []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		last = b
		mu.Unlock()
		if s.reset {
			conn, rw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			fmt.Fprint(rw, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			for _, f := range s.frames {
				fmt.Fprintf(rw, "%x\r\n%s\r\n", len(f), f)
				rw.Flush()
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			conn.Close()
			return
		}
		switch s.ctype {
		case "":
			w.Header().Set("Content-Type", "text/event-stream")
		case "none":
			w.Header()["Content-Type"] = nil // no sniffing either
		default:
			w.Header().Set("Content-Type", s.ctype)
		}
		if s.status != 0 {
			w.WriteHeader(s.status)
		}
		for _, f := range s.frames {
			io.WriteString(w, f)
			w.(http.Flusher).Flush()
		}
		if s.stall {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []byte { mu.Lock(); defer mu.Unlock(); return last }
}

// fields counts whitespace-separated words: a stand-in tokenizer.
func fields(s string) int { return len(strings.Fields(s)) }

type want struct {
	status    loadgen.Status
	kind      loadgen.ErrorKind
	msg       string // substring of ErrorMessage
	http      int
	chunks    int
	out       int
	outSrc    loadgen.TokenSource
	prompt    int
	promptSrc loadgen.TokenSource
	finish    string
	local     int    // LocalOutputTokens
	rejected  string // substring of UsageRejected ("": it must be empty)
	tokens    []int32
	// firstContent is the index in ChunkTimes of the first content chunk
	// (-1: none).
	firstContent int
}

func TestDoStream(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // one 100 KiB SSE line
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	tests := []struct {
		name string
		s    script
		opts []Option
		want want
	}{
		{"vllm chat: role chunk, usage chunk, [DONE]",
			script{frames: []string{roleChunk, content("a"), content(" b"), content(" c"), finishChunk, usageChunk, doneFrame}},
			nil, want{status: "ok", chunks: 3, out: 3, outSrc: "server", prompt: 5, promptSrc: "server", finish: "length", tokens: []int32{1, 1, 1}}},
		{"data: without space",
			script{frames: []string{strings.Replace(content("a"), "data: ", "data:", 1), strings.Replace(content("b"), "data: ", "data:", 1), "data:[DONE]\n\n"}},
			nil, want{status: "ok", chunks: 2, out: 2, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"CRLF line ends",
			script{frames: []string{crlf(roleChunk), crlf(content("a")), crlf(content("b")), crlf(usageChunk), crlf(doneFrame)}},
			nil, want{status: "ok", chunks: 2, out: 3, outSrc: "server", prompt: 5, promptSrc: "server"}},
		{"comments, event and id lines",
			script{frames: []string{": ping\n\n", "event: message\nid: 1\n" + content("a"), "retry: 10\n: keep-alive\n" + content("b"), doneFrame}},
			nil, want{status: "ok", chunks: 2, out: 2, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"no [DONE]: EOF ends the stream",
			script{frames: []string{content("a"), content("b"), finishChunk}},
			nil, want{status: "ok", chunks: 2, out: 2, outSrc: "chunks", prompt: 7, promptSrc: "dataset", finish: "length"}},
		{"last event without blank line",
			script{frames: []string{content("a"), content("b"), strings.TrimSuffix(finishChunk, "\n\n")}},
			nil, want{status: "ok", chunks: 2, out: 2, outSrc: "chunks", prompt: 7, promptSrc: "dataset", finish: "length"}},
		{"empty content is not a token",
			script{frames: []string{content("a"), content(""), `data: {"choices":[{"delta":{"content":null}}]}` + "\n\n", content("b"), doneFrame}},
			nil, want{status: "ok", chunks: 2, out: 2, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"several tokens per chunk, by logprobs",
			script{frames: []string{
				`data: {"choices":[{"text":"ab","logprobs":{"tokens":["a","b"],"token_logprobs":[-1,-2]}}]}` + "\n\n",
				`data: {"choices":[{"delta":{"content":"cde"},"logprobs":{"content":[{"token":"c"},{"token":"d"},{"token":"e"}]}}]}` + "\n\n",
				doneFrame}},
			nil, want{status: "ok", chunks: 2, out: 5, outSrc: "chunks", prompt: 7, promptSrc: "dataset", tokens: []int32{2, 3}}},
		{"several tokens per chunk, by token counter",
			script{frames: []string{content("one two three"), content(" four"), doneFrame}},
			[]Option{WithTokenCounter(fields)},
			want{status: "ok", chunks: 2, out: 4, outSrc: "tokenizer", local: 4, prompt: 7, promptSrc: "dataset", tokens: []int32{3, 1}}},
		{"usage in the finish chunk (llama.cpp completions)",
			script{frames: []string{text("a"), text(" b"), `data: {"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],"usage":{"completion_tokens":2,"prompt_tokens":4,"total_tokens":6},"timings":{"prompt_n":4}}` + "\n\n", doneFrame}},
			nil, want{status: "ok", chunks: 2, out: 2, outSrc: "server", prompt: 4, promptSrc: "server", finish: "length"}},
		{"server usage beats the tokenizer",
			script{frames: []string{content("a b"), usageChunk, doneFrame}},
			[]Option{WithTokenCounter(fields)},
			want{status: "ok", chunks: 1, out: 3, outSrc: "server", local: 2, prompt: 5, promptSrc: "server", tokens: []int32{2}}},
		{"reasoning_content then content (TTFOT)",
			script{frames: []string{roleChunk, delta("reasoning_content", "hm"), delta("reasoning_content", "m"), content("a"), doneFrame}},
			nil, want{status: "ok", chunks: 3, out: 3, outSrc: "chunks", prompt: 7, promptSrc: "dataset", firstContent: 2}},
		{"reasoning then content (vLLM >= 0.10)",
			script{frames: []string{delta("reasoning", "hm"), content("a"), content("b"), doneFrame}},
			nil, want{status: "ok", chunks: 3, out: 3, outSrc: "chunks", prompt: 7, promptSrc: "dataset", firstContent: 1}},
		{"reasoning only: no TTFOT",
			script{frames: []string{delta("reasoning", "hm"), doneFrame}},
			nil, want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset", firstContent: -1}},
		{"tool_calls are tokens",
			script{frames: []string{roleChunk,
				`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"t","type":"function","function":{"name":"f","arguments":""}}]}}]}` + "\n\n",
				`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\": 1}"}}]}}]}` + "\n\n",
				`data: {"choices":[{"delta":{"tool_calls":[]},"finish_reason":"tool_calls"}]}` + "\n\n", doneFrame}},
			[]Option{WithTokenCounter(fields)},
			// "f" then `{"x": 1}`: 1 and 2 words; "f{"x": 1}" is 2.
			want{status: "ok", chunks: 2, out: 2, outSrc: "tokenizer", local: 2, prompt: 7, promptSrc: "dataset", finish: "tool_calls", tokens: []int32{1, 2}}},
		{"error object in a 200 stream",
			script{frames: []string{content("a"), `data: {"error":{"code":500,"message":"boom in slot 3","type":"server_error"}}` + "\n\n"}},
			nil, want{status: "error", kind: "stream_error", msg: "boom in slot 3", http: 200, chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"error string in a 200 stream",
			script{frames: []string{`data: {"error":"overloaded"}` + "\n\n"}},
			nil, want{status: "error", kind: "stream_error", msg: "overloaded", http: 200, outSrc: "chunks", prompt: 7, promptSrc: "dataset", firstContent: -1}},
		{"HTTP 429 with an OpenAI error body",
			script{status: 429, ctype: "application/json", frames: []string{`{"error":{"message":"rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}},
			nil, want{status: "error", kind: "http_status", msg: "HTTP 429: requests: rate limit reached", http: 429, outSrc: "chunks", prompt: 7, promptSrc: "dataset", firstContent: -1}},
		{"HTTP 400 with a vLLM error body",
			script{status: 400, ctype: "application/json", frames: []string{`{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}`}},
			nil, want{status: "error", kind: "http_status", msg: "max_tokens is too large", http: 400, outSrc: "chunks", prompt: 7, promptSrc: "dataset", firstContent: -1}},
		{"HTTP 503 with a plain body",
			script{status: 503, ctype: "text/plain", frames: []string{"upstream overloaded\n"}},
			nil, want{status: "error", kind: "http_status", msg: "HTTP 503: upstream overloaded", http: 503, outSrc: "chunks", prompt: 7, promptSrc: "dataset", firstContent: -1}},
		{"connection reset mid-stream keeps the tokens",
			script{frames: []string{roleChunk, content("a"), content("b")}, reset: true},
			nil, want{status: "error", kind: "disconnect", http: 200, chunks: 2, out: 2, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"line longer than 64 KiB",
			script{frames: []string{content(long), content("b"), doneFrame}},
			[]Option{WithTokenCounter(utf8.RuneCountInString)},
			want{status: "ok", chunks: 2, out: len(long) + 1, outSrc: "tokenizer", local: len(long) + 1, prompt: 7, promptSrc: "dataset", tokens: []int32{int32(len(long)), 1}}},
		{"invalid UTF-8 split across chunks",
			script{frames: []string{"data: {\"choices\":[{\"delta\":{\"content\":\"a\xe4\xbd\"}}]}\n\n", "data: {\"choices\":[{\"delta\":{\"content\":\"\xa0\"}}]}\n\n", doneFrame}},
			[]Option{WithTokenCounter(utf8.RuneCountInString)},
			// "a" + "你" once joined: 2 runes; per chunk 3 and 1.
			want{status: "ok", chunks: 2, out: 2, outSrc: "tokenizer", local: 2, prompt: 7, promptSrc: "dataset", tokens: []int32{3, 1}}},
		{"multi-line data event",
			script{frames: []string{"data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"x\"}}]}\n\n", doneFrame}},
			nil, want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"escaped key goes through encoding/json",
			script{frames: []string{`data: {"choices":[{"delta":{"cont\u0065nt":"x"}}]}` + "\n\n", doneFrame}},
			nil, want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"undecodable frame",
			script{frames: []string{content("a"), "data: {not json\n\n", content("b")}},
			nil, want{status: "error", kind: "decode", msg: "not json", http: 200, chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := serve(t, tt.s)
			c, err := New(url, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			rec := do(t, context.Background(), c)
			check(t, rec, tt.want)
		})
	}
}

// do sends one request as the Generator would.
func do(t testing.TB, ctx context.Context, c *Client) *loadgen.Record {
	t.Helper()
	clock := loadgen.NewClock(time.Now())
	req := &loadgen.Request{Prompt: "hello", PromptTokens: 7, MaxTokens: 16}
	rec := &loadgen.Record{SentAt: clock.Now(), RequestedOutputTokens: req.MaxTokens}
	c.Do(ctx, clock, req, rec)
	return rec
}

func check(t *testing.T, rec *loadgen.Record, w want) {
	t.Helper()
	if rec.Status != w.status || rec.ErrorKind != w.kind {
		t.Errorf("status %q/%q (%s), want %q/%q", rec.Status, rec.ErrorKind, rec.ErrorMessage, w.status, w.kind)
	}
	if !strings.Contains(rec.ErrorMessage, w.msg) {
		t.Errorf("error message %q, want it to contain %q", rec.ErrorMessage, w.msg)
	}
	if w.http == 0 && rec.Status == loadgen.StatusOK {
		w.http = 200
	}
	if rec.HTTPStatus != w.http {
		t.Errorf("http status %d, want %d", rec.HTTPStatus, w.http)
	}
	if len(rec.ChunkTimes) != w.chunks || len(rec.ChunkTokens) != w.chunks {
		t.Errorf("%d chunk times, %d chunk tokens, want %d", len(rec.ChunkTimes), len(rec.ChunkTokens), w.chunks)
	}
	if w.tokens != nil && fmt.Sprint(rec.ChunkTokens) != fmt.Sprint(w.tokens) {
		t.Errorf("chunk tokens %v, want %v", rec.ChunkTokens, w.tokens)
	}
	if rec.OutputTokens != w.out || rec.OutputTokensSource != w.outSrc {
		t.Errorf("output tokens %d (%s), want %d (%s)", rec.OutputTokens, rec.OutputTokensSource, w.out, w.outSrc)
	}
	if rec.PromptTokens != w.prompt || rec.PromptTokensSource != w.promptSrc {
		t.Errorf("prompt tokens %d (%s), want %d (%s)", rec.PromptTokens, rec.PromptTokensSource, w.prompt, w.promptSrc)
	}
	if w.rejected == "" && rec.UsageRejected != "" || !strings.Contains(rec.UsageRejected, w.rejected) {
		t.Errorf("usage rejected %q, want %q", rec.UsageRejected, w.rejected)
	}
	if rec.LocalOutputTokens != w.local {
		t.Errorf("local output tokens %d, want %d", rec.LocalOutputTokens, w.local)
	}
	if rec.FinishReason != w.finish {
		t.Errorf("finish reason %q, want %q", rec.FinishReason, w.finish)
	}
	checkTimes(t, rec)
	switch {
	case w.chunks == 0:
		if rec.FirstTokenAt != 0 || rec.FirstContentAt != 0 || rec.LastTokenAt != 0 {
			t.Errorf("token times %v %v %v without tokens", rec.FirstTokenAt, rec.FirstContentAt, rec.LastTokenAt)
		}
	case w.firstContent < 0:
		if rec.FirstContentAt != 0 {
			t.Errorf("first content at %v, want none", rec.FirstContentAt)
		}
	default:
		if rec.FirstTokenAt != rec.ChunkTimes[0] || rec.LastTokenAt != rec.ChunkTimes[len(rec.ChunkTimes)-1] {
			t.Errorf("first/last token %v/%v, want %v/%v", rec.FirstTokenAt, rec.LastTokenAt, rec.ChunkTimes[0], rec.ChunkTimes[len(rec.ChunkTimes)-1])
		}
		if rec.FirstContentAt != rec.ChunkTimes[w.firstContent] {
			t.Errorf("first content at %v, want chunk %d at %v", rec.FirstContentAt, w.firstContent, rec.ChunkTimes[w.firstContent])
		}
	}
}

// checkTimes asserts that the times that happened are ordered.
func checkTimes(t *testing.T, rec *loadgen.Record) {
	t.Helper()
	switch {
	case rec.Status == loadgen.StatusOK && rec.WroteAt == 0:
		t.Error("wrote_at unset on an ok request")
	case rec.WroteAt != 0 && (rec.WroteAt < rec.SentAt || rec.WroteAt > rec.DoneAt):
		t.Errorf("wrote_at %v outside [sent_at %v, done_at %v]", rec.WroteAt, rec.SentAt, rec.DoneAt)
	}
	prev, prevName := rec.SentAt, "sent_at"
	for _, p := range []struct {
		name string
		at   time.Duration
	}{{"headers_at", rec.HeadersAt}, {"first_token_at", rec.FirstTokenAt}, {"first_content_at", rec.FirstContentAt}, {"last_token_at", rec.LastTokenAt}, {"done_at", rec.DoneAt}} {
		if p.at == 0 && p.name != "done_at" {
			continue
		}
		if p.at < prev {
			t.Errorf("%s %v before %s %v", p.name, p.at, prevName, prev)
		}
		prev, prevName = p.at, p.name
	}
	for i := 1; i < len(rec.ChunkTimes); i++ {
		if rec.ChunkTimes[i] < rec.ChunkTimes[i-1] {
			t.Errorf("chunk %d at %v before chunk %d at %v", i, rec.ChunkTimes[i], i-1, rec.ChunkTimes[i-1])
		}
	}
}

func TestDoNonStreaming(t *testing.T) {
	url, body := serve(t, script{ctype: "application/json", frames: []string{
		`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi there"},"finish_reason":"length"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`}})
	c, err := New(url, WithEndpoint(Chat), WithStream(false), WithTokenCounter(fields))
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, context.Background(), c)
	check(t, rec, want{status: "ok", out: 2, outSrc: "server", local: 2, prompt: 9, promptSrc: "server", finish: "length"})
	var m map[string]any
	if err := json.Unmarshal(body(), &m); err != nil {
		t.Fatal(err)
	}
	if m["stream"] != false || m["stream_options"] != nil {
		t.Errorf("body %s: want stream false and no stream_options", body())
	}
}

func TestDoTimeoutsAndCancel(t *testing.T) {
	stalled := script{frames: []string{roleChunk, content("a")}, stall: true}
	tests := []struct {
		name   string
		s      script
		opts   []Option
		cancel bool
		want   want
	}{
		{"idle gap", stalled, []Option{WithIdleTimeout(20 * time.Millisecond)}, false,
			want{status: "timeout", kind: "idle_timeout", http: 200, chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"whole request", stalled, []Option{WithRequestTimeout(20 * time.Millisecond)}, false,
			want{status: "timeout", kind: "request_timeout", http: 200, chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"run cancelled", stalled, []Option{WithIdleTimeout(time.Hour)}, true,
			want{status: "cancelled", kind: "cancelled", http: 200, chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := serve(t, tt.s)
			c, err := New(url, append(tt.opts, WithTokenCounter(func(s string) int { return 1 }))...)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				// Cancel once the first token arrived: the counter sees it.
				c.cfg.countTokens = func([]byte) int { cancel(); return 1 }
			}
			rec := do(t, ctx, c)
			tt.want.local, tt.want.outSrc = 1, loadgen.SourceTokenizer
			check(t, rec, tt.want)
		})
	}
}

func TestDoConnectError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := New("http://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, context.Background(), c)
	check(t, rec, want{status: "error", kind: "connect", outSrc: "chunks", prompt: 7, promptSrc: "dataset", firstContent: -1})
}

func TestDoPanicIsRecorded(t *testing.T) {
	url, _ := serve(t, script{frames: []string{content("a"), doneFrame}})
	c, err := New(url, WithTokenCounter(func(string) int { panic("tokenizer bug") }))
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, context.Background(), c)
	if rec.Status != loadgen.StatusError || rec.ErrorKind != loadgen.ErrorPanic || !strings.Contains(rec.ErrorMessage, "tokenizer bug") {
		t.Errorf("got %q/%q %q, want a recorded panic", rec.Status, rec.ErrorKind, rec.ErrorMessage)
	}
	if rec.HTTPStatus != 200 || rec.DoneAt == 0 {
		t.Errorf("http status %d, done_at %v: want what was measured kept", rec.HTTPStatus, rec.DoneAt)
	}
}

func TestConnReused(t *testing.T) {
	url, _ := serve(t, script{frames: []string{content("a"), doneFrame}})
	c, err := New(url)
	if err != nil {
		t.Fatal(err)
	}
	first := do(t, context.Background(), c)
	second := do(t, context.Background(), c)
	if first.ConnReused || !second.ConnReused {
		t.Errorf("conn reused %v then %v, want false then true", first.ConnReused, second.ConnReused)
	}
}

func TestErrorMessageTruncated(t *testing.T) {
	url, _ := serve(t, script{status: 500, ctype: "text/plain", frames: []string{strings.Repeat("é", 1000)}})
	c, err := New(url)
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, context.Background(), c)
	if len(rec.ErrorMessage) > maxErrorMessage || !utf8.ValidString(rec.ErrorMessage) {
		t.Errorf("error message of %d bytes (valid UTF-8 %v), want <= %d", len(rec.ErrorMessage), utf8.ValidString(rec.ErrorMessage), maxErrorMessage)
	}
}

// TestStaleKeepAliveConnRetried: llama.cpp's server announces keep-alive
// but closes the connection after a streamed response, so the next request
// on the pooled connection finds it dead ("server closed idle connection"
// or EOF before any response byte). Such a request never reached the engine
// and must be sent again on a fresh connection, not recorded as an error.
func TestStaleKeepAliveConnRetried(t *testing.T) {
	type connKey struct{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		n := r.Context().Value(connKey{}).(*int)
		*n++
		if *n > 1 { // a reused connection: drop it without answering
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range []string{content("a"), finishChunk, usageChunk, doneFrame} {
			io.WriteString(w, f)
			w.(http.Flusher).Flush()
		}
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, new(int)) // requests read on c
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		rec := do(t, context.Background(), c)
		if rec.Status != loadgen.StatusOK || rec.OutputTokens != 3 {
			t.Fatalf("request %d: status %q/%q (%s), %d output tokens; want ok with 3", i, rec.Status, rec.ErrorKind, rec.ErrorMessage, rec.OutputTokens)
		}
		if i > 0 && rec.ConnReused {
			t.Errorf("request %d: conn_reused true, want false (it was answered on a fresh connection)", i)
		}
	}
}

// TestDoClientResourceError: a dial that fails for lack of the client's
// own resources (the process out of file descriptors, no ephemeral port)
// is the client's failure, ErrorClientResource, not the server's connect
// error (issue 25: at --rate 1e6, 16,368 "too many open files" counted as
// the server's connect errors). The errors are built as package net
// returns them from a failed socket(2) or connect(2).
func TestDoClientResourceError(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.EADDRNOTAVAIL} {
		t.Run(errno.Error(), func(t *testing.T) {
			var dials atomic.Int64
			hc := &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
				dials.Add(1)
				return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", errno)}
			}}}
			c, err := New("http://127.0.0.1:9", WithHTTPClient(hc))
			if err != nil {
				t.Fatal(err)
			}
			rec := do(t, context.Background(), c)
			if rec.Status != loadgen.StatusError || rec.ErrorKind != loadgen.ErrorClientResource {
				t.Errorf("status %q kind %q (%s), want error/%s", rec.Status, rec.ErrorKind, rec.ErrorMessage, loadgen.ErrorClientResource)
			}
			if !strings.Contains(rec.ErrorMessage, "nothing reached the server") {
				t.Errorf("message %q does not say the server was not reached", rec.ErrorMessage)
			}
			if dials.Load() == 0 {
				t.Error("the client never dialled")
			}
		})
	}
}

// TestExplicitCredentialsWin: an Authorization header beats credentials
// in the URL, which beat the API key; the key is sent only when neither
// is given, and two credentials are never merged (issue 25: an
// $OPENAI_API_KEY replaced an explicit --header Authorization and the
// URL's user:password, sending a user's OpenAI key to the benchmarked
// server).
func TestExplicitCredentialsWin(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, strings.Join(r.Header.Values("Authorization"), " | "))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, roleChunk+`data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"length"}]}`+"\n\n"+doneFrame)
	}))
	t.Cleanup(ts.Close)
	withCreds := strings.Replace(ts.URL, "http://", "http://user:URLPASS@", 1)
	for _, tc := range []struct {
		name string
		base string
		opts []Option
		want string
	}{
		{"header beats key", ts.URL, []Option{WithHeader("Authorization", "Bearer HEADERKEY"), WithAPIKey("ENVKEY")}, "Bearer HEADERKEY"},
		{"header beats URL", withCreds, []Option{WithHeader("authorization", "Bearer HEADERKEY"), WithAPIKey("ENVKEY")}, "Bearer HEADERKEY"},
		{"URL beats key", withCreds, []Option{WithAPIKey("ENVKEY")}, "Basic dXNlcjpVUkxQQVNT"},
		{"key alone", ts.URL, []Option{WithAPIKey("ENVKEY")}, "Bearer ENVKEY"},
	} {
		mu.Lock()
		got = nil
		mu.Unlock()
		c, err := New(tc.base, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		rec := do(t, context.Background(), c)
		if rec.Status != loadgen.StatusOK {
			t.Fatalf("%s: %s %s", tc.name, rec.Status, rec.ErrorMessage)
		}
		mu.Lock()
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: Authorization %q, want exactly %q", tc.name, got, tc.want)
		}
		mu.Unlock()
	}
}

// endlessLine serves, for a request whose prompt is "endless", an event
// stream whose second line never ends (the server writes until the
// client hangs up), and a normal short stream otherwise.
func endlessLine(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if !strings.Contains(string(body), "endless") {
			io.WriteString(w, roleChunk+`data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"length"}]}`+"\n\n"+doneFrame)
			return
		}
		io.WriteString(w, roleChunk+`data: {"choices":[{"index":0,"delta":{"content":"`)
		block := []byte(strings.Repeat("x", 32<<10))
		for {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestEndlessLineIsBounded: a stream line that never ends fails the
// request as line_too_long once it passes the line limit, or what the
// budget shared by all streams has left; the budget is given back when
// the stream ends, and the next request on the same client succeeds
// (issue 25: one endless line cost about 137 MB per stream, and the
// request failed as a disconnect).
func TestEndlessLineIsBounded(t *testing.T) {
	t.Parallel()
	url := endlessLine(t)
	for _, tc := range []struct {
		name string
		opts []Option
		msg  string
	}{
		{"line limit", []Option{WithMaxLineBytes(256 << 10)}, "longer than the 262144-byte limit"},
		{"budget", []Option{WithLineBudget(64 << 10)}, "budget shared by all streams"},
	} {
		c, err := New(url, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		clock := loadgen.NewClock(time.Now())
		rec := &loadgen.Record{}
		c.Do(context.Background(), clock, &loadgen.Request{Prompt: "endless", MaxTokens: 16}, rec)
		if rec.Status != loadgen.StatusError || rec.ErrorKind != loadgen.ErrorLineTooLong || !strings.Contains(rec.ErrorMessage, tc.msg) {
			t.Errorf("%s: %s/%s %q, want error/%s saying %q", tc.name, rec.Status, rec.ErrorKind, rec.ErrorMessage, loadgen.ErrorLineTooLong, tc.msg)
		}
		want := int64(DefaultLineBudget)
		if tc.name == "budget" {
			want = 64 << 10
		}
		spares := func() (n int, bytes int64) {
			c.lineBudget.mu.Lock()
			defer c.lineBudget.mu.Unlock()
			for _, b := range c.lineBudget.spare {
				bytes += int64(cap(b))
			}
			return len(c.lineBudget.spare), bytes
		}
		if n, kept := spares(); c.lineBudget.left.Load()+kept != want {
			t.Errorf("%s: budget left %d after the stream, %d spare buffers holding %d, want %d in all (all given back)", tc.name, c.lineBudget.left.Load(), n, kept, want)
		}
		// A second endless line reuses the spare full-size buffer rather
		// than allocating another (issue 25, second review: endless lines
		// request after request left garbage the budget did not count).
		c.Do(context.Background(), clock, &loadgen.Request{Prompt: "endless", MaxTokens: 16}, &loadgen.Record{})
		if n, kept := spares(); tc.name == "line limit" && (n != 1 || c.lineBudget.left.Load()+kept != want) {
			t.Errorf("%s: after a second endless line %d spare buffers, budget left %d + %d, want 1 spare and %d in all", tc.name, n, c.lineBudget.left.Load(), kept, want)
		}
		if rec := do(t, context.Background(), c); rec.Status != loadgen.StatusOK {
			t.Errorf("%s: the next request %s/%s %s, want ok", tc.name, rec.Status, rec.ErrorKind, rec.ErrorMessage)
		}
	}
	if _, err := New(url, WithMaxLineBytes(10)); err == nil || !strings.Contains(err.Error(), "at least 1024") {
		t.Errorf("WithMaxLineBytes(10): %v, want a refusal", err)
	}
}

// closingTransport stands in for a reused keep-alive connection that is
// closed under the request's write: it reports the connection (reused or
// not) to the request's trace, then fails the write as package net does.
type closingTransport struct {
	reused bool
	err    error
}

func (tr closingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if trace := httptrace.ContextClientTrace(r.Context()); trace != nil && trace.GotConn != nil {
		c1, c2 := net.Pipe()
		defer c1.Close()
		defer c2.Close()
		trace.GotConn(httptrace.GotConnInfo{Conn: c1, Reused: tr.reused})
	}
	return nil, tr.err
}

// TestClosedUnderWriteIsNotSent: a request whose reused keep-alive
// connection is closed under its write never reached the server: it is
// not_sent, not the server's disconnect (issue 25 item 12: "write tcp
// ...: use of closed network connection" after 1.75 s at 512 in flight
// against llama.cpp, counted among the server's failures). On a fresh
// connection the same error stays a disconnect.
func TestClosedUnderWriteIsNotSent(t *testing.T) {
	t.Parallel()
	closed := &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}
	pipe := &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
	for _, tc := range []struct {
		name   string
		tr     closingTransport
		kind   loadgen.ErrorKind
		reason string
	}{
		{"reused, closed locally", closingTransport{reused: true, err: closed}, loadgen.ErrorNotSent, "never reached the server"},
		{"reused, broken pipe", closingTransport{reused: true, err: pipe}, loadgen.ErrorNotSent, "never reached the server"},
		{"fresh connection", closingTransport{reused: false, err: closed}, loadgen.ErrorDisconnect, ""},
	} {
		c, err := New("http://127.0.0.1:9", WithHTTPClient(&http.Client{Transport: tc.tr}))
		if err != nil {
			t.Fatal(err)
		}
		rec := do(t, context.Background(), c)
		if rec.ErrorKind != tc.kind || !strings.Contains(rec.ErrorMessage, tc.reason) {
			t.Errorf("%s: %s %q, want %s saying %q", tc.name, rec.ErrorKind, rec.ErrorMessage, tc.kind, tc.reason)
		}
	}
}

// TestMaxConnectionsBoundsTheConnections: with WithMaxConnections(2),
// eight concurrent requests share at most two connections, idle ones
// included (issue 25 item 1: with the open-file limit at 512 and 384
// requests in flight, 1,916 dials still failed with EMFILE: the pool held
// idle connections beyond the requests in flight).
func TestMaxConnectionsBoundsTheConnections(t *testing.T) {
	t.Parallel()
	var open, peak atomic.Int64
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(20 * time.Millisecond)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, roleChunk+`data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"length"}]}`+"\n\n"+doneFrame)
	}))
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			n := open.Add(1)
			for m := peak.Load(); n > m && !peak.CompareAndSwap(m, n); m = peak.Load() {
			}
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	c, err := New(ts.URL, WithMaxConnections(2))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if rec := do(t, context.Background(), c); rec.Status != loadgen.StatusOK {
				t.Errorf("%s %s", rec.Status, rec.ErrorMessage)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 2 {
		t.Errorf("%d connections open at once, want at most 2", p)
	}
}
