package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
)

// LevelRunner runs one load level and summarises it. The integrator
// implements it with the load generator and the metrics accumulator.
//
// RunLevel must honour ctx. When it stops early (ctx cancelled, or a
// failure mid-level) it returns the Summary of what finished, if any, with
// a non-nil error; the sweep keeps that level, marked Partial. level is the
// 0-based level index to stamp on records.
type LevelRunner interface {
	RunLevel(ctx context.Context, level int, p loadgen.Profile) (metrics.Summary, error)
}

// DecidingRunner is a LevelRunner that can also run a level until it is
// measured well enough: its SLO verdict decided and its precision targets
// met, within its bounds (harness.Runner with Config.Precision). With
// Plan.Decide, the knee search runs the levels that decide the knee this
// way, and the grid at the plain length.
type DecidingRunner interface {
	LevelRunner
	RunLevelToDecision(ctx context.Context, level int, p loadgen.Profile) (metrics.Summary, error)
}

// ObjectiveRunner is a LevelRunner that measures each level against an
// SLO of its own (harness.Runner: goodput counts the requests that meet
// its per-request thresholds). Run reads the SLO from it, so that it is
// given once: Plan.Objective may be left empty, and a different one is an
// error.
type ObjectiveRunner interface {
	LevelRunner
	Objective() slo.Objective
}

// LevelRunnerFunc adapts a function to LevelRunner.
type LevelRunnerFunc func(ctx context.Context, level int, p loadgen.Profile) (metrics.Summary, error)

// RunLevel calls f.
func (f LevelRunnerFunc) RunLevel(ctx context.Context, level int, p loadgen.Profile) (metrics.Summary, error) {
	return f(ctx, level, p)
}

// ErrGridUndefined is returned (wrapped) when a rate sweep cannot space its
// grid because the synchronous level completed no request in its window.
var ErrGridUndefined = errors.New("cannot space the rate grid")

// CapacityReporter is implemented by a LevelRunner that can say how many
// requests the server itself reported running at once during a level (for
// example from the engine's /metrics). A rate sweep asks it only when the
// throughput level cannot give a maximum rate above the synchronous one;
// the grid then reaches the synchronous rate times that concurrency.
type CapacityReporter interface {
	// ServerConcurrency returns the most requests the server reported
	// running at once during level (0-based, as passed to RunLevel), or 0
	// when it is unknown.
	ServerConcurrency(level int) float64
}

// FallbackFactor bounds the rate grid at FallbackFactor × the synchronous
// rate when the throughput level measured no maximum rate above the
// synchronous one and the runner reports no server concurrency.
const FallbackFactor = 8

// EventType tells a progress Event's kind.
type EventType int

// Progress event types.
const (
	LevelStart EventType = iota // a level is about to run
	LevelEnd                    // a level finished (possibly partial)
)

// Event reports progress to the callback given with WithProgress.
type Event struct {
	Type    EventType
	Index   int
	Phase   Phase
	Profile loadgen.Profile
	// Outcome is the finished level, for LevelEnd only.
	Outcome *LevelOutcome
	// Expected estimates how many levels the sweep runs in all, this one
	// included, as it knows now: the grid, then the bisection steps that
	// the bracket's width and Plan.KneeTolerance call for, within
	// Plan.MaxLevels. It can grow (an extension above the grid, a level
	// re-run to a decision) or shrink (an early stop). Live views show
	// "level Index+1 of Expected" and a total ETA from it.
	Expected int
}

// Option configures Run.
type Option func(*options)

type options struct {
	progress func(Event)
}

// WithProgress calls fn at the start and end of every level, synchronously
// on Run's goroutine (fn must not block for long).
func WithProgress(fn func(Event)) Option {
	return func(o *options) { o.progress = fn }
}

