package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/mockserver"
)

// startTokenizeMock serves the built-in mock (which counts words) on
// loopback and returns a Client for it.
func startTokenizeMock(t *testing.T, cfg mockserver.Config) *Client {
	t.Helper()
	s, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	url, err := s.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(url, WithModel(mockserver.DefaultModel))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTokenCounterMock(t *testing.T) {
	t.Parallel()
	c := startTokenizeMock(t, mockserver.Config{})
	tc, err := c.TokenCounter(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := tc.API().String(); got != "vllm POST /tokenize" {
		t.Errorf("API %q, want vllm POST /tokenize", got)
	}
	n, err := tc.Count(t.Context(), "five words in this text")
	if err != nil || n != 5 {
		t.Errorf("Count = %d, %v; want 5 (the mock counts words)", n, err)
	}
}

func TestTokenCounterNone(t *testing.T) {
	t.Parallel()
	c := startTokenizeMock(t, mockserver.Config{NoTokenize: true})
	_, err := c.TokenCounter(t.Context())
	if !errors.Is(err, ErrNoTokenize) {
		t.Fatalf("err = %v, want ErrNoTokenize", err)
	}
	var se *StatusError
	if !errors.As(err, &se) || se.Status != http.StatusNotFound || se.Method != http.MethodPost {
		t.Errorf("err = %v, want a POST 404 among the answers", err)
	}
}

// TestTokenCounterShapes: a llama.cpp-shaped, an SGLang-shaped and a
// TGI-shaped server on loopback are each found and asked in their own
// shape (llama.cpp's with add_special, as its /completion adds a BOS).
func TestTokenCounterShapes(t *testing.T) {
	t.Parallel()
	words := func(s string) int { return len(strings.Fields(s)) }
	for _, tc := range []struct {
		api     string
		handler http.HandlerFunc
	}{
		{"llama.cpp POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Content    *string `json:"content"`
				AddSpecial bool    `json:"add_special"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			if r.URL.Path != "/tokenize" || req.Content == nil {
				http.Error(w, `{"error":{"code":500,"message":"\"content\" must be provided"}}`, http.StatusInternalServerError)
				return
			}
			ids := make([]int, words(*req.Content))
			if req.AddSpecial {
				ids = append(ids, 1) // a BOS
			}
			json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
		}},
		{"sglang POST /v1/tokenize", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Prompt string `json:"prompt"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			if r.URL.Path != "/v1/tokenize" {
				http.NotFound(w, r)
				return
			}
			n := words(req.Prompt)
			json.NewEncoder(w).Encode(map[string]any{"count": n, "tokens": make([]int, n), "max_model_len": 4096})
		}},
		{"tgi POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Inputs *string `json:"inputs"`
			}
			b, _ := io.ReadAll(r.Body)
			json.Unmarshal(b, &req)
			if req.Inputs == nil {
				http.Error(w, "Failed to deserialize the JSON body", http.StatusUnprocessableEntity)
				return
			}
			toks := []map[string]any{}
			for i, f := range strings.Fields(*req.Inputs) {
				toks = append(toks, map[string]any{"id": i, "text": f, "start": 0, "stop": 0})
			}
			json.NewEncoder(w).Encode(toks)
		}},
	} {
		t.Run(tc.api, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			c, err := New(srv.URL, WithModel("m"))
			if err != nil {
				t.Fatal(err)
			}
			counter, err := c.TokenCounter(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got := counter.API().String(); got != tc.api {
				t.Errorf("API %q, want %q", got, tc.api)
			}
			want := 3
			if strings.HasPrefix(tc.api, "llama.cpp") {
				want = 4 // the BOS that add_special adds
			}
			if n, err := counter.Count(t.Context(), "one two three"); err != nil || n != want {
				t.Errorf("Count = %d, %v; want %d", n, err, want)
			}
		})
	}
}

