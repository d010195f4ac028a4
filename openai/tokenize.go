package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// TokenizeAPI is one shape of a server's tokenize endpoint: where it is
// and how it is asked. The shapes are the servers' own (each server's
// documentation and source):
//
//   - vLLM (and SGLang, which copies it): POST /tokenize
//     {"model", "prompt", "add_special_tokens": true} answers
//     {"count": N, "tokens": [ids...], "max_model_len": M}.
//   - llama.cpp's llama-server: POST /tokenize {"content", "add_special":
//     true} answers {"tokens": [ids...]}.
//   - SGLang also serves the vLLM shape at POST /v1/tokenize.
//   - Hugging Face TGI: POST /tokenize {"inputs"} answers an array of
//     tokens, [{"id", "text", "start", "stop"}, ...].
//
// Each is asked to add the special tokens (a BOS) that the server adds to a
// /v1/completions prompt, so that its count is the prompt's
// usage.prompt_tokens.
type TokenizeAPI struct {
	// Name says which server's shape it is: "vllm", "llama.cpp",
	// "sglang" or "tgi".
	Name string
	// Path is the endpoint's path below the base URL, e.g. "/tokenize".
	Path string
	// Chat: the text is counted as the single user message of a chat
	// conversation, rendered with the server's chat template and its
	// generation prompt, as /v1/chat/completions counts it.
	Chat bool
}

// ChatTokenizeAPIs are the shapes ChatTokenCounter tries, in its order:
// vLLM's POST /tokenize {"model", "messages", "add_generation_prompt":
// true}, which renders the template and answers {"count"}, and llama.cpp's
// POST /apply-template {"messages"}, answered {"prompt"}, whose text its
// POST /tokenize then counts with special tokens parsed.
var ChatTokenizeAPIs = []TokenizeAPI{
	{Name: "vllm", Path: "/tokenize", Chat: true},
	{Name: "llama.cpp", Path: "/apply-template", Chat: true},
}

// TokenizeAPIs are the shapes TokenCounter tries, in its order: vLLM's
// (also SGLang's) first, as the most common server's, then llama.cpp's,
// SGLang's /v1/tokenize and TGI's.
var TokenizeAPIs = []TokenizeAPI{
	{Name: "vllm", Path: "/tokenize"},
	{Name: "llama.cpp", Path: "/tokenize"},
	{Name: "sglang", Path: "/v1/tokenize"},
	{Name: "tgi", Path: "/tokenize"},
}

// String is the API's name and path, e.g. "llama.cpp POST /tokenize", as
// run.json records it.
func (a TokenizeAPI) String() string {
	switch {
	case a.Chat && a.Name == "llama.cpp":
		return "llama.cpp POST /apply-template, POST /tokenize"
	case a.Chat:
		return a.Name + " POST " + a.Path + " (messages)"
	}
	return a.Name + " POST " + a.Path
}

// chatMessages is text as a chat conversation's single user message.
type chatMessages []struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func userMessage(text string) chatMessages {
	return chatMessages{{Role: "user", Content: text}}
}

// requestBody encodes the request that asks a of text's count.
func (a TokenizeAPI) requestBody(model, text string) ([]byte, error) {
	if a.Chat && a.Name == "llama.cpp" {
		return json.Marshal(struct {
			Messages chatMessages `json:"messages"`
		}{userMessage(text)})
	}
	if a.Chat {
		return json.Marshal(struct {
			Model               string       `json:"model"`
			Messages            chatMessages `json:"messages"`
			AddGenerationPrompt bool         `json:"add_generation_prompt"`
		}{model, userMessage(text), true})
	}
	switch a.Name {
	case "llama.cpp":
		return json.Marshal(struct {
			Content    string `json:"content"`
			AddSpecial bool   `json:"add_special"`
		}{text, true})
	case "tgi":
		return json.Marshal(struct {
			Inputs string `json:"inputs"`
		}{text})
	default:
		return json.Marshal(struct {
			Model            string `json:"model"`
			Prompt           string `json:"prompt"`
			AddSpecialTokens bool   `json:"add_special_tokens"`
		}{model, text, true})
	}
}

// ErrNoTokenize is wrapped by TokenCounter's error when no shape of
// TokenizeAPIs answered with a count.
var ErrNoTokenize = errors.New("the server has no tokenize endpoint gollm-bench can use")

