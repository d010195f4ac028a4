-- wrk script: one streamed completion per request, the same body the bench
-- clients send (16 prompt words, 16 output tokens, usage in the stream).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"mock-model","prompt":"w w w w w w w w w w w w w w w w","max_tokens":16,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}'
