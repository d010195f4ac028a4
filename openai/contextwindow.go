package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// ParseContextWindow reads a model's context window, in tokens, from a
// server's answer: llama.cpp's GET /props ("n_ctx", or
// "default_generation_settings.n_ctx", as its versions differ) or vLLM's
// POST /tokenize ("max_model_len"). It reports false when the answer holds
// none of these as a positive whole number.
func ParseContextWindow(b []byte) (int, bool) {
	var v struct {
		NCtx     int64 `json:"n_ctx"`
		MaxLen   int64 `json:"max_model_len"`
		Settings struct {
			NCtx int64 `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, false
	}
	for _, n := range []int64{v.NCtx, v.Settings.NCtx, v.MaxLen} {
		if n > 0 && n <= 1<<40 {
			return int(n), true
		}
	}
	return 0, false
}

// ContextWindow asks the server for the served model's context window, in
// tokens: llama.cpp's GET /props, else vLLM's POST /tokenize (whose answer
// carries max_model_len). It returns the window and the endpoint that
// gave it, or an error when neither answered with one (servers that do
// not say are common: callers then skip the check).
func (c *Client) ContextWindow(ctx context.Context) (int, string, error) {
	var errs []error
	if b, err := c.exchange(ctx, http.MethodGet, c.base+"/props", nil); err == nil {
		if n, ok := ParseContextWindow(b); ok {
			return n, "llama.cpp GET /props", nil
		}
	} else {
		errs = append(errs, err)
	}
	body, err := json.Marshal(struct {
		Model  string `json:"model"`
		Prompt string `json:"prompt"`
	}{c.cfg.model, "context window"})
	if err != nil {
		return 0, "", err
	}
	if b, err := c.exchange(ctx, http.MethodPost, c.base+"/tokenize", body); err == nil {
		if n, ok := ParseContextWindow(b); ok {
			return n, "vllm POST /tokenize", nil
		}
	} else {
		errs = append(errs, err)
	}
	return 0, "", fmt.Errorf("the server does not say its context window: %w", errors.Join(errs...))
}
