package loadgen

import "time"

// Status is the outcome of one request.
type Status string

// Request outcomes, as written in the record's "status" field.
const (
	StatusOK        Status = "ok"        // the response ended normally (finish reason, [DONE] or clean EOF) after at least one token
	StatusError     Status = "error"     // HTTP error, error object in the stream, connection failure, a 200 without tokens
	StatusTimeout   Status = "timeout"   // request or idle-gap timeout fired
	StatusCancelled Status = "cancelled" // the run was interrupted before the request finished
)

// ErrorKind classifies a failed request, for counting and reports.
type ErrorKind string

// Error kinds, as written in the record's "error_kind" field.
const (
	ErrorNone        ErrorKind = ""
	ErrorHTTP        ErrorKind = "http_status"     // non-2xx response; HTTPStatus holds the code
	ErrorInStream    ErrorKind = "stream_error"    // {"error": ...} inside an HTTP 200 stream
	ErrorConnect     ErrorKind = "connect"         // dial or TLS failure, nothing sent
	ErrorDisconnect  ErrorKind = "disconnect"      // connection closed or reset mid-response
	ErrorTimeout     ErrorKind = "request_timeout" // the whole-request timeout fired
	ErrorIdleTimeout ErrorKind = "idle_timeout"    // no stream byte for longer than the idle timeout
	ErrorDecode      ErrorKind = "decode"          // a body or SSE frame that could not be parsed
	ErrorCancelled   ErrorKind = "cancelled"       // the run's context was cancelled
	ErrorPanic       ErrorKind = "panic"           // a panic while handling the request, recovered
	ErrorWorkload    ErrorKind = "workload"        // the Workload could not build the request; the level stops

	// ErrorNotSSE: a 2xx answer to a streaming request whose body is not
	// an event stream: its first non-blank line is not an SSE field or
	// comment (an HTML page, a JSON object, plain text), or it is empty
	// and not labelled text/event-stream. ErrorMessage holds the
	// Content-Type and the body's first bytes, quoted.
	ErrorNotSSE ErrorKind = "not_sse"
	// ErrorEmptyResponse: a 2xx response that carried no generated token:
	// an event stream that ended ([DONE] or EOF) without a token-carrying
	// chunk and without an error (a stream of `data: null` events, say),
	// or a non-streaming body without generated text. A response with no
	// tokens is never a success.
	ErrorEmptyResponse ErrorKind = "empty_response"
	// ErrorClientResource: the client ran out of one of its own resources
	// before the request reached the server: open files (EMFILE, ENFILE),
	// ephemeral ports or local addresses (EADDRNOTAVAIL), or socket
	// buffers (ENOBUFS). It is the client's failure, not the server's:
	// the summary counts it apart from the failed requests
	// (metrics.RequestCounts.ClientResource) and calls the level client
	// limited.
	ErrorClientResource ErrorKind = "client_resource"
	// ErrorLineTooLong: a line of the event stream, or the data of one
	// event, was longer than the client's limit (openai.WithMaxLineBytes),
	// or than its budget for all streams had left: a server that never
	// ends a line. The connection is closed; the run goes on.
	ErrorLineTooLong ErrorKind = "line_too_long"
	// ErrorNotSent: the request was never written whole, so the server
	// never processed it: the reused keep-alive connection it was written
	// on was closed under the write (the server's idle close racing it;
	// not the run's cancellation). It is not the server's failure: the
	// summary counts it apart (metrics.RequestCounts.NotSent), not in the
	// error rate, and warns.
	ErrorNotSent ErrorKind = "not_sent"
)

// Phase is the part of a run a request belongs to (Record.Phase).
type Phase string

// Phases, as written in the record's "phase" field.
const (
	// PhaseLevel is a level's request, measured (in its window) or trimmed.
	PhaseLevel Phase = ""
	// PhaseWarmup is a request of the run-level warm-up phase, sent
	// before the first level to bring the server and its GPUs to their
	// steady state; it is never measured.
	PhaseWarmup Phase = "warmup"
)

// WarmupLevel is the Level of the warm-up phase's requests (Record.Level):
// not a level index, so that no level's figures can take them.
const WarmupLevel = -1

// TokenSource says where a token count came from.
type TokenSource string

