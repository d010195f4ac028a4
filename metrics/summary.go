package metrics

import (
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/stats"
)

// Distribution summarises one distribution (docs/metrics.md#distributions):
// latencies in ms, counts in tokens (Unit says which). It is computed from an
// HDR histogram (hdrhistogram-go, 3 significant digits; latencies recorded in
// µs), which is kept, encoded, in Histogram so results can be merged exactly.
type Distribution struct {
	Unit  string  `json:"unit"` // "ms" or "tokens"
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	Std   float64 `json:"std"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99_9"`
	// MeanCI and the PxxCI fields are the 95 % confidence intervals
	// (stats.Confidence) of Mean and of each percentile, in Unit: for a
	// percentile, the distribution-free interval between two order
	// statistics (stats.QuantileRanks), read from the histogram; for the
	// mean, Student's t. A side that no sample bounds is ±Inf, written as
	// null in JSON ("unbounded"): the p99 of fewer than 299 samples has no
	// upper bound. docs/statistics.md has the methods.
	MeanCI stats.Interval `json:"mean_ci"`
	P50CI  stats.Interval `json:"p50_ci"`
	P90CI  stats.Interval `json:"p90_ci"`
	P95CI  stats.Interval `json:"p95_ci"`
	P99CI  stats.Interval `json:"p99_ci"`
	P999CI stats.Interval `json:"p99_9_ci"`
	// Inf counts the values recorded as +Inf: failed requests in the
	// error-adjusted distributions, 0 elsewhere. When Inf > 0, Mean, Std and
	// Max are +Inf, and so is every percentile that lands on a failure. JSON
	// cannot hold +Inf: these fields are then written as the string "inf"
	// (see Distribution.MarshalJSON).
	Inf int64 `json:"inf,omitempty"`
	// Histogram is hdrhistogram-go's compressed encoding, base64. Empty when Count is 0.
	Histogram string `json:"histogram,omitempty"`
}

// WarningCode names a kind of caveat. Codes are stable and
// machine-readable; each package that raises warnings declares its codes
// as documented WarningCode constants (metrics.WarnClientLimited,
// sweep.WarnKneeNotReached, ...), which reports and tools match on.
type WarningCode string

// Warning is a caveat attached to a result. Warnings are data: every report
// shows them. Code is one of the declared codes (e.g. "client_limited",
// "token_count_mismatch"); Message is for people.
type Warning struct {
	Code    WarningCode `json:"code"`
	Level   int         `json:"level"` // -1 for run-wide warnings
	Message string      `json:"message"`
}

