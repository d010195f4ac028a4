package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	goopenai "github.com/sashabaranov/go-openai"
)

// Models lists the ids the server serves (GET /v1/models), in the server's
// order; the first is the default model (SPEC §2 --model). It is safe for
// concurrent use.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	b, err := c.get(ctx, c.base+"/v1/models")
	if err != nil {
		return nil, err
	}
	var list goopenai.ModelsList
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("GET /v1/models: %w", err)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return nil, errors.New("GET /v1/models: the server lists no model; pass --model")
	}
	return ids, nil
}

// Health checks GET /health (vLLM, SGLang, llama.cpp): nil when it answers
// 2xx. It is safe for concurrent use.
func (c *Client) Health(ctx context.Context) error {
	_, err := c.get(ctx, c.base+"/health")
	return err
}

// get fetches url with the client's headers and returns the body of a 2xx
// response.
func (c *Client) get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header = c.header.Clone()
	req.Header.Del("Content-Type")
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("GET %s: %s", url, httpErrorMessage(resp.StatusCode, b))
	}
	return b, nil
}
