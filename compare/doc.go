// Package compare decides whether B differs from a baseline A: two runs of
// gollm-bench, or one of ours and a peer's (GuideLLM, AIPerf, GenAI-Perf,
// vLLM), or two peers' — `gollm-bench compare A B`.
//
// Read loads one side: a results folder (run.json with its scorecard.json
// and requests.jsonl when present), a folder of peer results, or a peer
// file; FromRun maps a run.json onto the tool-neutral model of package
// peer. Runs matches the two sides' levels by load (peer.Compare), then
//
//   - checks the workload first: profile, achieved ISL and OSL (mean and
//     spread), endpoint, streaming, tokenizer, prefix-cache state,
//     ignore_eos, SLO, warmup and cooldown. Result.Mismatches lists every
//     fact stated differently, and every row is marked when there is one;
//   - decides each metric of each matched level (Row): A and B with their
//     95 % intervals, the delta B − A with an interval of at least 95 %,
//     relative to A, and a Verdict: "~" when the interval holds 0, as
//     benchstat prints, else better or worse; "?" when a side holds only
//     the figure. Row.Method says how the interval was computed: a seeded
//     bootstrap when both sides have per-request records, order statistics
//     from histograms otherwise, Welch's t for means, batch means for
//     rates, Newcombe's interval for the error rate;
//   - decides the summary block: the knee (its bracket is its interval),
//     goodput, CPM and Wh/token at the knee, and TTFT p99 and ITL p95
//     there.
//
// ParseFailOn reads `--fail-on "ttft_p99:+5%,goodput:-3%"`; Regressions
// lists the rows that moved the wrong way beyond their threshold with a
// significant change, for CI's exit code. docs/statistics.md ("Comparing
// two runs") states the methods and their sources.
//
// Everything here is plain data and pure functions (Read does file I/O),
// safe for concurrent use.
package compare