// Summary is everything measured at one load level, computed once by an
// Accumulator from the level's records. Reporters only format it.
type Summary struct {
	Level   int             `json:"level"`
	Profile loadgen.Profile `json:"profile"`
	Window  loadgen.Window  `json:"window"`
	// WindowSeconds is Window's length, s.
	WindowSeconds float64 `json:"window_s"`

	Requests RequestCounts `json:"requests"`
	// TooShort is set when no request sent in the window finished in it
	// (ok + failed = 0): the level was too short to measure anything, so it
	// is neither client-limited nor failed, and its verdict is
	// inconclusive. The text says why and how long a level must be.
	TooShort string `json:"too_short,omitempty"`
	// ErrorRate = failed / (failed + ok) among requests sent in the window
	// (0..1), with its Wilson score interval.
	ErrorRate   float64        `json:"error_rate"`
	ErrorRateCI stats.Interval `json:"error_rate_ci"`
	// Confidence is the confidence level of every interval in the
	// summary: stats.Confidence (0.95).
	Confidence float64 `json:"confidence"`

	// Latency distributions, ms (definitions in docs/metrics.md and on each
	// field).
	TTFT          Distribution `json:"ttft_ms"`           // first_token_at − start (Record.LatencyStart: wire_at on the kernel clock, else sent_at)
	TTFTCorrected Distribution `json:"ttft_corrected_ms"` // first_token_at − scheduled_at (wrk2 coordinated-omission correction)
	TTFOT         Distribution `json:"ttfot_ms"`          // first_content_at − start (reasoning models)
	ITL           Distribution `json:"itl_ms"`            // per request, (E2E − TTFT) / (OSL − 1), OSL ≥ 2 (AIPerf, GenAI-Perf; = TPOT)
	ICL           Distribution `json:"icl_ms"`            // every gap between token-carrying chunks, pooled (vLLM's "ITL")
	E2E           Distribution `json:"e2e_ms"`            // last_token_at − start
	Lag           Distribution `json:"scheduling_lag_ms"` // sent_at − scheduled_at, every request sent in the window (wrk2)
	SendOverhead  Distribution `json:"send_overhead_ms"`  // wrote_at − sent_at: the client's own time to get a request onto the wire (connection, encoding, write, and waiting for a CPU), every request sent in the window that was written; with the kernel receive clock, no latency includes its part before the request's first byte left (wire_at − sent_at), while TTFT and E2E include the upload of a large body after it
	// ReceiveQueue is the client's receive queueing: for every token chunk
	// of the ok requests sent in the window that were stamped with the
	// kernel's receive clock, user-space stamp − kernel stamp (the time the
	// chunk waited in the socket and for the client's CPU and parsing).
	// No latency includes it; it grows when the client is busy. Empty
	// when no request used the kernel clock.
	ReceiveQueue Distribution `json:"receive_queue_ms"`
	// ReceiveClock is the clock of the latencies above (the ok requests
	// sent in the window): "kernel" (the kernel's receive time of each
	// chunk), "user" (when the client's goroutine read it), or "mixed";
	// empty when no request had a response. ReceiveClockNote says why
	// requests used the user clock: the first reason met, with the count
	// when mixed; and how many kernel-clock requests had no transmit
	// stamp, whose latencies start at sent_at instead of wire_at
	// (loadgen.Record.LatencyStart), with the first one's reason.
	ReceiveClock     string `json:"receive_clock,omitempty"`
	ReceiveClockNote string `json:"receive_clock_note,omitempty"`

	// Error-adjusted distributions: the ok requests' values plus one +Inf
	// per failed request sent in the window (Distribution.Inf counts them).
	TTFTErrorAdjusted Distribution `json:"ttft_error_adjusted_ms"`
	E2EErrorAdjusted  Distribution `json:"e2e_error_adjusted_ms"`

	// Censored holds what is known of the latencies of the requests sent
	// in the window that were cut off before they finished
	// (Requests.Incomplete: a drain timeout, a level stopped because it
	// already failed, an interrupted run): for each latency they did not
	// reach, a lower bound. The SLO verdicts count them
	// (docs/statistics.md#censored-requests).
	Censored Censored `json:"censored,omitzero"`

	// Token-count distributions, tokens.
	TokensPerChunk Distribution `json:"tokens_per_chunk"`
	PromptTokens   Distribution `json:"prompt_tokens"` // achieved ISL
	OutputTokens   Distribution `json:"output_tokens"` // achieved OSL

	// Throughputs over the window (docs/metrics.md#throughputs).
	OutputTokensPerSecond float64 `json:"output_tok_s"` // output tokens whose chunk arrived in the window (any request, scaled to OutputTokens) / window
	// FailedOutputTokensPerSecond is the part of OutputTokensPerSecond
	// whose requests failed (error or timeout), tokens/s: shown apart,
	// since a server that streams without end until the request timeout
	// fires delivers tokens but no completed request.
	FailedOutputTokensPerSecond float64 `json:"failed_output_tok_s,omitempty"`
	InputTokensPerSecond        float64 `json:"input_tok_s"` // prompt tokens of requests sent in the window and prefilled (ok, or a token arrived) / window
	// CachedInputTokensPerSecond is the part of InputTokensPerSecond the
	// server reported served from its prefix cache
	// (usage.prompt_tokens_details.cached_tokens), tokens/s; 0 when it
	// reports none.
	CachedInputTokensPerSecond float64 `json:"cached_input_tok_s,omitempty"`
	TotalTokensPerSecond       float64 `json:"total_tok_s"`    // input + output
	RequestsPerSecond          float64 `json:"req_s"`          // requests completed ok in the window / window
	MeanConcurrency            float64 `json:"mean_in_flight"` // time-weighted mean of requests in flight over the window
	// OutputTokensPerSecondCI and RequestsPerSecondCI are the batch-means
	// intervals of the two rates (see Batches), tokens/s and req/s.
	OutputTokensPerSecondCI stats.Interval `json:"output_tok_s_ci,omitzero"`
	RequestsPerSecondCI     stats.Interval `json:"req_s_ci,omitzero"`

	// Batches holds the per-sub-window counts behind the rates' intervals.
	Batches Batches `json:"batches"`

	// Goodput counts only requests that succeeded and met every per-request
	// SLO threshold (DistServe, vLLM, AIPerf). Zero without an SLO.
	Goodput Goodput `json:"goodput"`

	Client ClientHealth `json:"client"`

	// Repeats is the spread between runs of a level run several times
	// (--repeat); nil otherwise.
	Repeats *Repeats `json:"repeats,omitempty"`

	// Continues is set when the level continued the sample of the level
	// run just before it at the same load (a level re-run to a decision
	// right after a level of the same profile): the Summary pools both,
	// and Continues says which level and how many of the pooled requests
	// were that level's. Nil otherwise.
	Continues *Continuation `json:"continues,omitempty"`

	// Sessions holds the figures of a multi-turn level by turn index and
	// by session (TTFT by turn, session duration, turns completed); nil
	// for a level without sessions.
	Sessions *SessionStats `json:"sessions,omitempty"`

	Warnings []Warning `json:"warnings,omitempty"`
}

