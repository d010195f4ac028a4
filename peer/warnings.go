package peer

import "github.com/gollm-bench/gollm-bench/metrics"

// Warning codes the importers raise (metrics.Warning.Code).
const (
	// WarnNonStreamingTTFT: an AIPerf run without streaming reports a TTFT
	// that is the whole response time.
	WarnNonStreamingTTFT metrics.WarningCode = "non_streaming_ttft"
	// WarnNoSuccessfulRequests: a vLLM benchmark level completed no request.
	WarnNoSuccessfulRequests metrics.WarningCode = "no_successful_requests"
	// WarnNoLevels: a GuideLLM file holds no benchmark.
	WarnNoLevels metrics.WarningCode = "no_levels"
)
