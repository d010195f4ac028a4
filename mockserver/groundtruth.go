package mockserver

import (
	"slices"
	"time"
)

// RequestTrace is the server-side ground truth of one request, recorded
// when the server runs WithGroundTruth. Times are time.Time values from
// time.Now, so they carry the monotonic clock; compare them with the
// client's time.Now readings in the same process.
type RequestTrace struct {
	// ID is the response id ("cmpl-<n>" or "chatcmpl-<n>", n counting
	// from 1 in arrival order), also sent as the X-Request-Id header.
	// Empty for requests rejected before an id was given (bad body).
	ID string
	// Endpoint is "completions" or "chat".
	Endpoint string
	// Prompt is the prompt text (chat: message contents joined by "\n"),
	// so a test can correlate a trace with its request by a prompt tag.
	Prompt string
	// PromptTokens is usage.prompt_tokens.
	PromptTokens int
	// CachedTokens is usage.prompt_tokens_details.cached_tokens: the
	// prompt tokens found in the prefix cache, not charged to prefill (0
	// with the cache off).
	CachedTokens int
	// Arrival is when the handler started (before reading the body).
	Arrival time.Time
	// HeadersAt is when the response headers were flushed.
	HeadersAt time.Time
	// ChunkTimes holds, for every token-carrying chunk (role-only,
	// empty, usage and [DONE] frames excluded), the time its write was
	// flushed to the connection; ChunkTokens holds its token count.
	// Non-streaming responses have one entry: the body.
	ChunkTimes  []time.Time
	ChunkTokens []int
	// ChunkWriteStarts holds, for the same chunks, when the write that
	// carried each one began: no client can have received a chunk's
	// bytes earlier (ChunkTimes is when the write had returned).
	ChunkWriteStarts []time.Time
	// OutputTokens is usage.completion_tokens (EOS included on "stop").
	OutputTokens int
	// FinishReason is "length" or "stop"; empty when the request failed.
	FinishReason string
	// Status is the HTTP status sent (0 if none).
	Status int
	// Error says why the request did not complete: an injected fault,
	// "cancelled", or a write error. Empty on success.
	Error string
}

// TTFT returns the server-side time to first token: first token chunk
// flush − Arrival (0 without token chunks).
func (t RequestTrace) TTFT() time.Duration {
	if len(t.ChunkTimes) == 0 {
		return 0
	}
	return t.ChunkTimes[0].Sub(t.Arrival)
}

// ITL returns the server-side per-request ITL (docs/metrics.md#itl-and-tpot:
// (last token − first token) / (tokens − 1), over token-carrying chunks), 0
// with fewer than two tokens.
func (t RequestTrace) ITL() time.Duration {
	tokens := 0
	for _, n := range t.ChunkTokens {
		tokens += n
	}
	if len(t.ChunkTimes) < 2 || tokens < 2 {
		return 0
	}
	return t.ChunkTimes[len(t.ChunkTimes)-1].Sub(t.ChunkTimes[0]) / time.Duration(tokens-1)
}

func (s *Server) record(tr *RequestTrace) {
	s.gtMu.Lock()
	s.traces = append(s.traces, *tr)
	s.gtMu.Unlock()
}

// GroundTruth returns a copy of the traces recorded so far, in completion
// order (empty unless the server runs WithGroundTruth). Safe for
// concurrent use.
func (s *Server) GroundTruth() []RequestTrace {
	s.gtMu.Lock()
	defer s.gtMu.Unlock()
	return slices.Clone(s.traces)
}