// Censored is the censored part of a level's latencies: the requests sent
// in the window that were cut off before they finished
// (docs/statistics.md#censored-requests). For each latency, a cut-off
// request either reached the event (a first token came: its TTFT is
// known) or did not, and then waited at least done_at − start for it.
type Censored struct {
	// Requests is the number of requests sent in the window that were cut
	// off (= RequestCounts.Incomplete).
	Requests int64 `json:"requests"`
	// HeldOver is set when no request was sent in the window because each
	// of a closed loop's slots was held through all of it by a request
	// sent before it that never answered (a synchronous level against a
	// server that accepts and stays silent): those requests, cut off at
	// the level's end, are then the window's sample, and Requests and
	// RequestCounts.Sent and Incomplete count them.
	HeldOver int64 `json:"held_over,omitempty"`
	// TTFT: from Record.LatencyStart; TTFTCorrected: from scheduled_at;
	// TTFOT: to the first content token; E2E: never reached.
	TTFT          CensoredLatency `json:"ttft,omitzero"`
	TTFTCorrected CensoredLatency `json:"ttft_corrected,omitzero"`
	TTFOT         CensoredLatency `json:"ttfot,omitzero"`
	E2E           CensoredLatency `json:"e2e,omitzero"`
	// ITL: a cut-off request that had begun decoding (its first token
	// came) has an ITL, (E2E − TTFT)/(OSL − 1), of at least (done_at −
	// first_token_at)/(max_tokens − 1) when the server keeps to max_tokens
	// (the level's osl_exceeded count says when one does not). One cut
	// off before its first token is in no ITL: it has not decoded, and
	// counts in TTFT.
	ITL CensoredLatency `json:"itl,omitzero"`
	// ICL pools chunk gaps: a cut-off request's gaps between the chunks
	// that came are exact (Reached), and the gap it was waiting in when
	// cut off is at least done_at − its last chunk (AtLeast).
	ICL CensoredLatency `json:"icl,omitzero"`
}

// CensoredLatency is one latency of the cut-off requests, ms.
type CensoredLatency struct {
	// Reached holds the exact latency of the cut-off requests that reached
	// the event before they were cut off.
	Reached Distribution `json:"reached_ms,omitzero"`
	// AtLeast holds, for each of those that did not, the time it had
	// waited when it was cut off: a lower bound on its latency.
	AtLeast Distribution `json:"at_least_ms,omitzero"`
}

// Continuation names the level whose sample a level continued
// (Summary.Continues).
type Continuation struct {
	// Level is the continued level's index.
	Level int `json:"level"`
	// Requests is the number of requests that level scheduled, now part
	// of the pooled Summary's counts.
	Requests int64 `json:"requests"`
}

