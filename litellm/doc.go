// Package litellm reads what a LiteLLM proxy accounted over a benchmark
// window, when the benchmark's target is such a proxy: the deltas of its
// Prometheus counters litellm_input_tokens_metric_total,
// litellm_output_tokens_metric_total, litellm_total_tokens_metric_total,
// litellm_input_cached_tokens_metric_total and litellm_spend_metric_total,
// filtered by model or requested_model.
//
// A Meter reads them at a window's start and end (Start, Stop), either
// from the proxy's own /metrics or through a Prometheus server that
// stores them (increase() over the window; see package prom). The source
// "target" sends the benchmark's credentials (WithTargetHeader): the proxy
// serves /metrics only with its key by default. The Reading holds
// LiteLLM's token counts and spend, and SpendCPM its spend per 1M output
// tokens. CrossCheck compares LiteLLM's token counts with the client's
// (those of the requests that ended in the window, as LiteLLM counts
// them) and warns past 1 %, as the engine's cross-check does.
//
// LiteLLM's spend is in the currency of its model prices (its built-in
// price map is in US dollars); the package does not convert it. The cost
// LiteLLM gives each response (the x-litellm-response-cost header, or a
// stream's usage.cost) is read by package openai into
// loadgen.Record.ResponseCost.
package litellm
