package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// cachedTokens sends prompt to the mock at url twice and returns the
// second answer's usage.prompt_tokens_details.cached_tokens.
func cachedTokens(t *testing.T, url, prompt string) int {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "mock-model", "prompt": prompt, "max_tokens": 1})
	var cached int
	for range 2 {
		resp, err := http.Post(url+"/v1/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Usage struct {
				Details *struct {
					CachedTokens int `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, %v", resp.StatusCode, err)
		}
		cached = 0
		if out.Usage.Details != nil {
			cached = out.Usage.Details.CachedTokens
		}
	}
	return cached
}

// TestMockPrefixCacheSize: what issue 28 saw: "the in-process prefix
// cache holds only 65k tokens (demo-cache), less than one large Mooncake
// prompt, and run has no flag for its size". --mock-prefix-cache sizes
// it: a 100,000-token prompt sent twice is cached whole the second time,
// where the preset's 65,536 tokens cannot hold it.
func TestMockPrefixCacheSize(t *testing.T) {
	w := make([]string, 100_000)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", i)
	}
	prompt := strings.Join(w, " ")
	for _, tt := range []struct {
		preset string
		tokens int
		want   func(int) bool
	}{
		{"instant", 200_000, func(n int) bool { return n == 100_000 }},
		{"instant", 0, func(n int) bool { return n == 0 }}, // no cache in the preset
	} {
		m, err := startEmbeddedMock(context.Background(), tt.preset, tt.tokens, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cachedTokens(t, m.URL, prompt); !tt.want(got) {
			t.Errorf("%s with --mock-prefix-cache %d: %d tokens cached", tt.preset, tt.tokens, got)
		}
		m.Close()
	}
}
