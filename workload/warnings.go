package workload

import "github.com/gollm-bench/gollm-bench/metrics"

// WarnISLNotExact: prompts sized without the served tokenizer missed the
// requested ISL by more than 10 % in the server's count (metrics.Warning
// code).
const WarnISLNotExact metrics.WarningCode = "isl_not_exact"
