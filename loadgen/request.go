package loadgen

import (
	"context"
	"time"
)

// Clock reads monotonic time as an offset from a run's start. The zero
// Clock is not usable; build one with NewClock. A Clock is a value and safe
// for concurrent use.
type Clock struct{ start time.Time }

// NewClock returns a Clock whose offsets count from start. Pass time.Now():
// the monotonic reading it carries makes offsets immune to wall-clock steps.
func NewClock(start time.Time) Clock { return Clock{start: start} }

// Now returns the time elapsed since the run's start.
func (c Clock) Now() time.Duration { return time.Since(c.start) }

// Start returns the run's absolute start time (recorded once per run).
func (c Clock) Start() time.Time { return c.start }

// Request is one unit of work: what to send. A Workload builds it; the
// Generator stamps Seq and Level.
type Request struct {
	Seq   int64
	Level int

	// Prompt is the text sent: the completions "prompt", or the content of
	// the single user message for chat.
	Prompt string
	// PromptTokens is the prompt's length in the served tokenizer's tokens
	// when the workload knows it (0 otherwise), and PromptTokensSource says
	// how it knows (SourceTokenizer or SourceDataset).
	PromptTokens       int
	PromptTokensSource TokenSource
	// RequestedPromptTokens is the prompt length the workload aimed at,
	// tokens: the ISL drawn from its length distribution, which a prompt
	// sized in words (no tokenizer) only approximates; 0 when the workload
	// states none (a dataset without a tokenizer). Reports set it against
	// the length the server counted.
	RequestedPromptTokens int
	// ISLClampedFrom is the ISL drawn from the length distribution, tokens,
	// when it was below the shortest prompt the workload can build (a
	// request's marker and one word, or a chat template with room for
	// text): the request was sent at RequestedPromptTokens, that shortest
	// length, instead. 0 when the draw was built as drawn.
	ISLClampedFrom int
	// PromptTokensExact: PromptTokens is what the server itself counts for
	// the request as sent (prompts fitted with its tokenize endpoint, chat
	// template included on the chat endpoint), so its usage.prompt_tokens
	// must equal it exactly; the metrics check that (metrics.WarnTokenCountMismatch).
	PromptTokensExact bool
	// MaxTokens is the requested output length (max_tokens), in tokens.
	MaxTokens int

	// Chat, when not nil, is the chat conversation sent in place of
	// Prompt: a multi-turn session's history (user messages and the
	// server's replies, in order) ending with the new user message (see
	// Session). Prompt is then not sent. PromptTokens counts all of it. A
	// pointer, so that Request stays comparable.
	Chat *Chat
	// KeepReply asks the Requester to return the generated content in
	// Reply, for the next turn of a session.
	KeepReply bool
	// Reply is set by the Requester when KeepReply is true: the content
	// the server generated (chat delta or message content, or completion
	// text), without reasoning or tool calls; "" when none arrived.
	Reply string
}

// Workload produces the request for a given sequence number. It must be
// deterministic in seq (same seq, same request), so that a seeded run is
// reproducible byte for byte, and safe for concurrent use.
type Workload interface {
	Request(seq int64) (Request, error)
}

// Requester sends one request and fills rec with what it measured: every
// field from HeadersAt to the end of Record. The Generator has already set
// Seq, Level, ScheduledAt, SentAt, RequestedOutputTokens,
// RequestedPromptTokens and the prompt token fields (PromptTokens,
// PromptTokensSource, and LocalPromptTokens when the source is the
// tokenizer) from the Request before calling Do; a
// Requester may overwrite the prompt counts with better ones (server
// usage). Do never returns an error: failures are recorded in rec.Status,
// rec.ErrorKind and rec.ErrorMessage. Implementations must be safe for
// concurrent use and must return promptly when ctx is cancelled, with
// rec.Status = StatusCancelled.
type Requester interface {
	Do(ctx context.Context, clock Clock, req *Request, rec *Record)
}

// Sink receives records. The Generator calls Write from a single goroutine,
// in completion order. An error from Write stops the run (the disk is full,
// say); records already written are kept.
type Sink interface {
	Write(rec *Record) error
}

// WorkloadFunc adapts a function to Workload: f(seq) builds request seq.
// Like any Workload it must be deterministic in seq and safe for
// concurrent use. A panic in f becomes a workload error: the level stops
// and Generator.Run returns it.
type WorkloadFunc func(seq int64) (Request, error)

// Request calls f(seq).
func (f WorkloadFunc) Request(seq int64) (Request, error) { return f(seq) }

// RequesterFunc adapts a function to Requester: f sends req and fills rec
// (see Requester). It must be safe for concurrent use. A panic in f is
// recorded on the request's record (StatusError, ErrorPanic, the panic's
// message) and the level goes on.
type RequesterFunc func(ctx context.Context, clock Clock, req *Request, rec *Record)

// Do calls f(ctx, clock, req, rec).
func (f RequesterFunc) Do(ctx context.Context, clock Clock, req *Request, rec *Record) {
	f(ctx, clock, req, rec)
}
