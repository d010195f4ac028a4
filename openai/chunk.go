package openai

import (
	"bytes"
	"errors"
	"encoding/json"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"
)

// rawJSON keeps the raw JSON text of a field, reusing its buffer between
// decodes, so decoding a stream chunk does not allocate a string per field.
// A JSON null or an absent field leaves it empty.
type rawJSON []byte

// UnmarshalJSON implements json.Unmarshaler; it copies data.
func (r *rawJSON) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*r = (*r)[:0]
		return nil
	}
	*r = append((*r)[:0], data...)
	return nil
}

// hasText reports whether r holds a non-empty JSON string, or any other
// non-empty value (an array with elements, a number...).
func (r rawJSON) hasText() bool {
	switch {
	case len(r) == 0:
		return false
	case r[0] == '"':
		return len(r) > 2
	case r[0] == '[':
		return len(bytes.TrimSpace(r[1:len(r)-1])) > 0
	}
	return true
}

// str decodes r as a JSON string; anything else yields "".
func (r rawJSON) str() string {
	if len(r) < 2 || r[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(r, &s) != nil {
		return ""
	}
	return s
}

// skip is a JSON value decoded into nothing; a []skip counts array elements
// without allocating (its elements have size zero).
type skip struct{}

// UnmarshalJSON implements json.Unmarshaler.
func (*skip) UnmarshalJSON([]byte) error { return nil }

// chunkDelta is the "delta" of a chat stream chunk, or the "message" of a
// non-streaming chat response.
type chunkDelta struct {
	Content          rawJSON `json:"content"`
	ReasoningContent rawJSON `json:"reasoning_content"` // DeepSeek, vLLM < 0.10, llama.cpp
	Reasoning        rawJSON `json:"reasoning"`         // vLLM >= 0.10, OpenRouter, Ollama
	ToolCalls        rawJSON `json:"tool_calls"`
}

// chunkChoice is one element of "choices".
type chunkChoice struct {
	Text         rawJSON    `json:"text"` // completions
	Delta        chunkDelta `json:"delta"`
	Message      chunkDelta `json:"message"` // non-streaming chat
	FinishReason rawJSON    `json:"finish_reason"`
	Logprobs     rawJSON    `json:"logprobs"`
}

// chunk is the part of a completions or chat stream chunk (or of a
// non-streaming response) that the client measures. Reuse one chunk for a
// whole stream: decode keeps its choices slice. Its rawJSON fields may alias
// the payload passed to decode, so they are valid only as long as it is.
type chunk struct {
	Choices []chunkChoice `json:"choices"`
	Usage   usage         `json:"-"`
	Error   rawJSON       `json:"error"`
}

// usage is the token usage object of a response (OpenAI "usage").
type usage struct {
	present    bool
	prompt     int // usage.prompt_tokens, tokens
	completion int // usage.completion_tokens, tokens
}

// decode parses one data payload into c. It tries an allocation-free scanner
// first (fastDecode) and falls back to encoding/json, which is then the
// judge of validity, for anything the scanner does not handle.
func (c *chunk) decode(data []byte) error {
	if c.fastDecode(data) {
		return nil
	}
	return c.slowDecode(data)
}

// slowDecode parses data with encoding/json.
func (c *chunk) slowDecode(data []byte) error {
	var v struct {
		Choices []chunkChoice   `json:"choices"`
		Usage   *goopenai.Usage `json:"usage"`
		Error   rawJSON         `json:"error"`
	}
	c.Choices, c.Usage, c.Error = c.Choices[:0], usage{}, nil
	if err := json.Unmarshal(data, &v); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return err
		}
		// A member of an unexpected type (a float token count, say) is
		// skipped; the rest of the chunk still counts.
	}
	c.Choices = append(c.Choices, v.Choices...)
	c.Error = v.Error
	if v.Usage != nil {
		c.Usage = usage{present: true, prompt: v.Usage.PromptTokens, completion: v.Usage.CompletionTokens}
	}
	return nil
}

// chunkClass is what one decoded chunk carries, for the record.
type chunkClass struct {
	token   bool // carries generated text: content, reasoning or tool call (SPEC §5)
	content bool // carries non-reasoning content (TTFOT)
	// tokens is the number of tokens in the chunk from logprobs, or 0 when
	// the chunk has no logprobs (then the caller counts 1, or asks its token
	// counter).
	tokens int
}

// classify reports what c carries. It does not allocate unless the chunk
// has logprobs.
func (c *chunk) classify() chunkClass {
	var k chunkClass
	for i := range c.Choices {
		ch := &c.Choices[i]
		for _, d := range [...]*chunkDelta{&ch.Delta, &ch.Message} {
			if d.Content.hasText() || d.ToolCalls.hasText() {
				k.token, k.content = true, true
			}
			if d.ReasoningContent.hasText() || d.Reasoning.hasText() {
				k.token = true
			}
		}
		if ch.Text.hasText() {
			k.token, k.content = true, true
		}
		if len(ch.Logprobs) > 0 && ch.Logprobs[0] == '{' {
			k.tokens += countLogprobs(ch.Logprobs)
		}
	}
	return k
}

// countLogprobs returns the number of tokens in a logprobs object: the
// length of "tokens" (completions) or of "content" (chat).
func countLogprobs(raw []byte) int {
	var lp struct {
		Tokens  []skip `json:"tokens"`
		Content []skip `json:"content"`
	}
	if json.Unmarshal(raw, &lp) != nil {
		return 0
	}
	return max(len(lp.Tokens), len(lp.Content))
}

// appendText appends the text c carries (reasoning, content, completion
// text and tool-call names and arguments) to sb, for a local token count.
func (c *chunk) appendText(sb *strings.Builder) {
	for i := range c.Choices {
		ch := &c.Choices[i]
		sb.WriteString(ch.Text.str())
		for _, d := range [...]*chunkDelta{&ch.Delta, &ch.Message} {
			sb.WriteString(d.ReasoningContent.str())
			sb.WriteString(d.Reasoning.str())
			sb.WriteString(d.Content.str())
			if d.ToolCalls.hasText() {
				var calls []struct {
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				}
				if json.Unmarshal(d.ToolCalls, &calls) == nil {
					for _, tc := range calls {
						sb.WriteString(tc.Function.Name)
						sb.WriteString(tc.Function.Arguments)
					}
				}
			}
		}
	}
}

// finishReason returns the first non-empty finish_reason in c, or nil.
func (c *chunk) finishReason() []byte {
	for i := range c.Choices {
		if len(c.Choices[i].FinishReason) > 2 {
			return c.Choices[i].FinishReason
		}
	}
	return nil
}

// streamError decodes the "error" member of a chunk (an object with
// message/type/code, or a bare string) into a message.
func streamError(raw []byte) string {
	if len(raw) > 0 && raw[0] == '"' {
		return rawJSON(raw).str()
	}
	var e goopenai.APIError
	if err := json.Unmarshal(raw, &e); err == nil && e.Message != "" {
		if e.Type != "" {
			return e.Type + ": " + e.Message
		}
		return e.Message
	}
	return string(raw)
}
