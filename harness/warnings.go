package harness

import (
	"fmt"
	"math"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Warning codes this package raises (metrics.Warning.Code).
const (
	// WarnTelemetryFailed: a telemetry source (GPU energy, engine metrics)
	// failed to read over a level's window.
	WarnTelemetryFailed metrics.WarningCode = "telemetry_failed"
	// WarnDrained: before a level, the server was still busy with the
	// requests the previous level cut off (Config.SettleProbe).
	WarnDrained metrics.WarningCode = "drained"
	// WarnCutOff: a level was known to fail the SLO when its schedule
	// ended, so its requests in flight were cut off at once (censored)
	// instead of drained.
	WarnCutOff metrics.WarningCode = "cut_off_failing"
	// WarnContinued: a level run to a decision continued the sample of the
	// level run just before it at the same load (Summary.Continues).
	WarnContinued metrics.WarningCode = "continued"
	// WarnUnreachable: a level stopped because its first requests all
	// failed to connect (Limits.UnreachableAfter).
	WarnUnreachable metrics.WarningCode = "target_unreachable"
	// WarnRunToRunVariance: a figure of a repeated level moved more from
	// run to run than its within-run interval accounts for; verdicts and
	// the scorecard then use the between-run interval, the wider.
	WarnRunToRunVariance metrics.WarningCode = "run_to_run_variance"
	// WarnPrecisionNotReached: a precision-driven level ended (at its
	// MaxDuration or MaxRequests bound, or interrupted) before a precision
	// target was met; the message names the target, the relative
	// half-width reached and what stopped the level.
	WarnPrecisionNotReached metrics.WarningCode = "precision_not_reached"
	// WarnWarmupErrors: requests of the run-level warm-up phase failed, so
	// the server may not have been warm when the first level started.
	WarnWarmupErrors metrics.WarningCode = "warmup_errors"
)

// precisionWarnings returns one WarnPrecisionNotReached warning for each
// target of p that s, the final summary of a level that res describes,
// does not meet: its relative half-width reached against the goal, the
// requests measured and the bound that ended the level (lim). A level that
// fails o is said to have stopped pursuing precision.
func precisionWarnings(level int, p slo.Precision, o slo.Objective, s metrics.Summary, res loadgen.LevelResult, lim loadgen.Limits) []metrics.Warning {
	var ws []metrics.Warning
	for _, st := range p.Check(s) {
		if st.Met {
			continue
		}
		reached := "unbounded"
		if !math.IsInf(st.RelativeHalfWidth, 0) && !math.IsNaN(st.RelativeHalfWidth) {
			reached = fmt.Sprintf("±%.3g %%", 100*st.RelativeHalfWidth)
		}
		var why string
		switch res.StopReason {
		case loadgen.StopMaxDuration:
			why = fmt.Sprintf("the level's time bound (%v) ended it", lim.MaxDuration)
		case loadgen.StopMaxRequests:
			why = fmt.Sprintf("the level's request bound (%d requests) ended it", lim.MaxRequests)
		case loadgen.StopRequested:
			why = "the level stopped once its SLO was decided"
		default:
			why = "the level stopped: " + string(res.StopReason)
		}
		if !o.IsZero() && o.Evaluate(s).Outcome == slo.OutcomeFail {
			why += "; precision is not pursued once the level fails its SLO"
		}
		ws = append(ws, metrics.Warning{Code: WarnPrecisionNotReached, Level: level, Message: fmt.Sprintf(
			"level %d: precision target %s not reached: interval half-width %s of the estimate (target ±%s %%) on %d requests; %s; raise the bound to reach it",
			level, st.Target, reached, strings.TrimSuffix(fmt.Sprintf("%.3g", 100*st.Target.Fraction), ".0"), st.Samples, why)})
	}
	return ws
}
