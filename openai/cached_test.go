package openai_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
)

// The mock's cached-tokens, response-cost and usage-cost faults: the
// client records usage.prompt_tokens_details.cached_tokens, and
// x-litellm-response-cost or else usage.cost, streaming or not, and
// refuses a cached count above the prompt's.
func TestCachedTokensAndResponseCost(t *testing.T) {
	s, err := mockserver.New(mockserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	url, err := s.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	prompt := strings.Repeat("word ", 40) // 40 prompt tokens for the mock
	for _, tc := range []struct {
		name, fault string
		stream      bool
		cached      int
		cost        float64
		hasCost     bool
		rejected    string
	}{
		{"stream", "cached-tokens=24,response-cost=0.000123", true, 24, 0.000123, true, ""},
		{"whole body", "cached-tokens=24", false, 24, 0, false, ""},
		{"capped at the prompt by the mock", "cached-tokens=1000", true, 40, 0, false, ""},
		{"no cached tokens sent", "response-cost=0", true, 0, 0, true, ""},
		{"stream, cost in usage (LiteLLM)", "usage-cost=0.0000129", true, 0, 0.0000129, true, ""},
		{"whole body, cost in usage (OpenRouter)", "usage-cost=0.25", false, 0, 0.25, true, ""},
		{"the header wins over usage", "response-cost=0.5,usage-cost=0.25", true, 0, 0.5, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := openai.New(url, openai.WithStream(tc.stream), openai.WithHeader(mockserver.FaultHeader, tc.fault))
			if err != nil {
				t.Fatal(err)
			}
			clock := loadgen.NewClock(time.Now())
			req := &loadgen.Request{Prompt: prompt, MaxTokens: 8}
			rec := &loadgen.Record{SentAt: clock.Now()}
			c.Do(context.Background(), clock, req, rec)
			if rec.Status != loadgen.StatusOK || rec.ServerPromptTokens != 40 {
				t.Fatalf("record %+v", rec)
			}
			if rec.CachedPromptTokens() != tc.cached || rec.UsageRejected != tc.rejected {
				t.Errorf("cached %d (rejected %q), want %d", rec.CachedPromptTokens(), rec.UsageRejected, tc.cached)
			}
			if (rec.ResponseCost != nil) != tc.hasCost || tc.hasCost && *rec.ResponseCost != tc.cost {
				t.Errorf("response cost %v, want %v (%v)", rec.ResponseCost, tc.cost, tc.hasCost)
			}
		})
	}
}

// Two responses of a real LiteLLM 1.108.7 proxy in front of llama-server
// (testdata/telemetry/litellm-1.108.7-*.http, replayed as captured): the
// stream has no cost header and gives its cost in its last chunk's usage;
// the whole body gives it in x-litellm-response-cost. Both cost 1.29e-05
// (5 prompt tokens, 4 of them cached, and 8 output tokens at 0.50, 0.10 and
// 1.50 per 1M).
func TestLiteLLMRealResponses(t *testing.T) {
	for _, tc := range []struct {
		file   string
		stream bool
	}{{"litellm-1.108.7-stream.http", true}, {"litellm-1.108.7-body.http", false}} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "testdata", "telemetry", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
			if !ok {
				t.Fatal("no blank line after the headers")
			}
			hasCostHeader := bytes.Contains(bytes.ToLower(head), []byte("\n"+openai.ResponseCostHeader+":"))
			if hasCostHeader == tc.stream {
				t.Fatalf("cost header %v on a stream %v", hasCostHeader, tc.stream)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for _, line := range strings.Split(string(head), "\r\n")[1:] {
					k, v, _ := strings.Cut(line, ": ")
					switch strings.ToLower(k) {
					case "transfer-encoding", "content-length", "date":
					default:
						w.Header().Add(k, v)
					}
				}
				w.Write(body)
			}))
			defer srv.Close()
			c, err := openai.New(srv.URL, openai.WithModel("tiny-qwen3"), openai.WithStream(tc.stream))
			if err != nil {
				t.Fatal(err)
			}
			clock := loadgen.NewClock(time.Now())
			rec := &loadgen.Record{SentAt: clock.Now()}
			c.Do(context.Background(), clock, &loadgen.Request{Prompt: "hello world how are you", MaxTokens: 8}, rec)
			if rec.Status != loadgen.StatusOK || rec.ServerPromptTokens != 5 || rec.ServerOutputTokens != 8 || rec.CachedPromptTokens() != 4 {
				t.Fatalf("record %+v", rec)
			}
			if rec.ResponseCost == nil || *rec.ResponseCost != 1.29e-05 {
				t.Errorf("response cost %v, want 1.29e-05", rec.ResponseCost)
			}
		})
	}
}