// ParseTokenizeResponse reads the number of tokens from a tokenize
// endpoint's answer, in any shape of TokenizeAPIs: an object with "count"
// (vLLM, SGLang; preferred when present), an object with "tokens", a list
// of ids or of {"id", "piece"} objects (llama.cpp), or a top-level array of
// tokens (TGI). An answer with none of these, a negative count, or a
// count that disagrees with the token list is an error.
func ParseTokenizeResponse(b []byte) (int, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var toks []json.RawMessage
		if err := json.Unmarshal(b, &toks); err != nil {
			return 0, fmt.Errorf("tokenize answer: %w", err)
		}
		return len(toks), nil
	}
	var v struct {
		Count  *int              `json:"count"`
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, fmt.Errorf("tokenize answer: %w", err)
	}
	switch {
	case v.Count != nil && *v.Count < 0:
		return 0, fmt.Errorf("tokenize answer: a negative count, %d", *v.Count)
	case v.Count != nil && v.Tokens != nil && len(v.Tokens) != *v.Count:
		return 0, fmt.Errorf("tokenize answer: count %d but %d tokens", *v.Count, len(v.Tokens))
	case v.Count != nil:
		return *v.Count, nil
	case v.Tokens != nil:
		return len(v.Tokens), nil
	}
	return 0, errors.New(`tokenize answer: neither "count" nor "tokens"`)
}

// maxTemplateTokens bounds the tokens a count may add to its text's
// bytes (special tokens, a chat template and its system prompt): a count
// beyond the text's bytes plus this is not believed.
const maxTemplateTokens = 1 << 16

// TokenCounter counts text in the served model's tokens by asking the
// server (its tokenize endpoint, one HTTP request per Count), the way the
// server counts a /v1/completions prompt. Build it with Client.TokenCounter.
// It is safe for concurrent use.
type TokenCounter struct {
	c     *Client
	api   TokenizeAPI
	model string
}

// TokenCounter finds the server's tokenize endpoint: it asks each shape of
// TokenizeAPIs, in order, to count a short probe text, and returns a
// counter for the first that answers a count of at least one token. The
// client's model (WithModel) is named in the shapes that take one. The
// error wraps ErrNoTokenize and says what each shape answered; when ctx
// ends first, it names the endpoint being asked and wraps ctx.Err().
func (c *Client) TokenCounter(ctx context.Context) (*TokenCounter, error) {
	return c.findCounter(ctx, TokenizeAPIs)
}

// ChatTokenCounter is TokenCounter for /v1/chat/completions: it tries
// ChatTokenizeAPIs, whose counts are of the text as the single user
// message rendered with the server's chat template and generation prompt.
func (c *Client) ChatTokenCounter(ctx context.Context) (*TokenCounter, error) {
	return c.findCounter(ctx, ChatTokenizeAPIs)
}

func (c *Client) findCounter(ctx context.Context, apis []TokenizeAPI) (*TokenCounter, error) {
	const probe = "Two households, both alike in dignity"
	var errs []error
	for _, api := range apis {
		t := &TokenCounter{c: c, api: api, model: c.cfg.model}
		n, err := t.Count(ctx, probe)
		if err == nil && n < 1 {
			err = fmt.Errorf("%s counted %d tokens in %q", api, n, probe)
		}
		if err == nil {
			return t, nil
		}
		if ctx.Err() != nil {
			// The endpoint that was being asked, and why it stopped.
			if !errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%v: %w", err, ctx.Err())
			}
			return nil, err
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("%w: %w", ErrNoTokenize, errors.Join(errs...))
}

// API is the endpoint the counter asks.
func (t *TokenCounter) API() TokenizeAPI { return t.api }

// Count returns the number of tokens the server counts in text, special
// tokens it adds to a prompt (a BOS) included. Errors: the request's
// (transport, or a *StatusError), the answer's (ParseTokenizeResponse), or
// an implausible count (more than the text's bytes plus 65,536).
func (t *TokenCounter) Count(ctx context.Context, text string) (int, error) {
	body, err := t.api.requestBody(t.model, text)
	if err != nil {
		return 0, err
	}
	b, err := t.c.exchange(ctx, http.MethodPost, t.c.at(t.api.Path), body)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", t.api.Name, err)
	}
	if t.api.Chat && t.api.Name == "llama.cpp" {
		// The rendered conversation, counted with its special tokens.
		var v struct {
			Prompt *string `json:"prompt"`
		}
		if err := json.Unmarshal(b, &v); err != nil || v.Prompt == nil {
			return 0, fmt.Errorf("%s: POST %s: the answer has no \"prompt\" string", t.api.Name, t.api.Path)
		}
		body, err := json.Marshal(struct {
			Content      string `json:"content"`
			AddSpecial   bool   `json:"add_special"`
			ParseSpecial bool   `json:"parse_special"`
		}{*v.Prompt, true, true})
		if err != nil {
			return 0, err
		}
		if b, err = t.c.exchange(ctx, http.MethodPost, t.c.at("/tokenize"), body); err != nil {
			return 0, fmt.Errorf("%s: %w", t.api.Name, err)
		}
	}
	n, err := ParseTokenizeResponse(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %w", t.api.Name, strings.TrimSpace(t.api.String()), err)
	}
	if limit := len(text) + maxTemplateTokens; n > limit {
		return 0, fmt.Errorf("%s: %s: an implausible count, %d tokens for a text of %d bytes (a token covers at least a byte; a chat template adds at most %d): the server's count cannot be used", t.api.Name, t.api, n, len(text), maxTemplateTokens)
	}
	return n, nil
}
