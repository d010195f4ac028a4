package openai_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
)

// The mock's cached-tokens and response-cost faults: the client records
// usage.prompt_tokens_details.cached_tokens and x-litellm-response-cost,
// streaming or not, and refuses a cached count above the prompt's.
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
