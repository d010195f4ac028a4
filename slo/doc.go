// Package slo parses service-level objectives for LLM serving and judges load
// levels and single requests against them (docs/metrics.md#the-slo,
// docs/metrics.md#goodput).
//
// An Objective is a conjunction of terms written as
//
//	ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%,output_tps>=1000
//
// Parse reads that grammar into a typed Objective, reporting a *ParseError
// with the term and column on bad input; Objective.String prints the
// canonical form, which Parse reads back to an equal Objective.
//
// Three consumers use an Objective:
//   - the sweep judges each level with Objective.Evaluate, which reads a
//     metrics.Summary and returns a Verdict (a client-limited level, or
//     one without a successful request, never passes);
//   - the metrics accumulator counts goodput with Objective.Good, the
//     request-level predicate of DistServe, vLLM and AIPerf;
//   - reports set SeedGoodput (throughput × P[TTFT <= x] × P[ITL <= y])
//     beside the measured goodput as a cross-check.
//
// Objective.MaxLag gives the default client-health lag limit: 5 % of the
// tightest latency threshold, or 10 ms without one.
//
// Units: latency thresholds and measurements are in ms, error_rate is a
// fraction in [0, 1], output_tps is tokens/s. Objectives are immutable
// values, safe for concurrent use.
package slo