// RequestCounts counts requests by outcome. Sent, OK, Failed and Incomplete
// refer to requests sent inside the window.
type RequestCounts struct {
	Scheduled  int64            `json:"scheduled"`  // all requests the level scheduled, warmup and cooldown included
	Sent       int64            `json:"sent"`       // sent inside the window
	OK         int64            `json:"ok"`         // ... and succeeded
	Failed     int64            `json:"failed"`     // ... and failed (error or timeout)
	Incomplete int64            `json:"incomplete"` // ... and were cut off (cancelled) at the level's end
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`

	// Completed counts requests that finished ok with DoneAt inside the
	// window, whenever they were sent: the numerator of RequestsPerSecond.
	Completed int64 `json:"completed_in_window"`
	// TokenCountsCompared counts ok requests sent in the window that carry
	// both a server and a local prompt token count for a prompt sent
	// without a chat template; TokenCountMismatches those whose two counts
	// differ by more than 1 % and more than one token: the tokenizer does
	// not match the served model (docs/metrics.md#isl-and-osl).
	TokenCountsCompared  int64 `json:"token_counts_compared"`
	TokenCountMismatches int64 `json:"token_count_mismatches"`
	// ExactISLCompared counts ok requests sent in the window whose prompt
	// was built to the server's own count (loadgen.Record.
	// PromptTokensExact) and that carry the server's usage.prompt_tokens;
	// ExactISLMissed those where the two differ at all: the server's tokenize
	// endpoint and its usage disagree (a BOS or template one adds and the
	// other does not), so the ISL is off by that much.
	ExactISLCompared int64 `json:"exact_isl_compared,omitempty"`
	ExactISLMissed   int64 `json:"exact_isl_missed,omitempty"`
	// ISLClamped counts requests sent in the window whose drawn ISL was
	// below the shortest prompt the workload can build, and which were
	// sent, and recorded, at that length (loadgen.Record.ISLClampedFrom).
	ISLClamped int64 `json:"isl_clamped,omitempty"`
	// OSLShort counts ok requests sent in the window whose OutputTokens fell
	// short of RequestedOutputTokens (ignore_eos not honoured, or a stop).
	OSLShort int64 `json:"osl_short"`
	// OutputRetokenized counts ok requests sent in the window that carry
	// both a server and a local output count (the generated text
	// re-tokenized); OutputRetokenDiffers those whose counts differ as
	// TokenCountMismatches says. Re-tokenizing generated text is not an
	// identity (a model may emit token sequences the tokenizer would
	// merge otherwise), so this is a note, not a verdict on the tokenizer.
	OutputRetokenized    int64 `json:"output_retokenized,omitempty"`
	OutputRetokenDiffers int64 `json:"output_retokenization_differs,omitempty"`
	// OSLExceeded counts ok requests sent in the window whose OutputTokens
	// exceeded RequestedOutputTokens: a server that ignores max_tokens.
	OSLExceeded int64 `json:"osl_exceeded,omitempty"`
	// UsageRejected counts requests sent in the window, whatever their
	// outcome, whose server usage held an impossible count that the client
	// rejected (loadgen.Record.UsageRejected).
	UsageRejected int64 `json:"usage_rejected,omitempty"`
	// ClientResource counts requests sent in the window that failed on the
	// client's own resources (loadgen.ErrorClientResource: open files,
	// ephemeral ports) before reaching the server. They are neither OK
	// nor Failed: not the server's failures, so not in ErrorRate; they
	// make the level client limited (ClientHealth).
	ClientResource int64 `json:"client_resource,omitempty"`
	// NotSent counts requests sent in the window that never reached the
	// server whole (loadgen.ErrorNotSent: a reused keep-alive connection
	// closed under the write). Neither OK nor Failed.
	NotSent int64 `json:"not_sent,omitempty"`
}

// Goodput is request-level goodput (DistServe, vLLM, AIPerf): the
// requests that finished ok and met every per-request SLO threshold
// (Config.Good). In req/s it counts the good requests sent in the window;
// in tokens/s, the output tokens that arrived in the window from good
// requests, whenever they were sent (requests running when the window
// closes drain and are judged when they end). So goodput ≤ output
// throughput, equal when every request is good.
type Goodput struct {
	Requests              int64   `json:"requests"`     // good requests sent in the window
	RequestsPerSecond     float64 `json:"req_s"`        // Requests / window, req/s
	OutputTokensPerSecond float64 `json:"output_tok_s"` // output tokens of good requests arriving in the window / window, tokens/s
	// Fraction is Requests / (ok + failed) among requests sent in the
	// window (0..1), with its Wilson score interval.
	Fraction   float64        `json:"good_fraction"`
	FractionCI stats.Interval `json:"good_fraction_ci,omitzero"`
	// The batch-means intervals of the two rates (see Summary.Batches).
	RequestsPerSecondCI     stats.Interval `json:"req_s_ci,omitzero"`
	OutputTokensPerSecondCI stats.Interval `json:"output_tok_s_ci,omitzero"`
}

// ClientHealth tells whether the load generator kept up
// (docs/metrics.md#client-health).
type ClientHealth struct {
	TargetRate   float64 `json:"target_req_s,omitempty"`   // open-loop target, req/s
	AchievedRate float64 `json:"achieved_req_s,omitempty"` // requests sent in the window / window, req/s
	// AchievedRatio = AchievedRate / TargetRate (open loop only).
	AchievedRatio float64 `json:"achieved_ratio,omitempty"`
	MaxLag        float64 `json:"max_lag_ms"`       // the lag p99 threshold used, ms
	CPUSeconds    float64 `json:"cpu_s"`            // client process CPU time (user+sys) during the level, s
	CPUPercent    float64 `json:"cpu_percent"`      // CPUSeconds / wall seconds × 100 (can exceed 100 on several cores)
	ClientLimited bool    `json:"client_limited"`   // achieved < 98 % of target, lag p99 > MaxLag, or requests failed on the client's own resources
	Capped        bool    `json:"capped"`           // the shortfall came from MaxConcurrency, not the client
	Reason        string  `json:"reason,omitempty"` // why ClientLimited or Capped is set
	// PeakInFlight is the most requests in flight ([SentAt, DoneAt]) at
	// any instant of the window. For a merged summary it is the sum of the
	// shards' peaks, an upper bound.
	PeakInFlight int64 `json:"peak_in_flight"`
	// HeldBack is the number of arrivals of the open-loop plan that the
	// client's cap on requests in flight (MaxConcurrency) held back and
	// never sent: still queued when the level ended, or beyond the
	// queue's bound (loadgen.MaxQueueDepth). They have no record in
	// requests.jsonl; a level with any is client-limited
	// (docs/metrics.md#client-health).
	HeldBack int64 `json:"held_back,omitempty"`
}
