package sweep

import "github.com/gollm-bench/gollm-bench/metrics"

// Warning codes the sweep adds to Result.Warnings (beside the levels' own,
// from package metrics). Reports group and show them; tools may match on
// the codes, which are stable.
const (
	// WarnBisectInconclusive: bisection stopped at an inconclusive level (undecided or client-limited), which cannot narrow the bracket.
	WarnBisectInconclusive metrics.WarningCode = "bisect_inconclusive"
	// WarnExtendInconclusive: the search above the grid stopped at an inconclusive level.
	WarnExtendInconclusive metrics.WarningCode = "extend_inconclusive"
	// WarnEarlyStop: the grid was cut short: at its first failure when the
	// search follows, run as a binary search for that failure, or after two
	// consecutive wide failures (Plan.EarlyStop).
	WarnEarlyStop metrics.WarningCode = "early_stop"
	// WarnInterrupted: the sweep stopped early: interrupted, or its runner failed.
	WarnInterrupted metrics.WarningCode = "interrupted"
	// WarnKneeBelowRange: the first level already failed: the knee lies below the tested range.
	WarnKneeBelowRange metrics.WarningCode = "knee_below_range"
	// WarnKneeNotReached: every level decided passed: the knee lies above the tested range, safe capacity unknown.
	WarnKneeNotReached metrics.WarningCode = "knee_not_reached"
	// WarnLevelBudget: Plan.MaxLevels was spent before the bracket reached the tolerance.
	WarnLevelBudget metrics.WarningCode = "level_budget"
	// WarnNonMonotonic: a level passed above a failing one: verdicts are not monotonic in load.
	WarnNonMonotonic metrics.WarningCode = "non_monotonic"
	// WarnNonStationary: a level re-run at the same load failed a term that
	// the level it re-ran had measured at under half its threshold: the
	// server or the client machine changed during the sweep.
	WarnNonStationary metrics.WarningCode = "non_stationary"
	// WarnUndecided: an SLO term of a level was inconclusive: its interval
	// straddles the threshold. The message gives the interval and about how
	// many more requests would decide it.
	WarnUndecided metrics.WarningCode = "undecided"
	// WarnUnbounded: a headline percentile (TTFT p99, ITL p95) of a level
	// has no bound on one side at 95 % confidence (the p99 of fewer than
	// 299 requests has no upper bound).
	WarnUnbounded metrics.WarningCode = "interval_unbounded"
	// WarnGoodputFormulaDisagrees: at the knee, request-level goodput and
	// the seed formula differ by more than 10 %.
	WarnGoodputFormulaDisagrees metrics.WarningCode = "goodput_formula_disagrees"
)
