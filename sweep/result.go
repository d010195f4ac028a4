package sweep

import (
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Phase says why a level ran.
type Phase string

// Level phases.
const (
	PhaseGrid   Phase = "grid"   // the fixed grid (GuideLLM's sweep, or the explicit levels)
	PhaseBisect Phase = "bisect" // the knee search between the last pass and the first fail
	PhaseExtend Phase = "extend" // above the grid, when every grid level passed
	PhaseDecide Phase = "decide" // a level that decides the knee, re-run to a decision (Plan.Decide)
	// PhaseRamp is a closed-loop level of the concurrency ramp that finds
	// a rate sweep's maximum rate when the throughput level could not
	// (docs/sweep.md#the-maximum-rate); like the throughput level, it is a
	// probe and never a knee point.
	PhaseRamp Phase = "ramp"
)

// Cost is what a level, or a whole sweep, spent: the price of a decision.
type Cost struct {
	// Requests is the number of requests the level scheduled (sent, or cut
	// off before they were), warm-up and cool-down trims included; for a
	// level that continued an earlier one's sample, only its own.
	Requests int64 `json:"requests"`
	// Seconds is the wall time the level took, s: its schedule, the drain
	// of its requests in flight, and any settle probe before it.
	Seconds float64 `json:"seconds"`
}

// Units of offered load.
const (
	UnitReqPerSec   = "req/s"
	UnitConcurrency = "concurrency"
)

// StopReason says why a sweep ended.
type StopReason string

// Stop reasons.
const (
	StopCompleted     StopReason = "completed"      // the grid ran and the knee search converged, or was not needed
	StopLevelBudget   StopReason = "level_budget"   // Plan.MaxLevels was spent first
	StopInterrupted   StopReason = "interrupted"    // ctx was cancelled
	StopRunnerError   StopReason = "runner_error"   // the LevelRunner failed
	StopGridUndefined StopReason = "grid_undefined" // the synchronous level measured no request rate
)

// LevelOutcome is one level the sweep ran, in run order.
type LevelOutcome struct {
	// Index is the level's 0-based index, as passed to RunLevel and written
	// in each Record.Level.
	Index   int             `json:"index"`
	Phase   Phase           `json:"phase"`
	Profile loadgen.Profile `json:"profile"`
	// OfferedLoad is the level's load in Unit: the target rate of an
	// open-loop level, the concurrency of a concurrent level, the measured
	// request rate of the synchronous level, and the estimated maximum rate
	// of the throughput level (MaxRate).
	OfferedLoad float64         `json:"offered_load"`
	Unit        string          `json:"unit"`
	Summary     metrics.Summary `json:"summary"`
	Verdict     slo.Verdict     `json:"verdict"`
	// Partial is set when the level was cut short (interruption or runner
	// error); its Summary covers what finished, and the knee ignores it.
	Partial bool `json:"partial,omitempty"`
	// Error is the runner's error for a partial level.
	Error string `json:"error,omitempty"`
	// Decisive is set when the level ran until it was decided and its
	// precision targets were met, within its bounds (Plan.Decide).
	Decisive bool `json:"decisive,omitempty"`
	// RerunBy is the Index of the PhaseDecide level that re-ran this one
	// to a decision; the knee search reads that level instead. 0 when
	// there was none (level 0 is never a re-run).
	RerunBy int `json:"rerun_by,omitempty"`
	// Cost is what the level spent (requests and seconds).
	Cost Cost `json:"cost,omitzero"`
}

// Knee is the highest offered load that passed the SLO
// (docs/metrics.md#the-knee), with its bracket and the goodput there. Reports
// format it, e.g. "knee: 7.4 req/s (bracket 7.4–7.8), goodput 3,120 tok/s
// under ttft_p99<=500ms".
type Knee struct {
	// Level is the index of the knee level in Result.Levels.
	Level   int             `json:"level"`
	Profile loadgen.Profile `json:"profile"`
	// OfferedLoad is the knee in Unit (req/s or concurrency).
	OfferedLoad float64 `json:"offered_load"`
	Unit        string  `json:"unit"`
	// BracketLo and BracketHi bound the true knee: BracketLo = OfferedLoad
	// (the highest pass below the first failure), BracketHi the lowest
	// failing load. Reached is false (and BracketHi 0) when nothing failed:
	// the knee lies above the tested range.
	BracketLo float64 `json:"bracket_lo"`
	BracketHi float64 `json:"bracket_hi,omitempty"`
	Reached   bool    `json:"reached"`
	// Goodput is the knee level's request-level goodput (Summary.Goodput):
	// its tokens/s is the scorecard's goodput_tok_s.
	Goodput metrics.Goodput `json:"goodput"`
	// OutputTokPerSec is the knee level's output throughput, tokens/s.
	OutputTokPerSec float64 `json:"output_tok_s"`
	// SeedGoodputTokPerSec is slo.SeedGoodput at the knee with the SLO's
	// ttft and itl thresholds, tokens/s; 0 without both terms.
	SeedGoodputTokPerSec float64 `json:"seed_goodput_tok_s,omitempty"`
	// FailLevel is the index of the level at BracketHi, the lowest failing
	// load; −1 when the knee was not reached. With Level it names the two
	// levels that decided the knee.
	FailLevel int `json:"fail_level"`
}

// Result is a sweep's outcome: every level run, the knee, and warnings.
type Result struct {
	Kind      Kind           `json:"kind"`
	Objective slo.Objective  `json:"slo"`
	Levels    []LevelOutcome `json:"levels"`
	// Knee is nil without an Objective or when no level passed.
	Knee *Knee `json:"knee,omitempty"`
	// Warnings is the complete list: each level's Summary warnings (Level
	// set to the level index) followed by the sweep's own (knee not
	// reached, knee below range, few samples, client-limited, early stop,
	// non-monotonic verdicts, level budget, interrupted); no duplicates.
	Warnings []metrics.Warning `json:"warnings,omitempty"`
	// Undecided lists, in load order, the levels of the knee search whose
	// verdict was inconclusive: an SLO term whose interval straddled its
	// threshold, or a client-limited level. They neither pass nor bracket
	// the knee; the knee line names them.
	Undecided []int `json:"undecided_levels,omitempty"`
	// Partial is set when the sweep was interrupted or its runner failed.
	Partial    bool       `json:"partial,omitempty"`
	StopReason StopReason `json:"stop_reason"`
	// Cost is what the whole sweep spent: the sum of its levels' costs
	// (Seconds excludes the time between levels, e.g. telemetry setup).
	Cost Cost `json:"cost,omitzero"`
}

// ExitCode maps the result to the process exit code: exitcode.Partial when
// interrupted; exitcode.Failure when requests were sent and none succeeded
// (every one failed or was cut off unanswered), with or without an
// Objective. Otherwise, without an Objective, exitcode.OK. For a sweep (KindRate,
// KindConcurrency): exitcode.OK when some complete level passed (a knee was
// found), otherwise exitcode.SLOFailed when every level decided failed and
// exitcode.Undecided when some were inconclusive. For fixed levels
// (KindLevels, `gollm-bench run`): exitcode.SLOFailed when any complete level
// failed, otherwise exitcode.Undecided when any was inconclusive, otherwise
// exitcode.OK. Runtime and usage failures (1, 2) are the caller's: Run's error
// tells them apart.
func (r Result) ExitCode() int {
	if r.Partial {
		return exitcode.Partial
	}
	if r.nothingSucceeded() {
		return exitcode.Failure
	}
	if r.Objective.IsZero() || len(r.Levels) == 0 {
		return exitcode.OK
	}
	var pass, fail, undecided bool
	for _, l := range r.Levels {
		if l.Partial {
			continue
		}
		switch l.Verdict.Outcome {
		case slo.OutcomePass:
			pass = true
		case slo.OutcomeFail:
			fail = true
		default:
			undecided = true
		}
	}
	if r.Kind == KindLevels {
		switch {
		case fail:
			return exitcode.SLOFailed
		case undecided:
			return exitcode.Undecided
		}
		return exitcode.OK
	}
	switch {
	case pass:
		return exitcode.OK
	case undecided:
		return exitcode.Undecided
	}
	return exitcode.SLOFailed
}

// nothingSucceeded reports whether requests were sent in the complete
// levels' windows and none of them succeeded: they failed or were cut off
// unanswered (a server that accepts and never answers). That is a runtime
// failure whatever the SLO says.
func (r Result) nothingSucceeded() bool {
	var sent, ok int64
	for _, l := range r.Levels {
		if l.Partial {
			continue
		}
		sent += l.Summary.Requests.OK + l.Summary.Requests.Failed + l.Summary.Requests.Incomplete
		ok += l.Summary.Requests.OK
	}
	return sent > 0 && ok == 0
}
