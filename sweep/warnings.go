package sweep

// Warning codes the sweep adds to Result.Warnings (beside the levels' own,
// from package metrics). Reports group and show them; tools may match on
// the codes, which are stable.
const (
	// WarnUndecided: an SLO term of a level was inconclusive: its interval
	// straddles the threshold. The message gives the interval and about how
	// many more requests would decide it.
	WarnUndecided = "undecided"
	// WarnUnbounded: a headline percentile (TTFT p99, ITL p95) of a level
	// has no bound on one side at 95 % confidence (the p99 of fewer than
	// 299 requests has no upper bound).
	WarnUnbounded = "interval_unbounded"
	// WarnGoodputFormulaDisagrees: at the knee, request-level goodput and
	// the seed formula differ by more than 10 %.
	WarnGoodputFormulaDisagrees = "goodput_formula_disagrees"
)
