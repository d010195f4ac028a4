package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// usageFrame is a usage-only chunk whose completion_tokens member is v
// (raw JSON).
func usageFrame(v string) string {
	return `data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":` + v + `}}` + "\n\n"
}

// TestDoWithoutTokens: a 200 that carries no token is never a success
// (not_sse or empty_response), and impossible usage values are rejected
// with a note instead of being stored. Each case is an answer a server
// was seen giving, which the client counted as ok.
func TestDoWithoutTokens(t *testing.T) {
	const html = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>" +
		"<form action=\"/login\">" + "\x00\x1b" + "</form></body></html>\n"
	empty := func(msg string) want {
		return want{status: "error", kind: "empty_response", msg: msg, http: 200, outSrc: "chunks", prompt: 7, promptSrc: "dataset", firstContent: -1}
	}
	notSSE := func(msg string) want {
		w := empty(msg)
		w.kind = "not_sse"
		return w
	}
	tests := []struct {
		name string
		s    script
		want want
	}{
		{"HTML page", script{ctype: "text/html; charset=utf-8", frames: []string{html}},
			notSSE(`HTTP 200 body is not an event stream (Content-Type "text/html; charset=utf-8"): "<!DOCTYPE html>\n<html><head><title>Sign in`)},
		{"HTML page labelled text/event-stream", script{frames: []string{html}},
			notSSE(`(Content-Type "text/event-stream"): "<!DOCTYPE html>\n`)},
		{"JSON completion to a streaming request", script{ctype: "application/json", frames: []string{`{"id":"x","object":"text_completion","choices":[{"text":"hi","finish_reason":"length"}]}`}},
			notSSE(`(Content-Type "application/json"): "{\"id\":\"x\"`)},
		{"JSON status object", script{ctype: "application/json", frames: []string{`{"status":"ok"}`}},
			notSSE(`"{\"status\":\"ok\"}"`)},
		{"plain text", script{ctype: "text/plain; charset=utf-8", frames: []string{"OK\n"}},
			notSSE(`(Content-Type "text/plain; charset=utf-8"): "OK\n"`)},
		{"empty body without Content-Type", script{ctype: "none"},
			notSSE(`HTTP 200 with an empty body (Content-Type ""), not an event stream`)},
		{"empty body with text/plain", script{ctype: "text/plain", frames: []string{"\n\n"}},
			notSSE(`empty body (Content-Type "text/plain")`)},
		{"empty event stream", script{},
			empty("the stream ended (EOF) after 0 events, none carrying a token")},
		{"data: null only", script{frames: []string{"data: null\n\n", "data: null\n\n", doneFrame}},
			empty("the stream ended ([DONE]) after 3 events, none carrying a token")},
		{`{"choices":null} only`, script{frames: []string{`data: {"choices":null}` + "\n\n", `data: {"choices":null}` + "\n\n", doneFrame}},
			empty("after 3 events, none carrying a token")},
		{`{"error":null} only`, script{frames: []string{`data: {"error":null}` + "\n\n", `data: {"error":null}` + "\n\n"}},
			empty("the stream ended (EOF) after 2 events")},
		{"role chunk, finish and usage, no text", script{frames: []string{roleChunk, finishChunk, usageChunk, doneFrame}},
			// The server's claim is kept in server_output_tokens, not used.
			want{status: "error", kind: "empty_response", msg: `after 4 events, none carrying a token, finish_reason "length", usage.completion_tokens 3`,
				http: 200, outSrc: "chunks", prompt: 5, promptSrc: "server", finish: "length", firstContent: -1}},
		{"null events among tokens", script{frames: []string{"data: null\n\n", content("a"), `data: {"choices":null}` + "\n\n", `data: {"error":null}` + "\n\n", content("b"), doneFrame}},
			want{status: "ok", chunks: 2, out: 2, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		// A reviewer saw this stream recorded ok with 1 of 64 tokens.
		{"vLLM error object after a token", script{frames: []string{content("a"), `data: {"object":"error","message":"boom","code":500}` + "\n\n"}},
			want{status: "error", kind: "stream_error", msg: "boom", http: 200, chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"tokens, then EOF without finish_reason or [DONE]", script{frames: []string{content("a"), content("b")}},
			want{status: "error", kind: "disconnect", msg: "after 2 token chunks with neither a finish_reason nor [DONE]: cut short", http: 200, chunks: 2, out: 2, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"tokens and finish_reason, no [DONE]", script{frames: []string{content("a"), finishChunk}},
			want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset", finish: "length"}},
		{"byte order mark before the first event", script{frames: []string{"\xef\xbb\xbf" + content("a"), doneFrame}},
			want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"SSE body with a text/plain Content-Type", script{ctype: "text/plain", frames: []string{content("a"), doneFrame}},
			want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset"}},
		{"negative completion_tokens", script{frames: []string{content("a"), content("b"), usageFrame("-7"), doneFrame}},
			want{status: "ok", chunks: 2, out: 2, outSrc: "chunks", prompt: 5, promptSrc: "server", rejected: "usage.completion_tokens -7 is negative"}},
		{"absurd completion_tokens", script{frames: []string{content("a"), usageFrame("99999999999"), doneFrame}},
			want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 5, promptSrc: "server", rejected: "usage.completion_tokens 99999999999 exceeds 16777216"}},
		{"fractional completion_tokens", script{frames: []string{content("a"), usageFrame("7.5"), doneFrame}},
			want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 5, promptSrc: "server", rejected: "usage.completion_tokens 7.5 is not a token count"}},
		{"string completion_tokens", script{frames: []string{content("a"), usageFrame(`"8"`), doneFrame}},
			want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 5, promptSrc: "server", rejected: `usage.completion_tokens "8" is not a token count`}},
		{"completion_tokens 0 beside text", script{frames: []string{content("a"), usageFrame("0"), doneFrame}},
			want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 5, promptSrc: "server", rejected: "usage.completion_tokens is 0 but generated text arrived"}},
		{"whole number as a float", script{frames: []string{content("a"), usageFrame("3e0"), doneFrame}},
			want{status: "ok", chunks: 1, out: 3, outSrc: "server", prompt: 5, promptSrc: "server"}},
		{"negative prompt_tokens", script{frames: []string{content("a"), `data: {"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":1}}` + "\n\n", doneFrame}},
			want{status: "ok", chunks: 1, out: 1, outSrc: "server", prompt: 7, promptSrc: "dataset", rejected: "usage.prompt_tokens -1 is negative"}},
		{"both counts impossible", script{frames: []string{content("a"), `data: {"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":-2}}` + "\n\n", doneFrame}},
			want{status: "ok", chunks: 1, out: 1, outSrc: "chunks", prompt: 7, promptSrc: "dataset", rejected: "usage.prompt_tokens -1 is negative; usage.completion_tokens -2 is negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := serve(t, tt.s)
			c, err := New(url)
			if err != nil {
				t.Fatal(err)
			}
			rec := do(t, context.Background(), c)
			check(t, rec, tt.want)
			if rec.ServerOutputTokens < 0 || rec.OutputTokens < 0 || rec.ServerPromptTokens < 0 || rec.PromptTokens < 0 {
				t.Errorf("a negative count was stored: %+v", rec)
			}
		})
	}
}

// TestDoWithoutTokensNonStreaming: --no-stream answers without generated
// text are empty_response; a body that is not JSON stays a decode error.
func TestDoWithoutTokensNonStreaming(t *testing.T) {
	tests := []struct {
		name string
		s    script
		want want
	}{
		{"JSON without choices", script{ctype: "application/json", frames: []string{`{"status":"ok"}`}},
			want{status: "error", kind: "empty_response", msg: `the response body carried no generated text: "{\"status\":\"ok\"}"`, http: 200, outSrc: "", prompt: 7, promptSrc: "dataset"}},
		{"JSON null", script{ctype: "application/json", frames: []string{"null"}},
			want{status: "error", kind: "empty_response", msg: "no generated text", http: 200, prompt: 7, promptSrc: "dataset"}},
		{"empty body", script{ctype: "none"},
			want{status: "error", kind: "empty_response", msg: "HTTP 200 with an empty body", http: 200, prompt: 7, promptSrc: "dataset"}},
		{"empty text with usage", script{ctype: "application/json", frames: []string{`{"choices":[{"text":"","finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":1}}`}},
			want{status: "error", kind: "empty_response", msg: `no generated text, finish_reason "stop", usage.completion_tokens 1`, http: 200, prompt: 4, promptSrc: "server", finish: "stop"}},
		{"HTML page", script{ctype: "text/html", frames: []string{"<html></html>"}},
			want{status: "error", kind: "decode", msg: "<html>", http: 200, prompt: 7, promptSrc: "dataset"}},
		{"negative completion_tokens", script{ctype: "application/json", frames: []string{`{"choices":[{"text":"hi"}],"usage":{"prompt_tokens":4,"completion_tokens":-7}}`}},
			want{status: "ok", prompt: 4, promptSrc: "server", rejected: "usage.completion_tokens -7 is negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := serve(t, tt.s)
			c, err := New(url, WithStream(false))
			if err != nil {
				t.Fatal(err)
			}
			rec := do(t, context.Background(), c)
			check(t, rec, tt.want)
		})
	}
}

// TestQuoteBody: the quoted body is one bounded line.
func TestQuoteBody(t *testing.T) {
	long := strings.Repeat("é", 200)
	got := quoteBody([]byte(long))
	if strings.ContainsAny(got, "\n\r") || !strings.HasSuffix(got, "…") || len(got) > maxBodyQuote+8 {
		t.Errorf("quoteBody of 400 bytes: %q", got)
	}
	if got := quoteBody([]byte("a\nb\x00\xff")); got != `"a\nb\x00\xff"` {
		t.Errorf("quoteBody: %s", got)
	}
}

// TestSSENotAnEventStream: the reader stops at a first line that is not
// an SSE line, whatever the read sizes, and keeps the body's first bytes.
func TestSSENotAnEventStream(t *testing.T) {
	tests := []struct {
		body   string
		notSSE bool
	}{
		{"<html>\n<body>", true},
		{"\n\r\n{\"a\":1}", true},
		{"OK", true},
		{"Data: x\n\n", true}, // field names are case-sensitive
		{"data: x\n\n<html>", false},
		{": comment\n<html>\n\n", false},
		{"event: e\n\n", false},
		{"id\n\n", false},
		{"retry: 1\n\n", false},
		{"\xef\xbb\xbfdata: x\n\n", false},
		{"", false},
	}
	for _, tt := range tests {
		for _, split := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.body)
			if split {
				r = iotest.OneByteReader(r)
			}
			var s sseReader
			s.reset(r)
			var err error
			for err == nil {
				_, err = s.next()
			}
			if got := errors.Is(err, errNotSSE); got != tt.notSSE {
				t.Errorf("%q (split %v): error %v, want not an event stream %v", tt.body, split, err, tt.notSSE)
				continue
			}
			if tt.notSSE {
				if head := strings.TrimLeft(tt.body, "\r\n"); !bytes.HasPrefix([]byte(head), s.notSSE()) || len(s.notSSE()) == 0 {
					t.Errorf("%q (split %v): head %q", tt.body, split, s.notSSE())
				}
				if _, err := s.next(); err != errNotSSE {
					t.Errorf("%q: next after errNotSSE: %v", tt.body, err)
				}
			}
		}
	}
}