// Token count sources, in order of preference: docs/metrics.md#isl-and-osl.
const (
	SourceNone      TokenSource = ""
	SourceServer    TokenSource = "server"    // the server's usage object
	SourceTokenizer TokenSource = "tokenizer" // our tokenizer on the prompt or the concatenated output text
	SourceDataset   TokenSource = "dataset"   // the count the workload declared when it built the prompt
	SourceChunks    TokenSource = "chunks"    // the number of token-carrying stream chunks
)

// ReceiveClock names the clock that stamped a record's token chunks.
type ReceiveClock string

// Receive clocks, as written in the record's "receive_clock" field.
const (
	// ReceiveClockKernel: each chunk carries the time the kernel received
	// the bytes that completed it (SO_TIMESTAMPNS on Linux), converted to
	// the run's monotonic clock. The client's own queueing (a busy CPU, a
	// burst of chunks parsed one after another) is not in it.
	ReceiveClockKernel ReceiveClock = "kernel"
	// ReceiveClockUser: each chunk carries the time the client's goroutine
	// had read and parsed it.
	ReceiveClockUser ReceiveClock = "user"
)

// ReceiveClockChosen is the ReceiveClockNote of a record stamped in user
// space because the caller chose the user clock (openai's
// WithReceiveClock(ReceiveUser)), not because the kernel clock was
// unavailable. A CLI shows it as the setting that chose it.
const ReceiveClockChosen = "chosen by the caller"

