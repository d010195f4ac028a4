package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestRunEndpointPath: --endpoint takes the spellings of its help text
// ("chat" among them) and sends to the matching path. "chat" used to reach
// openai.WithEndpoint unconverted and was refused.
func TestRunEndpointPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ endpoint, path string }{
		{"completions", "/v1/completions"},
		{"chat", "/v1/chat/completions"},
	} {
		t.Run(tt.endpoint, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			paths := map[string]int{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				mu.Lock()
				paths[r.URL.Path]++
				mu.Unlock()
				if r.URL.Path == "/v1/models" {
					io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","delta":{"content":"a"},"finish_reason":"length"}]}`+"\n\n")
				io.WriteString(w, `data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}}`+"\n\n")
				io.WriteString(w, "data: [DONE]\n\n")
			}))
			t.Cleanup(srv.Close)
			var stderr bytes.Buffer
			e := env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" }}
			err := runRun(context.Background(), e, []string{
				"--target", srv.URL, "--endpoint", tt.endpoint, "--profile", "concurrent", "--rate", "1",
				"--max-requests", "2", "--data", "prompt_tokens=4,output_tokens=1", "--energy", "none",
				"--output-dir", t.TempDir(), "--run-id", "r", "--format", "json", "--quiet",
			})
			if err != nil {
				t.Fatalf("run --endpoint %s: %v\n%s", tt.endpoint, err, stderr.String())
			}
			mu.Lock()
			defer mu.Unlock()
			if paths[tt.path] != 2 {
				t.Errorf("--endpoint %s: requests by path %v, want 2 to %s", tt.endpoint, paths, tt.path)
			}
		})
	}
}