func TestParseTokenizeResponse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
		err  string
	}{
		{`{"count":3,"max_model_len":4096,"tokens":[1,2,3]}`, 3, ""},
		{`{"count":2}`, 2, ""},
		{`{"tokens":[9,8,7,6]}`, 4, ""},
		{`{"tokens":[{"id":1,"piece":"a"},{"id":2,"piece":[255]}]}`, 2, ""},
		{`[{"id":1,"text":"a","start":0,"stop":1}]`, 1, ""},
		{`{"tokens":[]}`, 0, ""},
		{`{"count":3,"tokens":[1]}`, 0, "count 3 but 1 tokens"},
		{`{"count":-1}`, 0, "negative"},
		{`{"error":"x"}`, 0, `neither "count" nor "tokens"`},
		{`<html>`, 0, "tokenize answer"},
	} {
		n, err := ParseTokenizeResponse([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || n != tc.want {
			t.Errorf("%s: %d, %v; want %d", tc.in, n, err, tc.want)
		}
	}
}

// FuzzParseTokenizeResponse: the tokenize answer parser never panics, and
// a count it returns is never negative.
func FuzzParseTokenizeResponse(f *testing.F) {
	for _, s := range []string{
		`{"count":3,"max_model_len":4096,"tokens":[1,2,3]}`,
		`{"tokens":[{"id":1,"piece":"a"}]}`,
		`[{"id":1,"text":"a","start":0,"stop":1}]`,
		`{"count":-5}`, `[`, ``, `null`, `{"tokens":null,"count":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseTokenizeResponse(b)
		if err == nil && n < 0 {
			t.Fatalf("count %d < 0 for %q", n, b)
		}
	})
}

// TestChatTokenCounter: on the mock (vLLM's messages shape, its stand-in
// template adding tokens per message) and on a llama.cpp-shaped server
// (/apply-template, then /tokenize with special tokens parsed), the chat
// count includes the template.
func TestChatTokenCounter(t *testing.T) {
	t.Parallel()
	c := startTokenizeMock(t, mockserver.Config{ChatTemplateTokens: 7})
	tc, err := c.ChatTokenCounter(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tc.Count(t.Context(), "one two three"); err != nil || n != 10 || tc.API().String() != "vllm POST /tokenize (messages)" {
		t.Errorf("mock: %d, %v via %s; want 10 (3 words and 7 template tokens) via vllm messages", n, err, tc.API())
	}

	mux := http.NewServeMux()
	mux.HandleFunc("POST /apply-template", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		json.NewEncoder(w).Encode(map[string]string{"prompt": "<|im_start|>user\n" + req.Messages[0].Content + "<|im_end|>\n<|im_start|>assistant\n"})
	})
	mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Content      *string `json:"content"`
			ParseSpecial bool    `json:"parse_special"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Content == nil {
			json.NewEncoder(w).Encode(map[string]any{"tokens": []int{}}) // llama.cpp's answer to vLLM's body
			return
		}
		text := *req.Content
		n := 0
		if req.ParseSpecial {
			n = strings.Count(text, "<|im_start|>") + strings.Count(text, "<|im_end|>")
			text = strings.NewReplacer("<|im_start|>", " ", "<|im_end|>", " ").Replace(text)
		}
		n += len(strings.Fields(text))
		json.NewEncoder(w).Encode(map[string]any{"tokens": make([]int, n)})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	lc, err := New(srv.URL, WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	tc, err = lc.ChatTokenCounter(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// 3 words, 3 special tokens, "user" and "assistant".
	if n, err := tc.Count(t.Context(), "one two three"); err != nil || n != 8 || tc.API().String() != "llama.cpp POST /apply-template, POST /tokenize" {
		t.Errorf("llama.cpp: %d, %v via %s; want 8 via /apply-template", n, err, tc.API())
	}
}

// TestTokenCounterBadServers (issue 27 review): a count of 1e15 tokens
// is refused as implausible, not taken as a length prompts need; a
// tokenize endpoint that does not answer before ctx ends gives an error
// naming the endpoint and wrapping the deadline, not a bare "context
// deadline exceeded".
func TestTokenCounterBadServers(t *testing.T) {
	t.Parallel()
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"count":1000000000000000}`)
	}))
	t.Cleanup(huge.Close)
	c, err := New(huge.URL, WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.TokenCounter(t.Context()); err == nil || !strings.Contains(err.Error(), "implausible count, 1000000000000000 tokens") {
		t.Errorf("a count of 1e15: %v, want it refused as implausible", err)
	}
	done := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server sees the client go
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(done) })
	c, err = New(hung.URL, WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err = c.TokenCounter(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), hung.URL+"/tokenize") {
		t.Errorf("a tokenize endpoint that never answers: %v, want the endpoint named and the deadline wrapped", err)
	}
}

func TestParseContextWindow(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{
		`{"n_ctx":4096}`: 4096, `{"default_generation_settings":{"n_ctx":512,"params":{}}}`: 512,
		`{"count":3,"max_model_len":32768,"tokens":[1,2,3]}`: 32768, `{"count":3}`: 0, `{"n_ctx":-5}`: 0, `{"n_ctx":2.5}`: 0, `<html>`: 0,
	} {
		if n, ok := ParseContextWindow([]byte(in)); n != want || ok != (want > 0) {
			t.Errorf("%s: %d, %v; want %d", in, n, ok, want)
		}
	}
}