// Run executes plan with runner, one level at a time, and returns every
// level's outcome, the knee and the warnings.
//
// Rate sweep (GuideLLM-compatible start): level 0 is synchronous, level 1
// throughput; then N−2 open-loop levels at rates spaced linearly between
// the synchronous level's request rate (Summary.RequestsPerSecond) and the
// throughput level's maximum rate, excluding the synchronous rate and
// including the maximum, as GuideLLM's SweepProfile does
// (linspace(sync, max, N−1)[1:]). The maximum rate is the throughput
// level's output tokens per second divided by the mean output length of
// the synchronous level's requests (see MaxRate); it is the throughput
// level's OfferedLoad. When it is not above the synchronous rate by more
// than KneeTolerance the linear grid would be degenerate: the grid is then
// spaced geometrically from the synchronous rate up to that rate times the
// server's reported concurrency (CapacityReporter), or times FallbackFactor
// when none is reported, with a "max_rate_fallback" warning saying why; with
// an Objective, such a grid stops early as with Plan.EarlyStop.
// With Plan.Rates, the grid is exactly those open-loop rates.
// Concurrency sweep: one closed-loop level per Plan.Rates entry.
//
// Knee search (beyond GuideLLM): with an Objective, the knee points are the
// synchronous level (at its measured rate) and the open-loop levels of a
// rate sweep, or every level of a concurrency sweep; the throughput level
// is a saturation probe and never a knee. After the grid, Run bisects
// between the highest pass below the first failure and that failure until
// (hi−lo)/hi <= KneeTolerance (for concurrencies, also until hi−lo <= 1),
// or MaxLevels levels have run.
//
// Interruption: when ctx is cancelled or the runner fails, Run returns the
// levels finished so far plus the partial one, Partial set, the knee over
// the complete levels, and a non-nil error (wrapping ctx's error or the
// runner's). An invalid plan returns an error and an empty Result.
func Run(ctx context.Context, plan Plan, runner LevelRunner, opts ...Option) (Result, error) {
	if err := plan.Validate(); err != nil {
		return Result{}, err
	}
	if o, ok := runner.(ObjectiveRunner); ok {
		// The SLO is given once, to the runner, which judges each request
		// against it for goodput; the sweep reads it from there.
		switch ro := o.Objective(); {
		case plan.Objective.IsZero():
			plan.Objective = ro
		case !plan.Objective.Equal(ro):
			return Result{}, fmt.Errorf("sweep: Plan.Objective is %q but the runner measures goodput against %q: give the SLO once, to the runner (harness.Config.Objective), and leave Plan.Objective empty",
				plan.Objective, ro)
		}
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	s := &sweeper{plan: plan.withDefaults(), runner: runner, opts: o, failedAt: -1}
	s.res = Result{Kind: s.plan.Kind, Objective: s.plan.Objective, StopReason: StopCompleted}
	err := s.run(ctx)
	s.finish()
	return s.res, err
}

type sweeper struct {
	plan   Plan
	runner LevelRunner
	opts   options
	res    Result

	wideRun   int  // consecutive wide failures among grid knee points
	stopped   bool // early stop fired
	spent     bool // the level budget is spent
	sweepWarn []metrics.Warning

	// failedAt is the index of the first grid knee point that failed the
	// SLO, which ends the grid when bisection follows (−1: none).
	failedAt int
	// extended counts the levels run above the grid (maxExtend).
	extended int
}

func (s *sweeper) run(ctx context.Context) error {
	if err := s.grid(ctx); err != nil || s.spent {
		return err
	}
	if s.plan.Objective.IsZero() || s.plan.NoBisect || s.plan.Kind == KindLevels {
		return nil
	}
	if !s.deciding() {
		// Levels at the plain length: probe above the grid, then bisect
		// as far as they decide.
		if err := s.extend(ctx); err != nil || s.spent {
			return err
		}
		return s.bisect(ctx)
	}
	// Probe above the grid for a failure (short levels), then search below
	// it with levels run to a decision; a decided pass with nothing
	// failing above it sends the probe higher once more.
	for range 2 {
		if err := s.extend(ctx); err != nil || s.spent {
			return err
		}
		if err := s.search(ctx); err != nil || s.spent {
			return err
		}
	}
	return nil
}

// search decides the knee with levels run to a decision (Plan.Decide),
// spending them as high as it can: a pass needs about as many requests at
// any rate (765 for error_rate<=0.5%), and takes less time at a higher
// one. Its bracket is the lowest failing load above and, below, the
// highest knee candidate that did not fail, decided or not (a short grid
// level is usually undecided). While the bracket is wider than
// KneeTolerance it bisects it; once it is narrow, an undecided lower end
// is re-run to a decision (PhaseDecide, marking the level it decides with
// RerunBy), and a failure there lowers the ceiling. When nothing has
// failed, the highest level is re-run to a decision so that the knee (not
// reached) is a decided pass. A level run to a decision and still
// undecided (its bound reached) ends the search with a warning.
func (s *sweeper) search(ctx context.Context) error {
	for {
		k := kneeOf(s.res.Levels, s.plan.Kind)
		ceiling := math.Inf(1)
		if k.fail >= 0 {
			ceiling = s.res.Levels[k.fail].OfferedLoad
		}
		lo := s.lowerEnd(ceiling)
		if lo < 0 {
			return nil // nothing below the first failure can pass: the knee is below the range
		}
		l := s.res.Levels[lo]
		mid := l.OfferedLoad + (ceiling-l.OfferedLoad)/2
		if s.plan.Kind == KindConcurrency {
			mid = math.Floor(mid)
		}
		// A midpoint already run to its bound and left undecided would
		// measure the same: decide the lower end instead.
		narrow := k.fail < 0 || s.narrow(l.OfferedLoad, ceiling) || s.undecidable(mid)
		if narrow {
			switch {
			case l.Verdict.Outcome == slo.OutcomePass:
				return nil // the knee's lower bracket
			case l.Decisive:
				s.warn(WarnBisectInconclusive, l.Index, fmt.Sprintf(
					"the knee search stopped: level %d (%s) was run to a decision and is still %s", l.Index, formatLoad(l.OfferedLoad, s.unit()), undecidedWhy(l)))
				return nil
			}
			out, err := s.level(ctx, PhaseDecide, l.Profile)
			if err != nil || s.spent {
				return err
			}
			s.res.Levels[lo].RerunBy = out.Index
			if k.fail < 0 && out.Verdict.Outcome != slo.OutcomeFail {
				return nil // nothing failed above: extend again, or stop
			}
			continue
		}
		if !(mid > l.OfferedLoad && mid < ceiling) {
			return nil
		}
		out, err := s.level(ctx, PhaseBisect, s.profile(mid))
		if err != nil || s.spent {
			return err
		}
		switch {
		case out.Verdict.Decided():
		case out.Verdict.ClientLimited || out.Verdict.TooShort:
			s.warn(WarnBisectInconclusive, out.Index, fmt.Sprintf(
				"bisection stopped: level %d (%s) was %s, so it cannot narrow the bracket; free the client machine or raise the maximum scheduling lag (MaxLag)",
				out.Index, formatLoad(mid, s.unit()), undecidedWhy(out)))
			return nil
		default:
			// Run to its bound and still undecided (too few requests at
			// this rate within the bound): the search goes on below it.
			s.warn(WarnBisectInconclusive, out.Index, fmt.Sprintf(
				"level %d (%s) was still %s at its bound, so the search goes on below it; longer levels that decide the knee (the runner's DecideLimits) would decide it",
				out.Index, formatLoad(mid, s.unit()), undecidedWhy(out)))
		}
	}
}

// undecidable reports whether a level at load x was already run to a
// decision and left undecided at its bound.
func (s *sweeper) undecidable(x float64) bool {
	for _, l := range s.res.Levels {
		if kneeCandidate(l, s.plan.Kind) && l.Decisive && !l.Verdict.Decided() && l.OfferedLoad == x {
			return true
		}
	}
	return false
}

// lowerEnd is the index of the highest knee candidate below ceiling that
// did not fail and can still be decided (not client-limited or too short,
// nor run to a decision and left undecided at its bound), or −1.
func (s *sweeper) lowerEnd(ceiling float64) int {
	best := -1
	for i, l := range s.res.Levels {
		if !kneeCandidate(l, s.plan.Kind) || l.OfferedLoad >= ceiling || l.Verdict.Outcome == slo.OutcomeFail ||
			l.Verdict.ClientLimited || l.Verdict.TooShort || l.Decisive && !l.Verdict.Decided() {
			// A level run to its bound and still undecided would measure
			// the same again: the search looks below it.
			continue
		}
		if best < 0 || l.OfferedLoad > s.res.Levels[best].OfferedLoad ||
			l.OfferedLoad == s.res.Levels[best].OfferedLoad && l.Verdict.Pass {
			best = i
		}
	}
	return best
}

// narrow reports whether the bracket [lo, hi] is within KneeTolerance
// (for concurrencies, also whether no whole concurrency lies inside).
func (s *sweeper) narrow(lo, hi float64) bool {
	if (hi-lo)/hi <= s.plan.KneeTolerance {
		return true
	}
	return s.plan.Kind == KindConcurrency && hi-lo <= 1
}

// deciding reports whether the sweep runs knee-deciding levels to a
// decision (Plan.Decide with a DecidingRunner).
func (s *sweeper) deciding() bool {
	_, ok := s.runner.(DecidingRunner)
	return s.plan.Decide && ok
}

// maxExtend bounds the levels run above the grid when none of it failed.
const maxExtend = 6

// extend goes past the grid while no level of it failed: GuideLLM's grid
// stops at the throughput level's measured rate, which a flooded server
// underestimates (a llama.cpp server serving 8 at a time measured 5.0
// req/s under 512 in flight, 40 % below its knee), so the knee can lie
// above it. It steps the load up from the highest level run (×1.25 for
// rates, ×2 for concurrency) with levels of the grid's plain length, which
// cannot decide a pass but decide a clear failure quickly, until one
// fails, at most maxExtend times in all; the search then decides the knee
// below that failure. A client-limited or too-short level ends it: the
// client cannot offer more.
func (s *sweeper) extend(ctx context.Context) error {
	for s.extended < maxExtend {
		if k := kneeOf(s.res.Levels, s.plan.Kind); k.fail >= 0 {
			return nil
		}
		top := -1
		for i, l := range s.res.Levels {
			if kneeCandidate(l, s.plan.Kind) && (top < 0 || l.OfferedLoad > s.res.Levels[top].OfferedLoad) {
				top = i
			}
		}
		if top < 0 {
			return nil
		}
		if t := s.res.Levels[top]; t.Verdict.ClientLimited || t.Verdict.TooShort {
			return nil // the search cannot learn more above a level the client could not offer
		}
		load := s.res.Levels[top].OfferedLoad
		next := load * 1.25
		if s.plan.Kind == KindConcurrency {
			next = load * 2
		}
		s.extended++
		out, err := s.level(ctx, PhaseExtend, s.profile(next))
		if err != nil || s.spent {
			return err
		}
		if !out.Verdict.Decided() && (out.Verdict.ClientLimited || out.Verdict.TooShort) {
			s.warn(WarnExtendInconclusive, out.Index, fmt.Sprintf(
				"the search above the grid stopped: level %d (%s) was %s", out.Index, formatLoad(next, s.unit()), undecidedWhy(out)))
			return nil
		}
	}
	return nil
}

// grid runs the fixed grid.
func (s *sweeper) grid(ctx context.Context) error {
	p := s.plan
	var loads []float64
	switch {
	case p.Kind == KindLevels:
		for _, prof := range p.Levels {
			if _, err := s.level(ctx, PhaseGrid, prof); err != nil || s.spent {
				return err
			}
		}
		return nil
	case p.Kind == KindConcurrency || len(p.Rates) > 0:
		loads = slices.Clone(p.Rates)
		slices.Sort(loads)
		loads = slices.Compact(loads)
	default:
		sync, err := s.level(ctx, PhaseGrid, loadgen.Profile{Mode: loadgen.ModeSynchronous, Concurrency: 1})
		if err != nil || s.spent {
			return err
		}
		lo := sync.Summary.RequestsPerSecond
		if !(lo > 0) {
			// No flood against a server that answered nothing.
			s.res.StopReason = StopGridUndefined
			if c := sync.Summary.Censored.TTFT.AtLeast; sync.Summary.Requests.OK == 0 && c.Count > 0 {
				return fmt.Errorf("sweep: %w: the synchronous level completed no request in its window: its %d request(s) were cut off after waiting up to %.3g s without a first token, so the server did not answer; check that it is serving, or lengthen the levels (Limits.MaxDuration) beyond one request's duration",
					ErrGridUndefined, c.Count, c.Max/1000)
			}
			return fmt.Errorf("sweep: %w: the synchronous level completed no request in its window (%.4g req/s); lengthen the levels (Limits.MaxDuration) beyond one request's duration, or give the rates in Plan.Rates",
				ErrGridUndefined, lo)
		}
		if s.failedAt >= 0 {
			s.warn(WarnEarlyStop, -1, fmt.Sprintf(
				"grid stopped: the synchronous level (%s) failed the SLO, so the knee lies below the tested range; the throughput level and the rate grid were not run", formatLoad(lo, s.unit())))
			return nil
		}
		thr, err := s.level(ctx, PhaseGrid, loadgen.Profile{Mode: loadgen.ModeThroughput, MaxConcurrency: p.MaxConcurrency})
		if err != nil || s.spent {
			return err
		}
		ramped, err := s.rampIfNeeded(ctx, lo, thr)
		if err != nil || s.spent {
			return err
		}
		loads = s.rateGrid(lo, thr, ramped)
		slices.Sort(loads)
		loads = slices.Compact(loads)
		if s.deciding() && !p.Objective.IsZero() && !p.NoBisect {
			return s.binaryGrid(ctx, loads)
		}
	}
	for i, x := range loads {
		if s.failedAt >= 0 {
			s.warn(WarnEarlyStop, -1, fmt.Sprintf(
				"grid stopped: level %d failed the SLO, so the knee lies below %s; %d grid level(s) from %s skipped, and the search goes on below the failure",
				s.failedAt, formatLoad(s.res.Levels[s.failedAt].OfferedLoad, s.unit()), len(loads)-i, formatLoad(x, s.unit())))
			return nil
		}
		if s.stopped {
			s.warn(WarnEarlyStop, -1, fmt.Sprintf(
				"early stop: two consecutive levels failed the SLO by more than %g×; %d grid level(s) from %s skipped",
				p.EarlyStopFactor, len(loads)-i, formatLoad(x, s.unit())))
			return nil
		}
		if _, err := s.level(ctx, PhaseGrid, s.profile(x)); err != nil || s.spent {
			return err
		}
	}
	return nil
}

// binaryGrid runs the rate grid's levels in the order of a binary search
// for its first failure, when the levels that decide the knee run to a
// decision (Plan.Decide) and bisection follows: a plain-length grid level
// decides a failure but rarely a pass, so all the grid can tell the search
// is where failures begin, and about log2(N) levels find that instead of
// N. It assumes, as the knee does, that a load above a failing one fails
// too. The levels not run are named in an early_stop warning. Without
// Decide (`--precision quick`) the whole grid runs, as GuideLLM's does.
func (s *sweeper) binaryGrid(ctx context.Context, loads []float64) error {
	lo, hi := -1, len(loads) // loads[lo] did not fail; loads[hi] failed (len: none yet)
	ran := 0
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		out, err := s.level(ctx, PhaseGrid, s.profile(loads[mid]))
		if err != nil || s.spent {
			return err
		}
		ran++
		if out.Verdict.Outcome == slo.OutcomeFail {
			hi = mid
		} else {
			lo = mid
		}
	}
	if skipped := len(loads) - ran; skipped > 0 {
		where := "none of them failed"
		if hi < len(loads) {
			where = fmt.Sprintf("the first failure is at %s", formatLoad(loads[hi], s.unit()))
		}
		s.warn(WarnEarlyStop, -1, fmt.Sprintf(
			"grid searched: %d of its %d rates run, in the order of a binary search for the first failure (%s); the %d others were not needed",
			ran, len(loads), where, skipped))
	}
	return nil
}

