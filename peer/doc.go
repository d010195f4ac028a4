// Package peer reads other benchmark tools' result files into one
// tool-neutral model and compares two results level by level, for
// `gollm-bench compare A B` (docs/compare.md): "same load, our numbers next
// to theirs".
//
// # Reading
//
// ReadFile and Read detect the format by content, never by file name, trying
// an ordered list of Readers (default Builtin()):
//
//   - ReadGuideLLM: GuideLLM benchmarks.json or .yaml, 0.2–0.3 layout
//     (`benchmarks` only), 0.4 (`args`), 0.5–0.6 (`metadata` v1) and 0.7+
//     (`metadata` v2 + `config`).
//   - ReadAIPerf: AIPerf profile_export_aiperf.json (≤ 0.1 `records` layout
//     and the flat ≥ 0.8 layout) and GenAI-Perf profile_export_genai_perf.json.
//   - ReadVLLM: benchmark_serving.py / `vllm bench serve --save-result`
//     JSON, and `vllm bench sweep serve` summary.json (a list of them).
//   - ReadAIPerfRecords: AIPerf's per-request profile_export.jsonl; its
//     Level carries Samples (one value per successful request).
//   - ReadProfileCSV: AIPerf profile_export_aiperf.csv, GenAI-Perf
//     profile_export_genai_perf.csv and analyze_export_genai_perf.csv.
//
// ReadDir (and ReadPath for a file or a folder) reads every result file
// under a folder as one run, as AIPerf writes one folder per concurrency,
// and attaches a profile_export.jsonl to the JSON export beside it. Merge
// joins results of one tool.
//
// There is no global registry: a caller adds a Reader (for gollm-bench's own
// run.json, say) with WithReaders. A file no Reader recognises yields an
// *UnknownFormatError naming the file and what each Reader expected.
//
// Missing values are never zeros: Value, Count and Bool carry an OK flag
// and encode to JSON null when missing.
//
// # Workload and load
//
// Result.Workload holds what the file says about its load beyond each
// level's discipline (endpoint, streaming, model, tokenizer, synthetic
// lengths or dataset, limits, warm-up, SLO), each with the key it came
// from. Result.Load maps it onto the load gollm-bench runs for
// `gollm-bench run --like FILE`, and lists, with the file's key, what
// cannot be reproduced (a dataset not on this machine, an API other than
// completions and chat, levels of different disciplines). GoodputSLO maps
// vLLM's and AIPerf's goodput thresholds onto a gollm-bench SLO.
//
// # Metric mapping
//
// Tools use the same names for different things. Each Level field holds one
// gollm-bench quantity (docs/metrics.md#across-tools), filled from the tool
// key that measures it; Level.Definitions records the key and its Kind:
//
//	Level field      gollm-bench definition     GuideLLM                          AIPerf / GenAI-Perf          vLLM
//	TTFT             first token − sent         time_to_first_token_ms            ttft / time_to_first_token   *_ttft_ms
//	ITL              (E2E−TTFT)/(OSL−1), per    inter_token_latency_ms (same      inter_token_latency          *_tpot_ms ("TPOT")
//	                 request                    per-request value; ≥ 0.4 weights
//	                                            requests by OSL−1)
//	ICL              chunk gaps, pooled         —                                 inter_chunk_latency (AIPerf) *_itl_ms ("ITL")
//	TPOT             = ITL                      time_per_output_token_ms          —                            *_tpot_ms
//	                                            (E2E/OSL: includes the first token)
//	E2E              last token − sent          request_latency (s → ms)          request_latency              *_e2el_ms
//	OutputTokPerSec  tokens in window / window  output_tokens_per_second mean     output_token_throughput      output_throughput
//	                                            (mean of a rate distribution)
//	ReqPerSec        ok requests / window       requests_per_second mean          request_throughput           request_throughput
//
// So comparing vLLM's "ITL" with ours compares it with our ICL, and vLLM's
// "TPOT" with our ITL. TPOT is not compared row by row, since GuideLLM's
// includes the first token.
//
// # Comparing
//
// Compare matches levels by load: closed-loop levels on exact concurrency
// (synchronous = concurrency 1), open-loop levels on offered rate within
// ±5 % (RateTolerance), throughput with throughput. Unmatched levels are
// listed in Comparison.UnmatchedA/B. Comparison.Rows gives, per matched
// level, TTFT p50/p99, ITL mean/p95, ICL mean/p95, E2E p50/p99, output tok/s
// and req/s for both sides with the ratio B/A (missing when either side is);
// Row.Like is false where the two definitions differ, and Comparison.Notes
// says how. Comparison.AllRows adds the rows of levels only one side has
// (Row.LevelA or LevelB is -1). WriteText renders a plain table;
// package compare decides each row (intervals, "~") for the CLI.
//
// Everything here is plain data or pure functions, safe for concurrent use.
package peer
