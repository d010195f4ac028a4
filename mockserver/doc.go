// Package mockserver is gollm-bench's simulated OpenAI-compatible inference
// server: `gollm-bench mock-server`, the in-process target of `run` and
// `sweep` without --target, and the server of every HTTP test. It is
// public so that an embedder's tests can start it in-process, as
// net/http/httptest starts a handler:
//
//	srv, _ := mockserver.New(mockserver.Config{})    // or a Preset("demo")
//	ts := httptest.NewServer(srv.Handler())
//	defer ts.Close()
//	defer srv.Close()
//	// point an openai.Client at ts.URL, model mockserver.DefaultModel
//
// docs/mock-server.md documents its latency model, presets and faults.
//
// # Endpoints and shapes
//
// /v1/models, /v1/completions, /v1/chat/completions (streaming and not),
// /health and /metrics (Prometheus text with vLLM's names:
// vllm:num_requests_running, vllm:num_requests_waiting,
// vllm:prompt_tokens_total, vllm:generation_tokens_total,
// vllm:request_success_total{finished_reason}). Streams follow vLLM: chat
// opens with a role-only chunk (sent with the first token, after prefill),
// one token per chunk, finish_reason in the chunk of the last token, a
// usage chunk with "choices": [] when stream_options.include_usage is set,
// then "data: [DONE]". The output is common English words, one tokenizer
// token each, deterministic in (Seed, prompt).
//
// Request fields honoured: max_completion_tokens, else max_tokens, else
// Config.DefaultMaxTokens (16); min_tokens; ignore_eos; stream;
// stream_options.include_usage. With ignore_eos the output is exactly the
// limit (finish "length"). Without it the mock samples an EOS position L
// uniformly in [min_tokens+1, limit], seeded by (Seed, prompt): L = limit
// ends with "length"; otherwise L−1 text tokens, then an empty chunk with
// finish "stop", and usage.completion_tokens = L (EOS counted, as vLLM and
// llama.cpp do). Config.OutputTokens forces a fixed length.
// usage.prompt_tokens is HeuristicTokens (whitespace-separated words) unless
// WithTokenCounter gives the served tokenizer; a chat request's is the sum
// of its messages' counts, each message counted on its own, plus
// Config.ChatTemplateTokens per message.
//
// # Latency model
//
// One scheduler goroutine owns simulated time for all requests; handlers
// submit a sequence and wait on a wake channel, so thousands of streams
// cost one timer, not one sleep each. Two models:
//
// SchedulerBatch (continuous batching, vLLM-like). The engine runs one
// step at a time. At a step's start it admits queued sequences FIFO while
// fewer than MaxBatch (B; 0 = unlimited) run. The step lasts
//
//	step = ITLBase + ITLPerSeq × batch + PrefillPerToken × (prompt tokens admitted)
//
// where batch counts the running sequences, new ones included. At its end
// every running sequence gets one token (a new one its first: prefill and
// first decode share the step). A request arriving mid-step waits for the
// next step, so TTFT = rest of the current step + the admitting step (+
// queueing when the batch is full), and ITL = the step time, which grows
// with the batch. Config.Steady, Capacity and KneeRate give the mean-field
// predictions; docs/mock-server.md derives them.
//
// SchedulerFixed (the zero value; for client benchmarks). Each sequence
// has its own timeline: first token TTFT + PrefillPerToken × prompt after
// admission, then one every ITL (all at once when ITL is 0). MaxBatch, if
// set, caps sequences in service with a FIFO queue. Token times sit in a
// min-heap; the goroutine sleeps until the earliest.
//
// # Faults
//
// Config.ErrorRate fails a seeded fraction of requests with
// Config.ErrorStatus; Config.Fault and the X-Mock-Fault request header
// inject the faults of ParseFault's grammar (HTTP errors, an error inside
// a 200 stream, a disconnect after K chunks, slow headers, a stall,
// several tokens per chunk, role-only and usage-only chunks, no [DONE],
// "data:" without a space, CRLF, comment lines, and answers a broken
// server or proxy gives: a 200 with an HTML, JSON, text or empty body,
// streams of null events, an impossible usage count).
//
// # Ground truth
//
// WithGroundTruth keeps a RequestTrace per request: arrival, header flush
// and the flush time of every token chunk, keyed by the response id (also
// the X-Request-Id header) and the prompt, so a test can measure a
// client's timing error.
package mockserver
