package openai

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// This file holds what a multi-turn session (loadgen.SessionWorkload)
// needs of the client: the conversation sent as "messages", the reply
// kept for the next turn, and the server's cached prompt tokens.

// errMessagesNeedChat is the error of a request carrying a conversation
// on the completions endpoint, which takes a single prompt.
var errMessagesNeedChat = errors.New("a conversation (loadgen.Request.Chat) needs the chat endpoint (WithEndpoint(Chat))")

// appendMessages appends `,"messages":[...]` holding msgs to b.
func (c *Client) appendMessages(b []byte, msgs []loadgen.Message) ([]byte, error) {
	if c.cfg.endpoint != Chat {
		return nil, errMessagesNeedChat
	}
	enc, err := json.Marshal(msgs)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"messages":`...)
	return append(b, enc...), nil
}

// appendContent appends the generated content c carries to dst: the
// completion text and the chat content, without reasoning or tool calls
// (what a chat client puts back into the conversation).
func (c *chunk) appendContent(dst []byte) []byte {
	for i := range c.Choices {
		ch := &c.Choices[i]
		dst = appendUnquoted(dst, ch.Text)
		dst = appendUnquoted(dst, ch.Delta.Content)
		dst = appendUnquoted(dst, ch.Message.Content)
	}
	return dst
}

// cachedCount judges usage.prompt_tokens_details.cached_tokens and stores
// it in rec.ServerCachedTokens; it returns why it was rejected ("" when
// absent or accepted). A cached count above the accepted prompt count is
// impossible.
func (c *Client) cachedCount(rec *loadgen.Record, cached count, prompt int, promptOK bool) string {
	n, ok, note := usageCount("prompt_tokens_details.cached_tokens", cached, 0)
	switch {
	case !ok:
		return note
	case promptOK && n > prompt:
		return fmt.Sprintf("usage.prompt_tokens_details.cached_tokens %d exceeds usage.prompt_tokens %d", n, prompt)
	}
	rec.ServerCachedTokens = &n
	return ""
}
