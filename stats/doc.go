// Package stats holds the estimators of uncertainty behind every figure
// gollm-bench prints: distribution-free confidence intervals for quantiles
// from order statistics, Wilson score intervals for fractions, Student-t
// intervals for means (batch means over sub-windows for rates, and the
// spread between repeated runs), and the sample sizes that would decide a
// threshold. docs/statistics.md states each method, its assumptions and
// its source, with a worked example.
//
// Every interval is two-sided at Confidence (95 %) unless a function says
// otherwise. An Interval whose side cannot be bounded at that confidence
// holds −Inf or +Inf there: JSON writes it as null and reports print
// "unbounded", never a number.
//
// The package is pure computation: no I/O, no state, safe for concurrent
// use. Its inputs are counts and ranks, so that callers can read order
// statistics from whatever holds their samples (gollm-bench reads them
// from HDR histograms, which merge exactly across shards).
package stats