// rampSteps bounds the levels of the concurrency ramp.
const rampSteps = 8

// rampGain is the growth of the completed request rate below which the
// concurrency ramp stops: doubling the requests in flight bought less
// than 10 %.
const rampGain = 1.10

// rampTrigger: a throughput level whose maximum rate is not above
// rampTrigger × the synchronous rate is not trusted to bound the grid. A
// server that batches serves several requests at once for little more
// than one's time, so its maximum is usually several times its
// synchronous rate; a flood that measures less than twice it has more
// likely degraded the server (llama.cpp, 8 slots: 5.0 and 6.65 req/s
// under 512 in flight, against 6.3 one at a time and a knee above 10).
const rampTrigger = 2

// rampIfNeeded finds the maximum rate when the throughput level may not
// have (its maximum rate not above rampTrigger × the synchronous rate lo,
// as on a server that degrades under a 512-request flood) and the runner
// reports no server concurrency: it runs closed-loop levels
// at concurrency 2, 4, 8, ... (PhaseRamp, the grid's plain length) until
// a level fails the SLO (more in flight would only queue), or two
// doublings in a row raise the completed request rate by less than
// rampGain over the best so far, at most rampSteps levels, or up to the
// throughput level's concurrency. It returns the best rate measured
// (req/s), or 0 when it did not run.
func (s *sweeper) rampIfNeeded(ctx context.Context, lo float64, thr LevelOutcome) (float64, error) {
	if thr.OfferedLoad > lo*rampTrigger {
		return 0, nil
	}
	if r, ok := s.runner.(CapacityReporter); ok && r.ServerConcurrency(thr.Index) >= 2 {
		return 0, nil
	}
	limit := s.plan.MaxConcurrency
	if limit <= 0 {
		limit = loadgen.DefaultThroughputConcurrency
	}
	best, flat := lo, 0
	for c, step := 2, 0; c <= limit && step < rampSteps; c, step = c*2, step+1 {
		s.plan.MaxLevels++ // the ramp measures capacity, as the throughput level does: not taken from the search's budget
		out, err := s.level(ctx, PhaseRamp, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: c})
		if err != nil || s.spent {
			return best, err
		}
		r := out.Summary.RequestsPerSecond
		if out.Verdict.Outcome == slo.OutcomeFail && r > 0 {
			// The SLO already fails at this many in flight: the knee's
			// rate lies below what this level sustained, and more in
			// flight would only queue.
			best = max(best, r)
			break
		}
		if r >= best*rampGain {
			flat = 0
		} else if flat++; flat == 2 {
			// Two doublings bought nothing: one flat step can be noise
			// (the level after the throughput level's flood meets its
			// backlog).
			best = max(best, r)
			break
		}
		best = max(best, r)
	}
	return best, nil
}

