// Package enginemetrics reads what the inference engine itself counted over a
// benchmark window, from its Prometheus /metrics endpoint (read and parsed by
// package prom, histograms as their _count and _sum): prompt and generation
// token deltas, finished requests by finished_reason, the prefix-cache hit
// ratio, peak KV-cache usage and peak queue length. It knows vLLM's V1 names
// (vllm:*, with the "engine" label, summed over engine cores), SGLang's
// (sglang:*), llama.cpp's llama-server (llamacpp:*, served with --metrics)
// and Hugging Face TGI's (tgi_*); Snapshot's field comments name the series
// each value comes from. A page with none of these families is reported as
// not recognised (a warning on the Delta), never as zeros. CrossCheck
// compares the engine's token counts with the client's and warns past 1 %
// (the tolerance of docs/metrics.md#isl-and-osl), which catches tokenizer
// drift, other clients sharing the server and window-edge effects.
package enginemetrics
