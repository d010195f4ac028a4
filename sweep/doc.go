// Package sweep runs a load sweep over levels and finds the knee: the highest
// offered load at which the server still meets its SLO
// (docs/metrics.md#the-knee, docs/sweep.md).
//
// A Plan describes the sweep. The rate form is GuideLLM-compatible: a
// synchronous level, a throughput level, then N−2 open-loop (constant or
// Poisson) rates spaced linearly between the synchronous request rate and
// the maximum rate the throughput level measured (MaxRate: its output
// tokens per second over the mean output length), synchronous excluded and
// maximum included, as GuideLLM's sweep profile does. When that maximum is
// not above the synchronous rate, the grid is spaced geometrically up to a
// bound instead of collapsing (Run says which). The concurrency form runs
// AIPerf-style closed-loop levels (--profile concurrent --rate 1,2,4,...,64).
//
// Beyond GuideLLM, with an slo.Objective the sweep judges every level
// (slo.Objective.Evaluate) and, after the grid, bisects between the highest
// passing load and the first failing one until the bracket is within
// Plan.KneeTolerance (5 % by default) or Plan.MaxLevels is spent. The Knee
// carries the bracket and the goodput at the knee level.
//
// Run drives a LevelRunner, which the caller implements with the load
// generator and the metrics accumulator; levels run one at a time on the
// caller's goroutine. Warnings are data (metrics.Warning) in the Result, and
// Result.ExitCode maps the outcome to the exit codes of package exitcode
// (docs/cli.md#exit-codes).
package sweep