// rateGrid returns the N−2 open-loop rates of a rate sweep above the
// synchronous rate lo, given the throughput level thr and the maximum rate
// the concurrency ramp measured (0: none ran).
func (s *sweeper) rateGrid(lo float64, thr LevelOutcome, ramped float64) []float64 {
	n := s.plan.N - 2
	loads := make([]float64, 0, n)
	linear := func(hi float64) []float64 {
		for k := 1; k <= n; k++ {
			loads = append(loads, lo+(hi-lo)*float64(k)/float64(n))
		}
		return loads
	}
	if ramped > lo*(1+s.plan.KneeTolerance) && ramped > thr.OfferedLoad {
		s.warn("max_rate_ramp", -1, fmt.Sprintf(
			"the throughput level measured a maximum rate of %.4g req/s, less than %d× the synchronous %.4g req/s (a server that degrades when flooded, or cannot batch), so a closed-loop concurrency ramp measured it: %.4g req/s; the grid is spaced linearly from %.4g up to it",
			thr.OfferedLoad, rampTrigger, lo, ramped, lo))
		return linear(ramped)
	}
	if hi := thr.OfferedLoad; hi > lo*(1+s.plan.KneeTolerance) {
		return linear(hi)
	}
	factor, source := float64(FallbackFactor), fmt.Sprintf(
		"%d× the synchronous rate, as neither the server's reported concurrency nor a concurrency ramp gave a maximum rate (give the Runner a CapacityReporter, such as engine metrics, or give the rates in Plan.Rates)", FallbackFactor)
	if r, ok := s.runner.(CapacityReporter); ok {
		if c := r.ServerConcurrency(thr.Index); c >= 2 {
			factor, source = c, fmt.Sprintf("the synchronous rate × the %g requests the server reported running at once during the throughput level", c)
		}
	}
	hi := lo * factor
	if !s.plan.Objective.IsZero() && !s.plan.EarlyStop {
		// The bound is loose: most of the grid may lie far above the
		// server's maximum, where every level fails and leaves a backlog.
		s.plan.EarlyStop = true
		source += "; as that bound is loose, the rest of the grid is skipped once two levels fail the SLO widely (as with Plan.EarlyStop)"
	}
	s.warn("max_rate_fallback", -1, fmt.Sprintf(
		"the throughput level measured a maximum rate of %.4g req/s, not above the synchronous %.4g req/s by more than %g %%, so a grid between the two would be degenerate; "+
			"the grid is spaced geometrically from %.4g up to %.4g req/s instead: %s",
		thr.OfferedLoad, lo, 100*s.plan.KneeTolerance, lo, hi, source))
	for k := 1; k <= n; k++ {
		loads = append(loads, lo*math.Pow(factor, float64(k)/float64(n)))
	}
	return loads
}

