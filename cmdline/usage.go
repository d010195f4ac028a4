package cmdline

// CompareUsage is the text of `gollm-bench compare --help` above its flags:
// what the command reads and compares, and its exit codes.
const CompareUsage = `usage: gollm-bench compare A B [C...] [flags]

Is B better than A? Each input is a gollm-bench results folder (or its
run.json), a GuideLLM benchmarks.json/.yaml, an AIPerf or GenAI-Perf export
(JSON, CSV, or AIPerf's per-request profile_export.jsonl), a vLLM benchmark
result, an inference-perf lifecycle report (stage_N_ or
summary_lifecycle_metrics.json), or a folder of peer results read as one run
(AIPerf writes one folder per concurrency). The first is the baseline; every other is compared with it.
Levels are matched by offered rate or concurrency. Every delta has a 95%
interval; "~" means no significant difference.

Exit codes: 0 every --fail-on change lies within its limit, 2 bad input (or
--strict and the workloads differ, or a --fail-on metric neither input
holds), 3 a --fail-on change's whole interval lies beyond its limit, 5 a
--fail-on change's interval holds its limit (undecided: the output says how
many more requests or --repeat runs would decide it). Runs made with
--repeat are compared by the spread between their runs.

`
