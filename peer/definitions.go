package peer

// Kind identifies what a metric measures, independent of the name a tool
// gives it. Two figures are like for like exactly when their Kinds are equal;
// Compare adds a Note wherever they differ.
type Kind string

// Metric kinds found in peer result files and in gollm-bench's own run.json.
const (
	// KindTTFT: first token-carrying response chunk − request sent, per
	// request (all tools; docs/metrics.md#ttft).
	KindTTFT Kind = "ttft"
	// KindITLPerRequest: per request (E2E − TTFT)/(OSL − 1), each request
	// counted once (AIPerf and GenAI-Perf inter_token_latency, vLLM TPOT,
	// gollm-bench ITL).
	KindITLPerRequest Kind = "itl_per_request"
	// KindITLTokenWeighted: the same per-request value, (last − first
	// token)/(OSL − 1), but with each request weighted by OSL − 1, so the
	// mean equals the mean of all token gaps (GuideLLM ≥ 0.4
	// inter_token_latency_ms; the distribution's count is Σ(OSL − 1)).
	KindITLTokenWeighted Kind = "itl_token_weighted"
	// KindICL: every gap between consecutive token-carrying chunks, pooled
	// over requests (vLLM ITL, AIPerf inter_chunk_latency, gollm-bench ICL).
	KindICL Kind = "icl"
	// KindTPOTWithFirst: per request E2E / OSL, so the first token's wait
	// (TTFT) is included (GuideLLM time_per_output_token_ms).
	KindTPOTWithFirst Kind = "tpot_incl_first_token"
	// KindE2E: request latency, request sent → last token or final response
	// (GuideLLM request_latency, AIPerf request_latency, vLLM e2el,
	// gollm-bench E2E).
	KindE2E Kind = "e2e"
	// KindTokPerSecWindow: output tokens / benchmark duration (AIPerf,
	// GenAI-Perf, vLLM output_throughput, gollm-bench output_tok_s).
	KindTokPerSecWindow Kind = "output_tokens_over_duration"
	// KindTokPerSecRateMean: the mean of GuideLLM's output-token rate
	// distribution over the run (output_tokens_per_second.successful.mean).
	KindTokPerSecRateMean Kind = "output_token_rate_mean"
	// KindReqPerSecWindow: successful requests / benchmark duration (AIPerf,
	// GenAI-Perf, vLLM request_throughput, gollm-bench req_s).
	KindReqPerSecWindow Kind = "requests_over_duration"
	// KindReqPerSecRateMean: the mean of GuideLLM's request rate
	// distribution (requests_per_second.successful.mean).
	KindReqPerSecRateMean Kind = "request_rate_mean"
)

// Describe returns a one-line human description of k, naming the tools that
// use it; unknown kinds describe themselves.
func (k Kind) Describe() string {
	switch k {
	case KindTTFT:
		return "first token − request sent"
	case KindITLPerRequest:
		return "per request (E2E − TTFT)/(OSL − 1), each request counted once"
	case KindITLTokenWeighted:
		return "per request (E2E − TTFT)/(OSL − 1), weighted by OSL − 1 (mean = mean token gap)"
	case KindICL:
		return "every gap between token-carrying chunks, pooled over requests"
	case KindTPOTWithFirst:
		return "per request E2E / OSL: includes the first token's wait (TTFT)"
	case KindTokenGaps:
		return "every gap between consecutive output tokens, pooled over requests: a chunk of several tokens adds gaps of microseconds"
	case KindE2E:
		return "request sent → last token"
	case KindTokPerSecWindow:
		return "output tokens / benchmark duration"
	case KindTokPerSecRateMean:
		return "mean of the output-token rate distribution over the run"
	case KindReqPerSecWindow:
		return "successful requests / benchmark duration"
	case KindReqPerSecRateMean:
		return "mean of the request rate distribution over the run"
	}
	return string(k)
}

// Definition records where one metric of a Level came from: the tool's own
// key (Source) and what it measures (Kind). The zero Definition means the
// metric is absent.
type Definition struct {
	// Source is the tool's key path, e.g. "mean_itl_ms" or
	// "benchmarks[0].metrics.inter_token_latency_ms.successful".
	Source string `json:"source,omitempty"`
	// Kind is what the figure measures.
	Kind Kind `json:"kind,omitempty"`
	// Name is the tool's own name for the metric, set only where it differs
	// from the Level field's (vLLM calls ICL "ITL" and ITL "TPOT").
	Name string `json:"name,omitempty"`
}

// Definitions records, for each metric of a Level, its source key and kind.
type Definitions struct {
	TTFT            Definition `json:"ttft"`
	ITL             Definition `json:"itl"`
	ICL             Definition `json:"icl"`
	TPOT            Definition `json:"tpot"`
	E2E             Definition `json:"e2e"`
	OutputTokPerSec Definition `json:"output_tok_s"`
	ReqPerSec       Definition `json:"req_s"`
}

// Native returns the Definitions of gollm-bench's own metrics
// (docs/metrics.md), with the run.json keys as sources. A Reader for our
// run.json sets these on every Level so that Compare finds our figures like
// for like with AIPerf's and notes where GuideLLM's or vLLM's differ.
func Native() Definitions {
	return Definitions{
		TTFT:            Definition{Source: "ttft_ms", Kind: KindTTFT},
		ITL:             Definition{Source: "itl_ms", Kind: KindITLPerRequest},
		ICL:             Definition{Source: "icl_ms", Kind: KindICL},
		TPOT:            Definition{Source: "itl_ms", Kind: KindITLPerRequest},
		E2E:             Definition{Source: "e2e_ms", Kind: KindE2E},
		OutputTokPerSec: Definition{Source: "output_tok_s", Kind: KindTokPerSecWindow},
		ReqPerSec:       Definition{Source: "req_s", Kind: KindReqPerSecWindow},
	}
}