// MaxRate estimates the highest request rate the server sustains, req/s,
// from a throughput level (thr) and the synchronous level (sync) of the
// same workload: the output tokens thr delivered per second of its window,
// divided by the mean output length. A saturated server's completions
// arrive in bursts (a batch admitted together finishes together) and none
// arrive before the first request's end, so counting them in a short
// window is noisy or zero, while its tokens flow from the first decode
// step; in steady state the two agree (completions/s × mean output length
// = output tokens/s). The mean comes from sync's requests, which all ran
// to their end; a saturated level's completions favour short outputs when
// lengths vary. Without it, thr's own mean is used, and without either,
// thr's completed requests per second.
func MaxRate(thr, sync metrics.Summary) float64 {
	osl := sync.OutputTokens.Mean
	if !(osl > 0) || sync.OutputTokens.Count == 0 {
		osl = thr.OutputTokens.Mean
	}
	if osl > 0 && thr.OutputTokensPerSecond > 0 && !math.IsInf(osl, 0) {
		return thr.OutputTokensPerSecond / osl
	}
	return thr.RequestsPerSecond
}

// bisect narrows the bracket around the knee.
func (s *sweeper) bisect(ctx context.Context) error {
	for {
		k := kneeOf(s.res.Levels, s.plan.Kind)
		if k.pass < 0 || k.fail < 0 {
			return nil
		}
		lo, hi := s.res.Levels[k.pass].OfferedLoad, s.res.Levels[k.fail].OfferedLoad
		if (hi-lo)/hi <= s.plan.KneeTolerance {
			return nil
		}
		mid := lo + (hi-lo)/2
		if s.plan.Kind == KindConcurrency {
			if hi-lo <= 1 {
				return nil
			}
			mid = math.Floor(mid)
		}
		if !(mid > lo && mid < hi) {
			return nil
		}
		out, err := s.level(ctx, PhaseBisect, s.profile(mid))
		if err != nil || s.spent {
			return err
		}
		if !out.Verdict.Decided() {
			fix := "measure longer levels (Limits.MaxDuration, or a precision target with Plan.Decide to extend undecided levels)"
			if out.Verdict.ClientLimited {
				fix = "free the client machine or raise the maximum scheduling lag (MaxLag)"
			}
			s.warn(WarnBisectInconclusive, out.Index, fmt.Sprintf(
				"bisection stopped: level %d (%s) was %s, so it cannot narrow the bracket; %s",
				out.Index, formatLoad(mid, s.unit()), undecidedWhy(out), fix))
			return nil
		}
	}
}

// profile is the open-loop or concurrent profile at load x.
func (s *sweeper) profile(x float64) loadgen.Profile {
	if s.plan.Kind == KindConcurrency {
		return loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: int(x)}
	}
	return loadgen.Profile{Mode: s.plan.RateMode, Rate: x, MaxConcurrency: s.plan.MaxConcurrency, Seed: s.plan.Seed}
}

func (s *sweeper) unit() string {
	if s.plan.Kind == KindConcurrency {
		return UnitConcurrency
	}
	return UnitReqPerSec
}

