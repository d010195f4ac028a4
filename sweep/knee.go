package sweep

import (
	"cmp"
	"slices"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
)

// kneeCandidate reports whether a level belongs to the knee search at all:
// complete, not the throughput probe of a rate sweep, and not superseded
// by a re-run that decided it (LevelOutcome.RerunBy).
func kneeCandidate(l LevelOutcome, kind Kind) bool {
	if l.Partial || l.RerunBy != 0 {
		return false
	}
	return !(kind == KindRate && (l.Profile.Mode == loadgen.ModeThroughput || l.Phase == PhaseRamp))
}

// kneePoint reports whether a level counts in the knee search: a candidate
// whose verdict is decided. An inconclusive level (an SLO term whose
// interval straddles its threshold, or a client-limited level, whose
// figures describe the client) neither passes nor fails: it brackets
// nothing, and the knee line names it.
func kneePoint(l LevelOutcome, kind Kind) bool {
	return kneeCandidate(l, kind) && l.Verdict.Decided()
}

// UndecidedLevels lists the Index of every level of the knee search (a
// complete level, not a rate sweep's throughput probe) whose verdict is
// inconclusive, in load order: Result.Undecided.
func UndecidedLevels(levels []LevelOutcome, kind Kind) []int {
	var idx []int
	for i, l := range levels {
		if kneeCandidate(l, kind) && !l.Verdict.Decided() {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(levels[a].OfferedLoad, levels[b].OfferedLoad) })
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = levels[j].Index
	}
	return out
}

// kneeState is the knee search's view of the levels so far; indexes are
// into the levels slice, -1 when absent.
type kneeState struct {
	points       int
	pass         int  // highest passing load below the lowest failing load
	fail         int  // lowest failing load
	first        int  // lowest decided load
	firstFails   bool // the lowest decided load fails, and no undecided level lies below it
	nonMonotonic int  // a passing level above the lowest failure
}

func kneeOf(levels []LevelOutcome, kind Kind) kneeState {
	k := kneeState{pass: -1, fail: -1, first: -1, nonMonotonic: -1}
	var idx []int
	for i, l := range levels {
		if kneePoint(l, kind) {
			idx = append(idx, i)
		}
	}
	k.points = len(idx)
	if k.points == 0 {
		return k
	}
	// Sort by load; at equal load a failure sorts first, so it wins.
	slices.SortStableFunc(idx, func(a, b int) int {
		la, lb := levels[a], levels[b]
		switch {
		case la.OfferedLoad < lb.OfferedLoad:
			return -1
		case la.OfferedLoad > lb.OfferedLoad:
			return 1
		case !la.Verdict.Pass && lb.Verdict.Pass:
			return -1
		case la.Verdict.Pass && !lb.Verdict.Pass:
			return 1
		}
		return 0
	})
	k.first = idx[0]
	k.firstFails = !levels[idx[0]].Verdict.Pass
	for _, l := range levels {
		// An undecided level below the first failure may yet pass: the
		// knee is undecided, not below the tested range.
		if kneeCandidate(l, kind) && !l.Verdict.Decided() && l.OfferedLoad < levels[k.first].OfferedLoad {
			k.firstFails = false
		}
	}
	for _, i := range idx {
		switch {
		case !levels[i].Verdict.Pass && k.fail < 0:
			k.fail = i
		case levels[i].Verdict.Pass && k.fail < 0:
			k.pass = i
		case levels[i].Verdict.Pass && k.fail >= 0 && k.nonMonotonic < 0:
			k.nonMonotonic = i
		}
	}
	return k
}

// seedGoodput is slo.SeedGoodput; a seam for the knee.
func seedGoodput(s metrics.Summary, ttftMs, itlMs float64) float64 {
	return slo.SeedGoodput(s, ttftMs, itlMs)
}