// Record is the measurement of one request (docs/records.md; its time stamps
// in docs/metrics.md#time-stamps). The load generator emits exactly one
// Record per request it schedules, whatever its outcome.
//
// All *At fields are monotonic offsets from the run's start (see Clock), in
// nanoseconds when encoded as JSON. A zero offset means "did not happen",
// except ScheduledAt, which is zero for the first request of a run.
type Record struct {
	Seq   int64 `json:"seq"`   // 0-based index in the run's arrival plan
	Level int   `json:"level"` // 0-based index of the load level (sweep step)
	// Turn is the 0-based turn of a multi-turn session (SessionWorkload).
	// A session is one arrival: its turns share its Seq, which is the
	// session's id. 0, and omitted, outside sessions.
	Turn int `json:"turn,omitempty"`
	// SessionTurns is the number of turns planned for the record's
	// session (at least 1); 0, and omitted, outside sessions.
	SessionTurns int `json:"session_turns,omitempty"`
	// Repeat is the 0-based run of a level run several times (--repeat);
	// 0, and omitted, otherwise.
	Repeat int `json:"repeat,omitempty"`
	// Phase is PhaseWarmup for a request of the run-level warm-up phase,
	// sent before the first level (its Level is WarmupLevel): such a
	// record is kept, but never counts in any level's figures. "", and
	// omitted, for a level's requests.
	Phase Phase `json:"phase,omitempty"`

	ScheduledAt    time.Duration `json:"scheduled_at"`               // intended send time (open loop) or slot-free time (closed loop)
	SentAt         time.Duration `json:"sent_at"`                    // just before the HTTP request was handed to the transport
	WroteAt        time.Duration `json:"wrote_at,omitempty"`         // request headers and body written to the connection (net/http/httptrace WroteRequest)
	HeadersAt      time.Duration `json:"headers_at,omitempty"`       // response headers received
	FirstTokenAt   time.Duration `json:"first_token_at,omitempty"`   // first chunk carrying generated text (content, reasoning or tool call)
	FirstContentAt time.Duration `json:"first_content_at,omitempty"` // first chunk carrying non-reasoning content
	LastTokenAt    time.Duration `json:"last_token_at,omitempty"`    // last chunk carrying generated text
	DoneAt         time.Duration `json:"done_at"`                    // response fully read or request abandoned
	// WireAt is, with the kernel receive clock only, the kernel's
	// software transmit stamp of the request's last byte or, where the
	// upload took more than 1 ms (a server reading the body slowly, or
	// stalling before it reads), of its first write,
	// moved later by the client's own pauses between its writes: when
	// the request left, after the client's own cost of sending (encoding,
	// the transport's goroutines, the write calls).
	// TTFT, TTFOT and E2E start there (LatencyStart), so the upload of
	// the rest of the request, and a server's slow reading of it, are
	// in them. 0 with the user clock, or when the stamp was missing or
	// implausible (ReceiveClockNote says which).
	WireAt time.Duration `json:"wire_at,omitempty"`

	// ChunkTimes holds the arrival offset of every token-carrying chunk, in
	// order; ChunkTokens[i] is the number of tokens in chunk i (1 unless a
	// chunk carried several). Both have the same length.
	ChunkTimes  []time.Duration `json:"chunk_times,omitempty"`
	ChunkTokens []int32         `json:"chunk_tokens,omitempty"`

	// ReceiveClock names the clock of HeadersAt, FirstTokenAt,
	// FirstContentAt, LastTokenAt and ChunkTimes: ReceiveClockKernel or
	// ReceiveClockUser. Empty for a record without response headers.
	ReceiveClock ReceiveClock `json:"receive_clock,omitempty"`
	// ReceiveClockNote says why a record with response headers is stamped in
	// user space (ReceiveClockChosen, "kernel receive timestamps need
	// Linux", a connection the kernel did not stamp...). With the kernel
	// clock it is empty, or says why WireAt is 0 (its latencies then
	// start at SentAt).
	ReceiveClockNote string `json:"receive_clock_note,omitempty"`
	// ChunkUserTimes holds, with the kernel clock, the user-space stamp of
	// each chunk of ChunkTimes: when the client's goroutine had parsed it.
	// ChunkUserTimes[i] − ChunkTimes[i] is the time chunk i waited in the
	// client (its receive queueing: socket buffer, scheduler, parsing of
	// the chunks before it), a client-health figure that no latency
	// includes. Nil with the user clock.
	ChunkUserTimes []time.Duration `json:"chunk_user_times,omitempty"`
	// ClockStep is a step of the wall clock (CLOCK_REALTIME jumping
	// against the monotonic clock: settimeofday, a leap second) seen while
	// the request ran, in ns; the record then uses the user clock. 0 when
	// none.
	ClockStep time.Duration `json:"clock_step_ns,omitempty"`

	Status       Status    `json:"status"`
	ErrorKind    ErrorKind `json:"error_kind,omitempty"`
	ErrorMessage string    `json:"error_message,omitempty"`
	HTTPStatus   int       `json:"http_status,omitempty"`

	// PromptTokens and OutputTokens are the counts the metrics use, taken
	// from the best available source (server usage, then local tokenizer,
	// then dataset or chunk count), which the *Source fields name.
	PromptTokens       int         `json:"prompt_tokens"`
	OutputTokens       int         `json:"output_tokens"`
	PromptTokensSource TokenSource `json:"prompt_tokens_source,omitempty"`
	OutputTokensSource TokenSource `json:"output_tokens_source,omitempty"`

	ServerPromptTokens    int `json:"server_prompt_tokens,omitempty"`    // usage.prompt_tokens, 0 if absent
	ServerOutputTokens    int `json:"server_output_tokens,omitempty"`    // usage.completion_tokens, 0 if absent
	LocalPromptTokens     int `json:"local_prompt_tokens,omitempty"`     // our tokenizer's count of the prompt
	LocalOutputTokens     int `json:"local_output_tokens,omitempty"`     // our tokenizer's count of the output text
	RequestedOutputTokens int `json:"requested_output_tokens,omitempty"` // max_tokens sent
	// RequestedPromptTokens is the prompt length the workload aimed at
	// (Request.RequestedPromptTokens), tokens; 0 when it stated none.
	RequestedPromptTokens int `json:"requested_prompt_tokens,omitempty"`
	// ISLClampedFrom is the ISL drawn, tokens, when it was below the
	// shortest prompt the workload can build and the request was sent at
	// RequestedPromptTokens instead (Request.ISLClampedFrom); 0 otherwise.
	ISLClampedFrom int `json:"isl_clamped_from,omitempty"`
	// PromptTokensExact: the workload built the prompt to the server's own
	// count (Request.PromptTokensExact), so ServerPromptTokens must equal
	// RequestedPromptTokens.
	PromptTokensExact bool `json:"prompt_tokens_exact,omitempty"`
	// PromptTemplated is set when the server wrapped the prompt in its
	// chat template (the chat endpoint, or a multi-turn conversation), so
	// that ServerPromptTokens counts template tokens LocalPromptTokens
	// does not.
	PromptTemplated bool `json:"prompt_templated,omitempty"`
	// ResponseCost is the cost a LiteLLM proxy gave for this response, in
	// the currency of its prices: its x-litellm-response-cost header, else
	// the "cost" of the response's usage object (where a LiteLLM proxy puts
	// it on a stream, whose headers leave before the cost is known; where
	// OpenRouter puts it); nil without either (or with a value that is not
	// a number >= 0).
	ResponseCost *float64 `json:"response_cost,omitempty"`

	// ServerCachedTokens is usage.prompt_tokens_details.cached_tokens:
	// the prompt tokens the server served from its prefix cache (vLLM,
	// SGLang, llama.cpp, the mock with its prefix cache on), part of
	// ServerPromptTokens, which token prices may charge less for. nil when
	// the server did not report it.
	ServerCachedTokens *int `json:"server_cached_tokens,omitempty"`

	// UsageRejected says which members of the server's usage object were
	// impossible and left unused, with their values and why, e.g.
	// "usage.completion_tokens -7 is negative". Empty when usage was
	// absent or plausible. A rejected count is not stored in
	// ServerPromptTokens/ServerOutputTokens, and PromptTokens/OutputTokens
	// fall back to the next source.
	UsageRejected string `json:"usage_rejected,omitempty"`

	FinishReason string `json:"finish_reason,omitempty"`
	ConnReused   bool   `json:"conn_reused"`
	// ConnRetried is set when the request's first attempt failed on a
	// reused connection that the server had closed (its keep-alive limit
	// or idle timeout racing our write) before the request was written,
	// so nothing reached the server, or reset it (EPIPE, ECONNRESET)
	// before a byte of response, and it was sent again, once, on another
	// connection (docs/records.md). Its latencies start at the second attempt's
	// transmission with the kernel clock; with the user clock sent_at
	// also covers the failed attempt (about a millisecond).
	ConnRetried bool `json:"conn_retried,omitempty"`
	InWindow    bool `json:"in_window"` // sent inside the level's measured window (set after the level ends)
}