// level runs one level, unless ctx is done (an error) or the budget is
// spent (s.spent, and a zero outcome).
func (s *sweeper) level(ctx context.Context, phase Phase, p loadgen.Profile) (LevelOutcome, error) {
	if err := ctx.Err(); err != nil {
		s.res.Partial = true
		s.res.StopReason = StopInterrupted
		return LevelOutcome{}, fmt.Errorf("sweep: interrupted before level %d: %w", len(s.res.Levels), err)
	}
	if len(s.res.Levels) >= s.plan.MaxLevels {
		s.res.StopReason = StopLevelBudget
		s.spent = true
		s.warn(WarnLevelBudget, -1, fmt.Sprintf(
			"level budget spent: %d levels run (Plan.MaxLevels); the knee bracket may be wider than the tolerance", len(s.res.Levels)))
		return LevelOutcome{}, nil
	}
	idx := len(s.res.Levels)
	if s.opts.progress != nil {
		s.opts.progress(Event{Type: LevelStart, Index: idx, Phase: phase, Profile: p, Expected: s.expectedLevels(phase, idx+1)})
	}
	// The grid of a search runs at the plain length; the levels that
	// decide the knee (and every level of a fixed run) run to a decision.
	// Extension and ramp levels are probes at the plain length too.
	probe := phase == PhaseGrid || phase == PhaseExtend || phase == PhaseRamp
	decisive := s.deciding() && (!probe || s.plan.Kind == KindLevels)
	var sum metrics.Summary
	var err error
	began := time.Now()
	if decisive {
		sum, err = s.runner.(DecidingRunner).RunLevelToDecision(ctx, idx, p)
	} else {
		sum, err = s.runner.RunLevel(ctx, idx, p)
	}
	out := LevelOutcome{Index: idx, Phase: phase, Profile: p, Summary: sum, Decisive: decisive,
		Cost: Cost{Requests: sum.Requests.Scheduled, Seconds: time.Since(began).Seconds()}}
	if c := sum.Continues; c != nil {
		out.Cost.Requests -= c.Requests // the continued level's requests were counted there
	}
	s.res.Cost.Requests += out.Cost.Requests
	s.res.Cost.Seconds += out.Cost.Seconds
	out.OfferedLoad, out.Unit = OfferedLoad(p, sum)
	if phase == PhaseRamp {
		out.OfferedLoad = sum.RequestsPerSecond // on the rate axis, what it sustained
	}
	if p.Mode == loadgen.ModeThroughput && s.plan.Kind != KindLevels {
		// On a sweep's axis the throughput level stands at the maximum
		// rate, the top of the rate grid (docs/sweep.md).
		var sync metrics.Summary
		for _, l := range s.res.Levels {
			if l.Profile.Mode == loadgen.ModeSynchronous {
				sync = l.Summary
			}
		}
		out.OfferedLoad = MaxRate(sum, sync)
	}
	if s.plan.Kind != KindLevels {
		out.Unit = s.unit() // one unit along a sweep's axis
	}
	out.Verdict = s.plan.Objective.Evaluate(sum)
	if err != nil {
		out.Partial = true
		out.Error = err.Error()
		s.res.Partial = true
		if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			s.res.StopReason = StopInterrupted
		} else {
			s.res.StopReason = StopRunnerError
		}
		err = fmt.Errorf("sweep: level %d (%s): %w", idx, describe(p), err)
		if !emptySummary(sum) {
			s.res.Levels = append(s.res.Levels, out)
			s.levelWarnings(out)
		}
		s.progressEnd(out)
		return out, err
	}
	s.res.Levels = append(s.res.Levels, out)
	s.levelWarnings(out)
	s.trackEarlyStop(out)
	if phase == PhaseGrid && s.failedAt < 0 && !s.plan.Objective.IsZero() && !s.plan.NoBisect && s.plan.Kind != KindLevels &&
		kneePoint(out, s.plan.Kind) && out.Verdict.Outcome == slo.OutcomeFail {
		s.failedAt = out.Index
	}
	s.progressEnd(out)
	return out, nil
}

func (s *sweeper) progressEnd(out LevelOutcome) {
	if s.opts.progress != nil {
		s.opts.progress(Event{Type: LevelEnd, Index: out.Index, Phase: out.Phase, Profile: out.Profile, Outcome: &out,
			Expected: s.expectedLevels(out.Phase, len(s.res.Levels))})
	}
}

// expectedLevels estimates the levels the sweep runs in all (Event.Expected),
// given the phase of the level running or just ended and the number of
// levels begun so far (that one included).
func (s *sweeper) expectedLevels(phase Phase, begun int) int {
	p := s.plan
	grid := 0
	for _, l := range s.res.Levels {
		if l.Phase == PhaseGrid {
			grid++
		}
	}
	if phase == PhaseGrid && begun > len(s.res.Levels) {
		grid++ // the grid level starting now
	}
	n := begun
	if phase == PhaseGrid && !s.stopped {
		n += max(s.gridLevels()-grid, 0)
	}
	if !p.Objective.IsZero() && !p.NoBisect && p.Kind != KindLevels {
		n += s.bisectSteps(phase)
	}
	return min(max(n, begun), max(p.MaxLevels, begun))
}

// gridLevels is the number of grid levels the sweep expects to run: the
// plan's grid, or, when its rates run as a binary search (binaryGrid), the
// synchronous and throughput levels and ⌈log2(N−1)⌉ rates.
func (s *sweeper) gridLevels() int {
	p := s.plan
	if p.Kind == KindRate && len(p.Rates) == 0 && s.deciding() && !p.Objective.IsZero() && !p.NoBisect {
		return 2 + int(math.Ceil(math.Log2(float64(max(p.N-1, 1)))))
	}
	return p.gridSize()
}

// bisectSteps estimates the bisection levels still to run: enough halvings
// of the bracket (the current one, or during the grid one grid step at its
// top) to bring (hi−lo)/hi within KneeTolerance.
func (s *sweeper) bisectSteps(phase Phase) int {
	p := s.plan
	width := 1.0 / float64(max(p.gridSize()-2, 1)) // relative width of a grid step at the top
	abs := math.Inf(1)                             // bracket width of a concurrency sweep
	if phase != PhaseGrid {
		k := kneeOf(s.res.Levels, p.Kind)
		if k.pass < 0 || k.fail < 0 {
			return 0
		}
		lo, hi := s.res.Levels[k.pass].OfferedLoad, s.res.Levels[k.fail].OfferedLoad
		if !(hi > lo) {
			return 0
		}
		width = (hi - lo) / hi
		if p.Kind == KindConcurrency {
			abs = hi - lo
		}
	}
	steps := 0
	if width > p.KneeTolerance {
		steps = int(math.Ceil(math.Log2(width / p.KneeTolerance)))
	}
	if !math.IsInf(abs, 1) {
		steps = min(steps, max(int(math.Ceil(math.Log2(abs))), 0))
	}
	return steps
}

// emptySummary reports whether a runner returned nothing measured.
func emptySummary(s metrics.Summary) bool {
	return s.Requests.Scheduled == 0 && s.Requests.Sent == 0 && s.WindowSeconds == 0
}

// trackEarlyStop counts consecutive wide failures among grid knee points.
func (s *sweeper) trackEarlyStop(out LevelOutcome) {
	if !s.plan.EarlyStop || out.Phase != PhaseGrid || !kneePoint(out, s.plan.Kind) {
		return
	}
	if s.wide(out) {
		s.wideRun++
	} else {
		s.wideRun = 0
	}
	if s.wideRun >= 2 {
		s.stopped = true
	}
}

