package sweep

import (
	"errors"
	"fmt"
	"math"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Kind is the form of a sweep.
type Kind string

// Sweep forms (docs/sweep.md, docs/metrics.md#the-knee).
const (
	// KindRate is the GuideLLM-compatible rate sweep: synchronous, then
	// throughput, then N−2 open-loop rates between the synchronous request
	// rate and the throughput level's maximum rate (see Run); or, with
	// Plan.Rates, exactly those open-loop rates.
	KindRate Kind = "rate"
	// KindConcurrency is the AIPerf-style concurrency sweep over Plan.Rates
	// read as closed-loop concurrencies (--profile concurrent --rate 1,2,4,...).
	KindConcurrency Kind = "concurrency"
	// KindLevels runs Plan.Levels as given, in order, each judged against
	// the Objective, with no knee search (`gollm-bench run`).
	KindLevels Kind = "levels"
)

// Defaults applied to zero Plan fields.
const (
	DefaultN               = 10   // grid levels of a rate sweep, synchronous and throughput included (GuideLLM's default)
	DefaultKneeTolerance   = 0.05 // relative bracket width (hi−lo)/hi at which bisection stops
	DefaultBisectLevels    = 8    // bisection levels allowed beyond the grid when MaxLevels is 0
	DefaultDecideLevels    = 4    // re-runs to a decision allowed beyond those, with Decide
	DefaultEarlyStopFactor = 2.0  // a term measured beyond 2× its threshold is a wide failure
)

// Plan says which levels a sweep runs and how it searches for the knee. It
// is a plain value; the zero Plan is a GuideLLM-default rate sweep (10
// levels, constant rates) without an SLO.
type Plan struct {
	// Kind is KindRate (the default) or KindConcurrency.
	Kind Kind `json:"kind"`
	// RateMode is the open-loop mode of a rate sweep's rate levels:
	// loadgen.ModeConstant (the default) or loadgen.ModePoisson.
	RateMode loadgen.Mode `json:"rate_mode,omitempty"`
	// N is the number of grid levels of a rate sweep without Rates,
	// synchronous and throughput included (default DefaultN, at least 2).
	N int `json:"n,omitempty"`
	// Rates are explicit levels: open-loop rates in req/s for KindRate (they
	// replace the synchronous/throughput discovery, and N must be 0), or
	// concurrencies (positive integers) for KindConcurrency, where they are
	// required. They are run in ascending order.
	Rates []float64 `json:"rates,omitempty"`
	// MaxConcurrency caps requests in flight for open-loop and throughput
	// levels (0: no cap for open loop, loadgen.DefaultThroughputConcurrency
	// for throughput).
	MaxConcurrency int `json:"max_concurrency,omitempty"`
	// Seed seeds Poisson arrivals; every level uses it.
	Seed uint64 `json:"seed,omitempty"`
	// Levels are the profiles of a KindLevels plan, run in this order;
	// required for KindLevels, unused otherwise.
	Levels []loadgen.Profile `json:"levels,omitempty"`

	// Objective is the SLO each level is judged against. Without one the
	// sweep runs the grid only and reports no knee.
	Objective slo.Objective `json:"slo"`
	// KneeTolerance stops bisection once (hi−lo)/hi <= KneeTolerance
	// (default DefaultKneeTolerance; in (0, 1)).
	KneeTolerance float64 `json:"knee_tolerance,omitempty"`
	// MaxLevels bounds the levels run in all, grid and bisection (default:
	// the grid size plus DefaultBisectLevels). A budget smaller than the
	// grid truncates the grid, with a warning.
	MaxLevels int `json:"max_levels,omitempty"`
	// NoBisect skips the knee search after the grid (GuideLLM behaviour).
	NoBisect bool `json:"no_bisect,omitempty"`
	// Decide runs the levels that decide the knee until they are decided
	// (--precision): grid levels left undecided near the knee are re-run
	// that way, and so are bisection and extension levels, and every level
	// of a KindLevels plan. It needs a DecidingRunner; with a plain
	// LevelRunner it changes nothing.
	Decide bool `json:"decide,omitempty"`
	// EarlyStop skips the rest of the grid once two consecutive levels (in
	// load order) fail widely: some term measured beyond EarlyStopFactor ×
	// its threshold, or no successful request. The sweep declares it with
	// an "early_stop" warning; bisection still runs.
	EarlyStop bool `json:"early_stop,omitempty"`
	// EarlyStopFactor is the wide-failure ratio (default DefaultEarlyStopFactor; > 1).
	EarlyStopFactor float64 `json:"early_stop_factor,omitempty"`
}

// Validate reports every problem of p at once (errors.Join), each naming
// the field and how to fix it.
func (p Plan) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("sweep: "+format, args...)) }
	switch p.Kind {
	case "", KindRate, KindConcurrency:
		if len(p.Levels) > 0 {
			bad("Plan.Levels is set for a %q plan: it is for Kind %q only", p.Kind, KindLevels)
		}
	case KindLevels:
		if len(p.Levels) == 0 {
			bad("Plan.Levels is empty: a %q plan runs the profiles it lists", KindLevels)
		}
		for i, l := range p.Levels {
			if err := l.Validate(); err != nil {
				bad("Plan.Levels[%d]: %v", i, err)
			}
		}
	default:
		bad("Plan.Kind %q is unknown: use %q, %q or %q", p.Kind, KindRate, KindConcurrency, KindLevels)
	}
	switch p.RateMode {
	case "", loadgen.ModeConstant, loadgen.ModePoisson:
	default:
		bad("Plan.RateMode %q is not an open-loop mode: use %q or %q", p.RateMode, loadgen.ModeConstant, loadgen.ModePoisson)
	}
	if p.N < 0 || p.N == 1 {
		bad("Plan.N = %d: a rate sweep needs at least 2 levels (synchronous and throughput); leave it 0 for %d", p.N, DefaultN)
	}
	for i, r := range p.Rates {
		switch {
		case math.IsNaN(r) || math.IsInf(r, 0) || r <= 0:
			bad("Plan.Rates[%d] = %v: levels must be positive numbers", i, r)
		case p.Kind == KindConcurrency && (r != math.Trunc(r) || r > math.MaxInt32):
			bad("Plan.Rates[%d] = %v: a concurrency must be a whole number of requests in flight, e.g. 1,2,4,8", i, r)
		}
	}
	if p.Kind == KindConcurrency && len(p.Rates) == 0 {
		bad("Plan.Rates is empty: a concurrency sweep needs its levels, e.g. 1,2,4,8,16,32,64")
	}
	if p.Kind != KindConcurrency && len(p.Rates) > 0 && p.N != 0 {
		bad("Plan.N = %d with explicit Plan.Rates: give either the grid size or the rates, not both", p.N)
	}
	if p.MaxConcurrency < 0 {
		bad("Plan.MaxConcurrency = %d: use 0 for no cap or a positive cap", p.MaxConcurrency)
	}
	if p.KneeTolerance < 0 || p.KneeTolerance >= 1 || math.IsNaN(p.KneeTolerance) {
		bad("Plan.KneeTolerance = %v: use a relative bracket width in (0, 1), e.g. 0.05, or 0 for the default", p.KneeTolerance)
	}
	if p.MaxLevels < 0 {
		bad("Plan.MaxLevels = %d: use 0 for the default budget or a positive number of levels", p.MaxLevels)
	}
	if p.EarlyStopFactor != 0 && !(p.EarlyStopFactor > 1) {
		bad("Plan.EarlyStopFactor = %v: use a ratio above 1, e.g. 2, or 0 for the default", p.EarlyStopFactor)
	}
	return errors.Join(errs...)
}

// withDefaults fills zero fields.
func (p Plan) withDefaults() Plan {
	if p.Kind == "" {
		p.Kind = KindRate
	}
	if p.RateMode == "" {
		p.RateMode = loadgen.ModeConstant
	}
	if p.N == 0 && len(p.Rates) == 0 {
		p.N = DefaultN
	}
	if p.KneeTolerance == 0 {
		p.KneeTolerance = DefaultKneeTolerance
	}
	if p.EarlyStopFactor == 0 {
		p.EarlyStopFactor = DefaultEarlyStopFactor
	}
	if p.MaxLevels == 0 {
		p.MaxLevels = p.gridSize() + DefaultBisectLevels
		if p.Decide {
			p.MaxLevels += DefaultDecideLevels
		}
	}
	return p
}

// gridSize is the number of grid levels the plan asks for.
func (p Plan) gridSize() int {
	if p.Kind == KindLevels {
		return len(p.Levels)
	}
	if len(p.Rates) > 0 {
		return len(p.Rates)
	}
	return p.N
}
