package enginemetrics

import "github.com/gollm-bench/gollm-bench/metrics"

// Warning codes this package raises (metrics.Warning.Code).
const (
	// WarnCounterReset: an engine counter went backwards during the window
	// (a restart): its delta is not counted.
	WarnCounterReset metrics.WarningCode = "engine_counter_reset"
	// WarnTokenMismatch: the engine's token counters and the client's
	// counts over the window differ by more than 1 %.
	WarnTokenMismatch metrics.WarningCode = "engine_token_mismatch"
	// WarnUnrecognised: the /metrics page carries none of the vLLM,
	// SGLang, llama.cpp or TGI families: nothing was read from it.
	WarnUnrecognised metrics.WarningCode = "engine_metrics_unrecognised"
)