// wide reports whether a level failed by a wide margin: no success, or a
// failed term measured beyond EarlyStopFactor × its threshold.
func (s *sweeper) wide(out LevelOutcome) bool {
	if out.Verdict.NoSuccess {
		return true
	}
	for _, t := range out.Verdict.Terms {
		if t.Outcome == slo.OutcomeFail && t.Ratio() > s.plan.EarlyStopFactor {
			return true
		}
	}
	return false
}

// undecidedWhy says why a level's verdict is inconclusive, for warnings.
func undecidedWhy(out LevelOutcome) string {
	if out.Verdict.TooShort {
		return "too short"
	}
	if out.Verdict.ClientLimited {
		return "client-limited"
	}
	return "undecided (" + strings.Join(out.Verdict.Undecided, ", ") + ")"
}

func (s *sweeper) warn(code metrics.WarningCode, level int, msg string) {
	s.sweepWarn = append(s.sweepWarn, metrics.Warning{Code: code, Level: level, Message: msg})
}

// levelWarnings copies a level's Summary warnings and adds the sweep's
// per-level ones: a client-limited level, each SLO term left undecided
// (with its interval and the requests likely to decide it), and the
// headline percentiles (TTFT p99, ITL p95) whose interval is unbounded.
func (s *sweeper) levelWarnings(out LevelOutcome) {
	has := map[metrics.WarningCode]bool{}
	for _, w := range out.Summary.Warnings {
		w.Level = out.Index
		has[w.Code] = true
		s.res.Warnings = append(s.res.Warnings, w)
	}
	add := func(code metrics.WarningCode, msg string) {
		s.res.Warnings = append(s.res.Warnings, metrics.Warning{Code: code, Level: out.Index, Message: msg})
	}
	if out.Verdict.ClientLimited && !has[metrics.WarnClientLimited] {
		msg := fmt.Sprintf("client-limited at level %d (%s): the load generator fell behind, so the level is undecided", out.Index, describe(out.Profile))
		if r := out.Summary.Client.Reason; r != "" {
			msg += ": " + r
		}
		add(metrics.WarnClientLimited, msg)
	}
	judged := map[string]bool{}
	for _, r := range out.Verdict.Terms {
		judged[r.Term.Name()] = true
		if r.Outcome != slo.OutcomeInconclusive || out.Verdict.Decided() || out.Verdict.ClientLimited {
			continue // only the terms that leave the level undecided
		}
		add(WarnUndecided, fmt.Sprintf("level %d: %s undecided: %s", out.Index, r.Term, describeInterval(r.Term, r.Measured, r.Interval, r.MoreRequests)))
	}
	for _, h := range headline() {
		if judged[h.Name()] || out.Summary.Requests.OK == 0 {
			continue
		}
		r := h.Judge(out.Summary)
		if r.Interval.Bounded() || math.IsNaN(r.Measured) {
			continue
		}
		more := stats.MinSamplesForUpperBound(h.Percentile/100, stats.Confidence) - (out.Summary.Requests.OK + out.Summary.Requests.Failed)
		add(WarnUnbounded, fmt.Sprintf("level %d: %s %s", out.Index, h.Name(), describeInterval(h, r.Measured, r.Interval, max(more, 0))))
	}
}

// headline is the percentiles every level reports with an interval
// warning when they cannot be bounded: TTFT p99 and ITL p95, the
// scorecard's latency figures.
func headline() []slo.Term {
	return []slo.Term{
		{Metric: slo.MetricTTFT, Percentile: 99, Op: slo.OpLE},
		{Metric: slo.MetricITL, Percentile: 95, Op: slo.OpLE},
	}
}

// describeInterval says where a statistic stands: "interval [412,
// unbounded] ms: about 310 more requests would bound it".
func describeInterval(t slo.Term, v float64, ci stats.Interval, more int64) string {
	unit := ""
	scale := 1.0
	switch {
	case t.Metric.Latency():
		unit = " ms"
	case t.Metric == slo.MetricErrorRate:
		unit, scale = " %", 100
	case t.Metric == slo.MetricOutputTPS:
		unit = " tok/s"
	}
	side := func(x float64) string {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			if math.IsInf(x, 1) && math.IsInf(ci.Lo, 1) {
				return "inf"
			}
			return "unbounded"
		}
		return strconv.FormatFloat(x*scale, 'g', 4, 64)
	}
	s := fmt.Sprintf("%s%s, interval [%s, %s]%s", side(v), unit, side(ci.Lo), side(ci.Hi), unit)
	switch {
	case more > 0 && !ci.Bounded():
		s += fmt.Sprintf(": about %d more requests would bound it", more)
	case more > 0:
		s += fmt.Sprintf(": about %d more requests would decide it", more)
	}
	return s
}