// LatencyStart is where the request's latencies (TTFT, TTFOT, E2E)
// start: WireAt, when the request left the client by the kernel's
// transmit stamps, with the kernel receive clock; SentAt otherwise
// (docs/metrics.md#where-a-latency-starts). The client's own time
// before then (WireAt − SentAt, part of the send overhead
// WroteAt − SentAt) is thus in the latencies of the user clock only; the
// upload of the request after it is in both. Scheduling lag (SentAt − ScheduledAt) and TTFT corrected for
// coordinated omission (from ScheduledAt) do not use it.
func (r *Record) LatencyStart() time.Duration {
	if r.WireAt != 0 && r.ReceiveClock == ReceiveClockKernel {
		return r.WireAt
	}
	return r.SentAt
}

// TTFT is the time to first token, first_token_at − LatencyStart
// (docs/metrics.md#ttft). ok is false when no token arrived.
func (r *Record) TTFT() (d time.Duration, ok bool) {
	if r.FirstTokenAt == 0 {
		return 0, false
	}
	return r.FirstTokenAt - r.LatencyStart(), true
}

// TTFOT is the time to first output token, first_content_at −
// LatencyStart: the first chunk of non-reasoning content. ok is false
// when none arrived.
func (r *Record) TTFOT() (d time.Duration, ok bool) {
	if r.FirstContentAt == 0 {
		return 0, false
	}
	return r.FirstContentAt - r.LatencyStart(), true
}

// E2E is the end-to-end latency, last_token_at − LatencyStart
// (docs/metrics.md#e2e); a trailing usage or [DONE] frame does not stretch
// it. For a request without tokens (non-streaming or empty output) it is
// done_at − LatencyStart.
func (r *Record) E2E() time.Duration {
	if r.LastTokenAt != 0 {
		return r.LastTokenAt - r.LatencyStart()
	}
	return r.DoneAt - r.LatencyStart()
}

// CachedPromptTokens is ServerCachedTokens, or 0 when the server did not
// report it.
func (r *Record) CachedPromptTokens() int {
	if r.ServerCachedTokens == nil {
		return 0
	}
	return *r.ServerCachedTokens
}
