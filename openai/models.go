package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/internal/termtext"
)

// Models lists the ids the server serves (GET /v1/models), in the server's
// order; the first is the default model (--model,
// docs/cli.md#target-and-requests). It is safe for concurrent use.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	b, err := c.get(ctx, c.at("/v1/models"))
	if err != nil {
		return nil, err
	}
	var list goopenai.ModelsList
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("GET /v1/models: %w: %w", ErrNoModels, err)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("GET /v1/models: %w", ErrNoModels)
	}
	return ids, nil
}

// ErrNoModels is wrapped by Models' error when the server answered 2xx
// but its list holds no model id, or is not an OpenAI model list.
var ErrNoModels = errors.New("the server lists no model")

// StatusError is a non-2xx answer to one of the Client's own requests
// (Models, Health, the TokenCounter's). Callers tell it from a transport
// failure (no answer at all) with errors.As.
type StatusError struct {
	Method string // the HTTP method; "" reads as GET
	URL    string // the URL requested, without credentials
	Status int    // the HTTP status code
	// Message is "HTTP NNN: " and the body's error message (an OpenAI
	// error object's, or the body's text).
	Message string
}

// Error implements error.
func (e *StatusError) Error() string {
	m := e.Method
	if m == "" {
		m = http.MethodGet
	}
	return m + " " + e.URL + ": " + e.Message
}

// Health checks GET /health (vLLM, SGLang, llama.cpp): nil when it answers
// 2xx. It is safe for concurrent use.
func (c *Client) Health(ctx context.Context) error {
	_, err := c.get(ctx, c.at("/health"))
	return err
}

// get fetches url with the client's headers and returns the body of a 2xx
// response.
func (c *Client) get(ctx context.Context, url string) ([]byte, error) {
	return c.exchange(ctx, http.MethodGet, url, nil)
}

// maxExchangeBody bounds the body exchange reads, bytes: a model list or
// a tokenize answer of a 100,000-token prompt is well under 2 MiB. A
// hostile or broken server's endless body, read to maxBody (64 MiB) by
// each of the tokenizer probes, cost about 630 MB of allocations at start
// and most of the 355 MB RSS the fault campaign's endless-line check
// measured.
const maxExchangeBody = 8 << 20

// exchange sends method to url with the client's headers (and body, JSON,
// when not nil) and returns the body of a 2xx response, at most
// maxExchangeBody bytes of it; any other status is a *StatusError. Its
// errors quote url without credentials or secret query values.
func (c *Client) exchange(ctx context.Context, method, url string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	req.Header = c.header.Clone()
	if body == nil {
		req.Header.Del("Content-Type")
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	shown := redact.URLs(redactUserinfo(url))
	resp, err := c.hc.Do(req)
	if err != nil {
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err // the message without the URL, which may hold credentials
		}
		return nil, fmt.Errorf("%s %s: %w", method, shown, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxExchangeBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, shown, err)
	}
	if len(b) > maxExchangeBody && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return nil, fmt.Errorf("%s %s: the response body is longer than %d bytes, more than any answer to this request", method, shown, maxExchangeBody)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &StatusError{Method: method, URL: shown, Status: resp.StatusCode, Message: termtext.Escape(redact.Scrub(httpErrorMessage(resp.StatusCode, b), c.secrets))}
	}
	return b, nil
}