// finish computes the knee and the run-wide warnings.
func (s *sweeper) finish() {
	defer func() { s.res.Warnings = append(s.res.Warnings, s.sweepWarn...) }()
	if s.res.Partial {
		s.warn(WarnInterrupted, -1, fmt.Sprintf("the sweep stopped early (%s): results cover %d level(s)", s.res.StopReason, len(s.res.Levels)))
	}
	if s.plan.Objective.IsZero() {
		return
	}
	s.res.Undecided = UndecidedLevels(s.res.Levels, s.plan.Kind)
	s.nonStationary()
	if s.plan.Kind == KindLevels {
		return // no knee search
	}
	k := kneeOf(s.res.Levels, s.plan.Kind)
	if k.points == 0 {
		return
	}
	unit := s.unit()
	if k.firstFails {
		first := s.res.Levels[k.first]
		s.warn(WarnKneeBelowRange, -1, fmt.Sprintf(
			"the first level already fails the SLO (%s at %s: %s): the knee is below the tested range",
			describe(first.Profile), formatLoad(first.OfferedLoad, unit), first.Verdict.Reason))
	}
	if k.nonMonotonic >= 0 {
		l := s.res.Levels[k.nonMonotonic]
		s.warn(WarnNonMonotonic, -1, fmt.Sprintf(
			"level %d passes at %s above a failing level at %s: verdicts are not monotonic in load (noise or too few samples); the knee is the highest pass below the first failure",
			l.Index, formatLoad(l.OfferedLoad, unit), formatLoad(s.res.Levels[k.fail].OfferedLoad, unit)))
	}
	if k.pass < 0 {
		return
	}
	lv := s.res.Levels[k.pass]
	knee := &Knee{
		Level: lv.Index, Profile: lv.Profile, OfferedLoad: lv.OfferedLoad, Unit: unit,
		BracketLo: lv.OfferedLoad, Goodput: lv.Summary.Goodput, OutputTokPerSec: lv.Summary.OutputTokensPerSecond,
	}
	if x, y, ok := s.plan.Objective.SeedThresholds(); ok {
		knee.SeedGoodputTokPerSec = seedGoodput(lv.Summary, x, y)
		if g := knee.Goodput.OutputTokensPerSecond; g > 0 && math.Abs(knee.SeedGoodputTokPerSec-g) > 0.1*g {
			s.warn(WarnGoodputFormulaDisagrees, lv.Index, fmt.Sprintf(
				"at the knee (level %d) request-level goodput is %.4g tok/s and the seed formula (output tok/s × P[TTFT ≤ x] × P[ITL ≤ y]) gives %.4g tok/s, %.0f %% apart: TTFT and ITL are not independent under load, or failures and incomplete requests weigh in; the scorecard uses request-level goodput",
				lv.Index, g, knee.SeedGoodputTokPerSec, 100*math.Abs(knee.SeedGoodputTokPerSec-g)/g))
		}
	}
	knee.FailLevel = -1
	if k.fail >= 0 {
		knee.BracketHi = s.res.Levels[k.fail].OfferedLoad
		knee.FailLevel = s.res.Levels[k.fail].Index
		knee.Reached = true
	} else {
		var above []string
		for _, l := range s.res.Levels {
			if kneeCandidate(l, s.plan.Kind) && !l.Verdict.Decided() && l.OfferedLoad > lv.OfferedLoad {
				above = append(above, fmt.Sprintf("%d (%s)", l.Index, formatLoad(l.OfferedLoad, unit)))
			}
		}
		if len(above) > 0 {
			s.warn(WarnKneeNotReached, -1, fmt.Sprintf(
				"knee not reached among the decided levels: every level decided passed the SLO up to %s, and level %s above it is undecided; the knee lies at or above %s (longer levels, or a precision target with Plan.Decide, would decide)",
				formatLoad(lv.OfferedLoad, unit), strings.Join(above, ", "), formatLoad(lv.OfferedLoad, unit)))
		} else {
			s.warn(WarnKneeNotReached, -1, fmt.Sprintf(
				"knee not reached: every level passed the SLO up to %s; safe capacity unknown (raise the rates)", formatLoad(lv.OfferedLoad, unit)))
		}
	}
	s.res.Knee = knee
}

// nonStationary warns when a level re-run to a decision failed a term that
// the level it re-ran, at the same load, had measured at under half its
// threshold: the same load cannot honestly give both, so the server or the
// client machine changed during the sweep (a busy machine, a backlog the
// server kept serving), and the search below that point is suspect.
func (s *sweeper) nonStationary() {
	byIndex := map[int]LevelOutcome{}
	for _, l := range s.res.Levels {
		byIndex[l.Index] = l
	}
	for _, l := range s.res.Levels {
		r, ok := byIndex[l.RerunBy]
		if l.RerunBy == 0 || !ok || r.Verdict.Outcome != slo.OutcomeFail || l.Verdict.Outcome == slo.OutcomeFail {
			continue
		}
		for _, rt := range r.Verdict.Terms {
			if rt.Outcome != slo.OutcomeFail {
				continue
			}
			for _, lt := range l.Verdict.Terms {
				if lt.Term.String() == rt.Term.String() && !math.IsNaN(lt.Measured) && lt.Ratio() < 0.5 {
					s.warn(WarnNonStationary, r.Index, fmt.Sprintf(
						"level %d re-ran level %d (%s) and failed %s (%s), where level %d had measured %s: the server or the client machine changed during the sweep (a busy machine, a backlog the server kept serving); the knee search below it is suspect, so rerun on a quiet machine",
						r.Index, l.Index, formatLoad(l.OfferedLoad, s.unit()), rt.Term, formatMeasured(rt), l.Index, formatMeasured(lt)))
					break
				}
			}
		}
	}
}

// formatMeasured is a term's estimate for a warning: "938.5 ms", "2 %".
func formatMeasured(r slo.TermResult) string {
	return describeInterval(r.Term, r.Measured, r.Interval, 0)
}

// OfferedLoad is a level's load on the knee axis and its unit, the one
// definition every command uses: the target rate of an open-loop level
// (req/s), the concurrency of a concurrent level, and the measured request
// rate of a synchronous or throughput level (req/s), whose load is
// whatever the server sustained.
func OfferedLoad(p loadgen.Profile, s metrics.Summary) (float64, string) {
	switch {
	case p.Mode == loadgen.ModeConcurrent:
		return float64(p.Concurrency), UnitConcurrency
	case p.Mode.OpenLoop():
		return p.Rate, UnitReqPerSec
	}
	return s.RequestsPerSecond, UnitReqPerSec
}

// describe names a profile for messages.
func describe(p loadgen.Profile) string {
	switch {
	case p.Mode.OpenLoop():
		return fmt.Sprintf("%s %.4g req/s", p.Mode, p.Rate)
	case p.Mode == loadgen.ModeConcurrent:
		return fmt.Sprintf("concurrent %d", p.Concurrency)
	default:
		return string(p.Mode)
	}
}

func formatLoad(x float64, unit string) string {
	if unit == UnitConcurrency {
		return fmt.Sprintf("concurrency %g", x)
	}
	return fmt.Sprintf("%.4g req/s", x)
}
