package loadgen

import (
	"context"
	"fmt"
	"time"
)

// PlanHorizon is the arrival offset at and after which a Pacer's plan is
// over: about 146 years, later than any level ends (SchedulePacer answers
// it past its last arrival), and far enough from the largest Duration that
// adding a level's start cannot overflow. A Pacer with no more arrivals
// may return it, or any larger offset up to math.MaxInt64.
const PlanHorizon = afterSchedule

// planBlock is the number of gaps over which a plan's density is checked:
// planBlock consecutive gaps must span at least planBlock × minMeanGap. A
// burst of up to planBlock arrivals at one instant (a trace's) passes.
const planBlock = 10_000

// minMeanGap is the smallest mean gap between a plan's arrivals: half of
// MaxRate's 1 µs, so that a Poisson or gamma plan at MaxRate, whose mean
// gap over planBlock arrivals varies by a few per cent, always passes.
const minMeanGap = time.Microsecond / 2

// planProbe is how many arrivals Run checks before a level starts (a Pacer
// is pure, so the level then meets the same plan): a Pacer that goes
// backwards, below 0, or too fast is refused before anything is sent.
const planProbe = 10 * planBlock

// plan walks a Pacer's arrivals in order and checks each: a panic, a
// negative offset, an offset before the previous one, or planBlock + 1
// arrivals within planBlock × minMeanGap (faster than MaxRate; the plan
// of a Pacer that always answers the same offset never reaches a level's
// end) is an error that names the Pacer's type.
type plan struct {
	pacer  Pacer
	next   int64         // the index of the next arrival
	prev   time.Duration // the offset of arrival next−1
	mark   time.Duration // the offset of arrival markAt
	markAt int64
}

// arrival returns the offset of arrival p.next and advances, or the fault
// of the Pacer at that arrival. An offset >= PlanHorizon ends the plan
// (the caller stops there); it is not checked against the density bound.
func (p *plan) arrival() (i int64, at time.Duration, err error) {
	i = p.next
	at, err = arrivalGuarded(p.pacer, i, p.prev)
	if err != nil {
		return i, 0, fmt.Errorf("pacer %T: %w", p.pacer, err)
	}
	switch {
	case at < 0:
		return i, at, fmt.Errorf("pacer %T: Arrival(%d) = %v: a negative offset; an arrival's offset counts from the level's start and must be >= 0", p.pacer, i, at)
	case i > 0 && at < p.prev:
		return i, at, fmt.Errorf("pacer %T: Arrival(%d) = %v is before Arrival(%d) = %v: a plan's offsets must not decrease", p.pacer, i, at, i-1, p.prev)
	case i == 0:
		p.mark, p.markAt = at, 0
	case at < PlanHorizon && i-p.markAt >= planBlock:
		if at-p.mark < planBlock*minMeanGap {
			return i, at, fmt.Errorf("pacer %T: arrivals %d to %d all fall within %v of each other (%v to %v): less than 1 µs apart on average, faster than a level can send them apart (loadgen.MaxRate, %g req/s); space the arrivals at least 1 µs apart on average, or return loadgen.PlanHorizon when the plan has no more", p.pacer, p.markAt, i, at-p.mark, p.mark, at, float64(MaxRate))
		}
		p.mark, p.markAt = at, i
	}
	p.next, p.prev = i+1, at
	return i, at, nil
}

// CheckPacer walks the first arrivals of pacer's plan for a level bounded
// by lim (up to Limits.MaxDuration, Limits.MaxRequests, PlanHorizon and
// 100,000 arrivals, whichever comes first) and returns the first fault:
// a panic, a negative offset, an offset before the previous one, or
// arrivals less than 1 µs apart on average over 10,000 of them (a Pacer
// that keeps answering the same offset). Each error names the Pacer's
// type and the arrival. Generator.Run calls it before an open-loop level
// starts, so a faulty Pacer sends nothing; the level re-checks the arrivals
// after those. It stops early, returning ctx's error, when ctx is done.
func CheckPacer(ctx context.Context, pacer Pacer, lim Limits) error {
	if pacer == nil {
		return nil
	}
	pl := plan{pacer: pacer}
	for pl.next < planProbe && (lim.MaxRequests <= 0 || pl.next < lim.MaxRequests) {
		if pl.next%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		_, at, err := pl.arrival()
		if err != nil {
			return err
		}
		if at >= PlanHorizon || (lim.MaxDuration > 0 && at >= lim.MaxDuration) {
			return nil
		}
	}
	return nil
}