// An impossible cached count (above the prompt's, negative, not a number)
// is refused with a note, like the other usage counts.
func TestCachedTokensRejected(t *testing.T) {
	for _, tc := range []struct{ details, note string }{
		{`{"cached_tokens":9}`, "usage.prompt_tokens_details.cached_tokens 9 exceeds usage.prompt_tokens 5"},
		{`{"cached_tokens":-1}`, "usage.prompt_tokens_details.cached_tokens -1 is negative"},
		{`{"cached_tokens":"3"}`, `usage.prompt_tokens_details.cached_tokens "3" is not a token count`},
		{`{"cached_tokens":3}`, ""},
		{`null`, ""},
	} {
		frame := `data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":` + tc.details + `}}` + "\n\n"
		url, _ := serve(t, script{frames: []string{content("a"), frame, doneFrame}})
		c, err := New(url)
		if err != nil {
			t.Fatal(err)
		}
		rec := do(t, context.Background(), c)
		want := 0
		if tc.note == "" && tc.details != "null" {
			want = 3
		}
		if rec.Status != "ok" || rec.UsageRejected != tc.note || rec.CachedPromptTokens() != want || rec.ServerPromptTokens != 5 {
			t.Errorf("%s: status %s, cached %d, rejected %q; want %d, %q", tc.details, rec.Status, rec.CachedPromptTokens(), rec.UsageRejected, want, tc.note)
		}
	}
}
