// Package metrics turns a load level's request records into its Summary:
// latency and token distributions, throughputs over the measured window,
// error rate, goodput and client health, as docs/metrics.md defines them.
//
// Running and reporting are separate stages. The load generator emits one
// loadgen.Record per request; once a level is over and its measured window
// is known, an Accumulator takes every record of the level and computes the
// Summary once. Reporters only format it.
//
// # Definitions
//
// All latencies are offsets between the record's monotonic time stamps,
// reported in ms:
//
//   - The latencies below start at Record.LatencyStart: wire_at (the
//     kernel's transmit stamp of the request's last byte, or of its
//     first write where a server held up the upload) with the kernel
//     receive clock, sent_at otherwise; written "start".
//   - TTFT = first_token_at − start; TTFT corrected = first_token_at −
//     scheduled_at (wrk2's coordinated-omission correction, meaningful for
//     open-loop modes); TTFOT = first_content_at − start.
//   - E2E = last_token_at − start (a trailing usage or [DONE] frame does
//     not stretch it).
//   - ITL (AIPerf, GenAI-Perf; TPOT is a synonym) = (E2E − TTFT) / (OSL − 1)
//     per request, for OSL ≥ 2, with OSL the record's OutputTokens.
//   - ICL, inter-chunk latency (what vLLM calls ITL): every gap between
//     consecutive token-carrying chunks, pooled over requests.
//   - Scheduling lag = sent_at − scheduled_at.
//
// Latency distributions use the requests sent inside the window that
// finished ok. Output throughput counts the tokens whose chunk arrived
// inside the window, exactly, from each chunk's time stamp. Error-adjusted
// TTFT and E2E count each failure as +Inf, so a run where most requests
// fail never looks healthy; +Inf is written to JSON as the string "inf".
// Goodput (DistServe, vLLM, AIPerf) counts the ok requests that met every
// per-request SLO threshold, through Config.Good.
//
// # Distributions and merging
//
// Every Distribution comes from an HDR histogram (hdrhistogram-go, 3
// significant digits, latencies in µs from 0 to 1 h, token counts up to
// 2^30), kept in the Distribution in hdrhistogram-go's compressed base64
// encoding. Merge combines two distributions exactly; MergeSummaries combines
// the summaries of the shards of one level (docs/cli.md#distributed-runs) so
// that the result equals what one process would have computed from all
// records. Percentile and FractionAtOrBelow read any percentile or CDF point
// back.
//
// # Warnings
//
// Caveats are data: Summary.Warnings carries one Warning per problem
// (codes WarnClientLimited, WarnCapped,
// WarnTokenCountMismatch, WarnOSLShort, WarnNoRequests, WarnEmptyWindow,
// WarnHighErrorRate, WarnShardWindowsDiffer), and every report shows them.
//
// Live is a separate, cheap, concurrency-safe tally for the progress line.
package metrics
