// Package benchmark assembles a whole benchmark run, as `gollm-bench run`
// and `gollm-bench sweep` do: from its Settings (typed values, one field
// per flag) it builds the client of the target (or starts the
// built-in mock), the workload, the telemetry sources, the level runner
// and the results folder; Run then runs the fixed levels or the knee
// search, and writes run.json, scorecard.json, requests.jsonl and the
// reports, even after an interruption or a failure.
//
// The pieces it assembles are packages an embedder can use alone:
// loadgen (one level's schedule and requests), openai (the client),
// metrics (summaries with intervals), slo (verdicts), harness (one level
// end to end), sweep (the knee search), results and scorecard (the
// outputs). Use this package to get the whole product from a program.
//
// Errors: New returns an *InputError for a bad setting, before anything is
// sent or written; its message names the setting by its Settings field
// (by its flag with Options.FlagNames, as the CLI does) and says how to
// fix it. Run's error is a runtime failure; Outcome.Code is
// the exit code the CLI gives the outcome (package exitcode).
package benchmark
