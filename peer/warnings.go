package peer

import "github.com/gollm-bench/gollm-bench/metrics"

// Warning codes the importers raise (metrics.Warning.Code).
const (
	// WarnNonStreamingTTFT: an AIPerf run without streaming reports a TTFT
	// that is the whole response time.
	WarnNonStreamingTTFT metrics.WarningCode = "non_streaming_ttft"
	// WarnNoSuccessfulRequests: a vLLM benchmark level completed no request.
	WarnNoSuccessfulRequests metrics.WarningCode = "no_successful_requests"
	// WarnLoadNotStated: the file pools several loads (inference-perf's
	// summary of every stage), so its level states no load.
	WarnLoadNotStated metrics.WarningCode = "load_not_stated"
	// WarnNoLevels: a GuideLLM file holds no benchmark.
	WarnNoLevels metrics.WarningCode = "no_levels"
	// WarnNoRecords: an AIPerf per-request export holds no profiling record.
	WarnNoRecords metrics.WarningCode = "no_records"
	// WarnFilesDisagree: two files of one peer result folder give
	// different figures for the same level.
	WarnFilesDisagree metrics.WarningCode = "files_disagree"
	// WarnNoLoadSettings: a CSV export does not say the load it ran at.
	WarnNoLoadSettings metrics.WarningCode = "no_load_settings"
	// WarnNotReproduced: a setting of a peer result that `run --like`
	// (Result.Load) does not reproduce; the message names it and the flag
	// that overrides it.
	WarnNotReproduced metrics.WarningCode = "like_not_reproduced"
	// WarnPercentilesDecrease: a distribution's percentiles decrease
	// (p99 below p50), which no set of measurements gives; the message
	// names the field.
	WarnPercentilesDecrease metrics.WarningCode = "percentiles_decrease"
)
