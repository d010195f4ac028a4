// Package openai is the HTTP client of gollm-bench for OpenAI-compatible
// inference servers (vLLM, SGLang, llama.cpp, TGI, the built-in mock). Its
// Client implements loadgen.Requester: it sends one completions or chat
// request, reads the Server-Sent Events stream, and fills a loadgen.Record
// with the times and token counts that docs/metrics.md defines
// (docs/records.md has the record).
//
// # What is measured
//
// A chunk is token-carrying when it holds generated text: completion text,
// delta.content, delta.reasoning_content or delta.reasoning, or
// delta.tool_calls. Role-only chunks, empty content and usage-only chunks are
// not tokens (docs/metrics.md#what-counts-as-a-token, as in AIPerf and vLLM's
// benchmark client). FirstTokenAt (TTFT) is the first token-carrying chunk;
// FirstContentAt (TTFOT) the first one that is not reasoning; LastTokenAt
// (E2E) the last one, so a trailing usage or [DONE] frame does not stretch
// E2E. Every token-carrying chunk's arrival is kept (ChunkTimes) with its
// token count (ChunkTokens): the number of logprobs tokens when the chunk has
// logprobs, else the local tokenizer's count of its text when a counter is
// plugged in (WithTokenCounter, WithByteTokenCounter), else 1.
//
// # The receive clock
//
// On Linux the Client dials each connection with kernel receive stamps
// (SO_TIMESTAMPNS, read with recvmsg; TLS runs over that connection), and
// each event is timed by when the kernel received the read that delivered
// its last byte, so a busy client does not count its own queueing as
// latency. Record.ReceiveClock says which clock a record uses; with the
// kernel's, Record.ChunkUserTimes keeps when the client parsed each chunk.
// A record falls back to its user-space stamps, whole, with a note, where
// a read came without a stamp, a stamp lies outside [SentAt, its read], or
// the wall clock stepped while it ran; elsewhere (other systems,
// WithHTTPClient, WithReceiveClock(ReceiveUser)) the user clock is used
// throughout. docs/records.md states the limits.
//
// The same connections carry the kernel's software transmit stamps
// (SO_TIMESTAMPING): with the kernel clock, Record.WireAt is when the
// request began to leave the client (the transmit stamp of its first
// write, which holds the headers and the first bytes of the body; all of
// a small request), and TTFT, TTFOT and E2E start there
// (Record.LatencyStart) instead of at SentAt. So the client's own time
// before its first byte left (the send overhead) is not counted as the
// server's latency, while the upload of the request, and a server's slow
// reading of it, are. A stamp that is missing, or
// outside [SentAt, HeadersAt], is not used: the latencies start at SentAt
// and Record.ReceiveClockNote says why.
//
// OSL prefers the server's usage.completion_tokens, then the local
// tokenizer on the concatenated output text, then the sum of ChunkTokens;
// ISL prefers usage.prompt_tokens, then the count the workload declared.
// The Record names the source of each. A usage count that cannot be true
// (negative, above MaxUsageTokens, not a whole number, or a completion
// count of 0 beside generated text) is not used: Record.UsageRejected says
// which and why, and the count falls back to the next source.
//
// # Failures
//
// Do never returns an error. A non-2xx status is ErrorHTTP with the
// server's message; an {"error": ...} object inside a 200 stream is
// ErrorInStream; a connection closed mid-stream is ErrorDisconnect and keeps
// the tokens received; the whole-request and idle-gap timeouts are
// ErrorTimeout and ErrorIdleTimeout; the run's cancellation is
// ErrorCancelled; a panic is recovered as ErrorPanic.
//
// A 2xx response is a success only if it delivered at least one token. A
// streaming request's body is read as an event stream when its first
// non-blank line is an SSE field (data, event, id, retry) or comment,
// whatever its Content-Type; anything else (an HTML page, a JSON object,
// plain text, or an empty body not labelled text/event-stream) is
// ErrorNotSSE, with the Content-Type and the body's first bytes quoted in
// the message. A stream that ends without a token-carrying chunk and
// without an error is ErrorEmptyResponse: events such as `data: null`,
// {"choices":null} and {"error":null} carry neither a token nor an error.
// A non-streaming body without generated text is ErrorEmptyResponse too.
//
// # Hot path
//
// The SSE reader reuses one buffer per request (lines of any length up to
// 64 MiB), and a strict hand-written scanner decodes each chunk without
// allocating, falling back to encoding/json on anything unusual. The
// constant part of the request body is encoded once per Client, and a body
// is written to the connection in one piece, however long the prompt.
//
// # go-openai
//
// The module depends on github.com/sashabaranov/go-openai v1.43.0, and this
// package uses its types where they fit: ChatCompletionMessage for chat
// messages, Usage and APIError when decoding, ModelsList for /v1/models. The
// request bodies are ours, because that version's ChatCompletionRequest and
// CompletionRequest cannot carry vendor fields such as ignore_eos or
// min_tokens, and its stream reader neither times chunks nor keeps
// reasoning and usage-only frames apart.
package openai
