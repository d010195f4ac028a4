// Package workload builds the requests a benchmark sends: synthetic prompts
// that hit a requested input length (ISL) exactly in the served model's
// tokens, and prompts read from dataset files (JSONL or ShareGPT JSON).
//
// Sessions (NewSessions) is a multi-turn chat workload
// (loadgen.SessionWorkload): each session's turn count and think times
// are drawn from the seed, each turn adds the server's reply and a new
// user message (synthetic and exact in the served tokenizer, or a ShareGPT
// conversation's next user turn, ReadConversations) to the conversation.
//
// Lengths come from a LengthSampler: GuideLLM's --data spelling
// (ParseData: "prompt_tokens=1024,output_tokens=256,prompt_tokens_stdev=..")
// or AIPerf's --sequence-distribution grammar (ParseSequenceDistribution:
// "64|10,32|8:70;256|40,128|20:20").
//
// Everything random derives from one seed and the request's sequence number,
// so the same seed, spec and nonce give the same prompts byte for byte, in
// any order and under any concurrency (docs/metrics.md#isl-and-osl).
//
// Prefix-cache state is declared and controlled (docs/metrics.md#isl-and-osl,
// --prefix-cache): PrefixCold gives every prompt a unique leading token
// sequence (seeded by the run's nonce and the sequence number), so no two
// requests of a run, nor two runs with different nonces, share a cacheable
// prefix; PrefixWarm makes every prompt start with the same declared number
// of tokens, which must be below the declared ISL (SyntheticConfig.Validate
// refuses it otherwise).
//
// Traces and shared prefixes. ReadTrace reads a published request trace
// (Mooncake JSON Lines, the Azure LLM inference CSV, BurstGPT's CSV) into
// arrival times and lengths; Trace.Window and Trace.Offsets give the
// schedule of a loadgen.SchedulePacer, and Replay builds each line's
// prompt at its exact input length, Mooncake lines sharing the text of
// the prefix blocks their hash_ids share. SharedPrefix is inference-perf's
// shared_prefix workload: groups of prompts that share a group's prefix
// and end with their own question. Both build every prompt before the
// run, so a long prompt never delays its request.
package workload
