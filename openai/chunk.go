package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

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
	// Object is the chunk's "object" member. vLLM (before 0.6) and
	// servers copying it send a mid-stream failure as a whole event
	// {"object":"error","message":...,"code":...}; see isErrorObject.
	Object rawJSON `json:"object"`
}

// isErrorObject reports whether the chunk is an error event of the shape
// {"object":"error","message":...}: the whole payload is the error.
func (c *chunk) isErrorObject() bool {
	return string(c.Object) == `"error"`
}

// usage is the token usage object of a response (OpenAI "usage").
type usage struct {
	present    bool
	prompt     count // usage.prompt_tokens
	completion count // usage.completion_tokens
	cached     count // usage.prompt_tokens_details.cached_tokens
	cost       price // usage.cost: a LiteLLM proxy's cost of a streamed response, OpenRouter's of any
}

// price is a cost a server put in its usage object ("cost"): a finite
// JSON number >= 0, in the currency of the server's prices; set is false
// for anything else (absent, null, a string, an object of parts).
type price struct {
	set bool
	v   float64
}

// parsePrice reads usage.cost's raw JSON value: a JSON number, judged
// as the cost header is (responseCost).
func parsePrice(raw []byte) price {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] < '0' || raw[0] > '9' {
		return price{} // null, a string, an object, or negative
	}
	if f := responseCost(string(raw)); f != nil {
		return price{set: true, v: *f}
	}
	return price{}
}

// count is one token count of a usage object as the server sent it; the
// client judges it (Client.finish) before using it.
type count struct {
	set bool   // the member was present and not null
	n   int64  // its value, tokens, when it is a whole number
	bad string // the value's JSON text (at most 32 bytes) when it is not a whole number that fits an int64 (a string, 7.5, 1e30...)
}

// parseCount reads one usage member's raw JSON value. A whole number
// written as a float (8.0, 1e3) is accepted up to 2^53.
func parseCount(raw []byte) count {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return count{}
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return count{set: true, n: n}
	}
	if raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' {
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			return count{set: true, n: int64(f)}
		}
	}
	return count{set: true, bad: string(prefix(raw, 32))}
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
		Choices []chunkChoice `json:"choices"`
		Usage   *struct {
			// Raw, so that a negative, fractional or string count is
			// seen and judged rather than skipped as a type error.
			PromptTokens        json.RawMessage `json:"prompt_tokens"`
			CompletionTokens    json.RawMessage `json:"completion_tokens"`
			PromptTokensDetails *struct {
				CachedTokens json.RawMessage `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			Cost json.RawMessage `json:"cost"`
		} `json:"usage"`
		Error  rawJSON `json:"error"`
		Object rawJSON `json:"object"`
	}
	c.Choices, c.Usage, c.Error, c.Object = c.Choices[:0], usage{}, nil, nil
	if err := json.Unmarshal(data, &v); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field == "" {
			return err
		}
		// A member of an unexpected type (a float token count, say) is
		// skipped; the rest of the chunk still counts.
	}
	c.Choices = append(c.Choices, v.Choices...)
	c.Error = v.Error
	c.Object = v.Object
	if v.Usage != nil {
		c.Usage = usage{present: true, prompt: parseCount(v.Usage.PromptTokens), completion: parseCount(v.Usage.CompletionTokens), cost: parsePrice(v.Usage.Cost)}
		if d := v.Usage.PromptTokensDetails; d != nil {
			c.Usage.cached = parseCount(d.CachedTokens)
		}
	}
	return nil
}

// chunkClass is what one decoded chunk carries, for the record.
type chunkClass struct {
	token   bool // carries generated text: content, reasoning or tool call (docs/metrics.md#what-counts-as-a-token)
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

// appendText appends the text c carries (completion text, reasoning,
// content, tool-call names and arguments) to dst, for a local token count.
// String bytes pass through unchanged (escapes are decoded), so a UTF-8
// sequence split across chunks is whole again in the concatenation.
func (c *chunk) appendText(dst []byte) []byte {
	for i := range c.Choices {
		ch := &c.Choices[i]
		dst = appendUnquoted(dst, ch.Text)
		for _, d := range [...]*chunkDelta{&ch.Delta, &ch.Message} {
			dst = appendUnquoted(dst, d.ReasoningContent)
			dst = appendUnquoted(dst, d.Reasoning)
			dst = appendUnquoted(dst, d.Content)
			if d.ToolCalls.hasText() {
				var calls []struct {
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				}
				if json.Unmarshal(d.ToolCalls, &calls) == nil {
					for _, tc := range calls {
						dst = append(dst, tc.Function.Name...)
						dst = append(dst, tc.Function.Arguments...)
					}
				}
			}
		}
	}
	return dst
}

// appendUnquoted appends the contents of the JSON string raw to dst,
// decoding escapes and keeping every other byte as is. A raw value that is
// not a string appends nothing.
func appendUnquoted(dst []byte, raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return dst
	}
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := hex4(s[i+1:])
			if n == 0 {
				dst = append(dst, '\\', 'u')
				continue
			}
			i += n
			if utf16.IsSurrogate(r) {
				if i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if r2, n2 := hex4(s[i+3:]); n2 > 0 {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							dst = utf8.AppendRune(dst, d)
							i += 2 + n2
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/' and anything else: the character itself
			dst = append(dst, s[i])
		}
	}
	return dst
}

// hex4 decodes four hex digits at the start of b; n is 4, or 0 if invalid.
func hex4(b []byte) (r rune, n int) {
	if len(b) < 4 {
		return 0, 0
	}
	for _, c := range b[:4] {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, 0
		}
		r = r<<4 | rune(v)
	}
	return r, 4
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
