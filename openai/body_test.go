package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/internal/jsonstring"
)

func TestRequestBody(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"completions defaults", []Option{WithModel("m")},
			`{"model":"m","prompt":"hello","max_tokens":16,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true,"temperature":0}`},
		{"chat defaults", []Option{WithModel("m"), WithEndpoint(Chat)},
			`{"model":"m","messages":[{"role":"user","content":"hello"}],"max_tokens":16,"max_completion_tokens":16,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true,"temperature":0}`},
		{"ignore_eos off, min_tokens fixed, temperature", []Option{WithIgnoreEOS(false), WithMinTokens(4), WithTemperature(0.5)},
			`{"prompt":"hello","max_tokens":16,"min_tokens":4,"stream":true,"stream_options":{"include_usage":true},"temperature":0.5}`},
		{"min_tokens from max_tokens", []Option{WithMinTokens(MinTokensFromMax)},
			`{"prompt":"hello","max_tokens":16,"min_tokens":16,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true,"temperature":0}`},
		{"no stream", []Option{WithStream(false)},
			`{"prompt":"hello","max_tokens":16,"stream":false,"ignore_eos":true,"temperature":0}`},
		{"extra body wins over every default", []Option{WithModel("m"), WithEndpoint(Chat), WithExtraBody(json.RawMessage(`{"max_tokens":3,"temperature":1,"model":"other","top_p":0.9,"ignore_eos":false}`))},
			`{"model":"other","messages":[{"role":"user","content":"hello"}],"max_tokens":3,"max_completion_tokens":16,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":false,"temperature":1,"top_p":0.9}`},
		{"extra body that replaces the prompt", []Option{WithExtraBody(json.RawMessage(`{"prompt":"fixed","cache_prompt":false}`))},
			`{"prompt":"fixed","max_tokens":16,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true,"temperature":0,"cache_prompt":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, body := serve(t, script{frames: []string{doneFrame}})
			c, err := New(url, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			do(t, context.Background(), c)
			var got, want map[string]any
			if err := json.Unmarshal(body(), &got); err != nil {
				t.Fatalf("body %s: %v", body(), err)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("body\n%s\nwant\n%s", body(), tt.want)
			}
		})
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote \" back \\ nl \n tab \t cr \r", "\x00\x1f<>&", "你好 🙂", "bad \xff utf8"} {
		var got string
		if err := json.Unmarshal(jsonstring.Append(nil, s), &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		want, _ := json.Marshal(s)
		var w string
		json.Unmarshal(want, &w)
		if got != w {
			t.Errorf("%q round-trips to %q, want %q", s, got, w)
		}
	}
}

func TestHeaders(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("path %s, want /v1/chat/completions", r.URL.Path)
		}
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/v1/", WithEndpoint(Chat), WithAPIKey("sk-secret"), WithHeader("X-Tenant", "a"))
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, context.Background(), c)
	if got.Get("Authorization") != "Bearer sk-secret" || got.Get("X-Tenant") != "a" || got.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", got)
	}
	if b, _ := json.Marshal(rec); strings.Contains(string(b), "sk-secret") {
		t.Errorf("record carries the API key: %s", b)
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	tests := []struct {
		name string
		url  string
		opts []Option
	}{
		{"no scheme", "localhost:8000", nil},
		{"a nil option", "http://h", []Option{nil}},
		{"ftp", "ftp://host", nil},
		{"extra body not an object", "http://h", []Option{WithExtraBody(json.RawMessage("[1]"))}},
		{"extra body null", "http://h", []Option{WithExtraBody(json.RawMessage("null"))}},
		{"negative timeout", "http://h", []Option{WithRequestTimeout(-1)}},
		{"zero concurrency", "http://h", []Option{WithMaxConcurrency(0)}},
		{"bad endpoint", "http://h", []Option{WithEndpoint("embeddings")}},
		{"an endpoint, not a base URL", "http://h:8000/v1/completions", nil},
		{"the chat endpoint", "http://h:8000/v1/chat/completions/", nil},
	}
	for _, tt := range tests {
		if _, err := New(tt.url, tt.opts...); err == nil {
			t.Errorf("%s: New succeeded, want an error", tt.name)
		}
	}
}

func TestNormalizeBase(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8000":         "http://h:8000",
		"http://h:8000/":        "http://h:8000",
		"http://h:8000/v1":      "http://h:8000",
		"http://h:8000/v1/":     "http://h:8000",
		"https://h/proxy/v1":    "https://h/proxy",
		"http://h:8000/v1?x=1":  "http://h:8000",
		"http://h:8000/prefix/": "http://h:8000/prefix",
	} {
		if got, err := normalizeBase(in); err != nil || got != want {
			t.Errorf("normalizeBase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestModelsAndHealth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			w.Write([]byte(`{"object":"list","data":[{"id":"tiny-qwen3","object":"model"},{"id":"b","object":"model"}]}`))
		case "/health":
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c, err := New(srv.URL + "/v1")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := c.Models(context.Background())
	if err != nil || !reflect.DeepEqual(ids, []string{"tiny-qwen3", "b"}) {
		t.Errorf("Models = %v, %v", ids, err)
	}
	if err := c.Health(context.Background()); err != nil {
		t.Errorf("Health: %v", err)
	}
	bad, _ := New(srv.URL + "/nothing")
	if _, err := bad.Models(context.Background()); err == nil {
		t.Error("Models on a 404 succeeded")
	}
}
