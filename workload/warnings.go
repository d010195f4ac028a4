package workload

import "github.com/gollm-bench/gollm-bench/metrics"

// WarnISLNotExact: prompts sized without the served tokenizer missed the
// requested ISL by more than 10 % in the server's count (metrics.Warning
// code).
const WarnISLNotExact metrics.WarningCode = "isl_not_exact"

// WarnChatTemplate: on /chat/completions the served model's chat template
// could not be read or rendered, so the ISL counts the prompt alone and
// the server counts the template's tokens on top (metrics.Warning code).
const WarnChatTemplate metrics.WarningCode = "chat_template_not_rendered"
