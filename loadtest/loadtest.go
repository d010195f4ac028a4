package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
	"github.com/gollm-bench/gollm-bench/workload"
)

// Defaults of the options, equal to the CLI's (see the package comment).
const (
	DefaultPromptTokens  = 256
	DefaultOutputTokens  = 64
	DefaultSeed          = 42
	DefaultTrimFraction  = 0.1
	DefaultDrain         = 30 * time.Second
	DefaultLevelDuration = 30 * time.Second
	// DefaultDecideFactor × the level duration bounds a sweep level run
	// to a decision.
	DefaultDecideFactor = 10
	// DefaultMaxLevels bounds a sweep's levels, grid and bisection.
	DefaultMaxLevels = 16
	// DefaultUnreachableAfter stops a level whose first this many requests
	// all fail to connect (loadgen.Limits.UnreachableAfter;
	// --unreachable-after).
	DefaultUnreachableAfter = 10
	// DefaultRequestTimeout bounds one whole request
	// (openai.WithRequestTimeout; --request-timeout).
	DefaultRequestTimeout = 5 * time.Minute
	// DefaultIdleTimeout bounds the longest gap between a stream's bytes
	// (openai.WithIdleTimeout; --idle-timeout).
	DefaultIdleTimeout = 60 * time.Second
)

// Option configures Level and Sweep.
type Option func(*options)

type options struct {
	model         string
	client        []openai.Option
	work          loadgen.Workload
	promptTokens  int
	outputTokens  int
	lengthsSet    bool // WithLengths was given (refused with WithWorkload)
	pacer         loadgen.Pacer
	onRecord      func(*loadgen.Record)
	objective     slo.Objective
	warmup        loadgen.Trim
	cooldown      loadgen.Trim
	drain         time.Duration
	maxLag        time.Duration
	levelDuration time.Duration
	decideMax     time.Duration
	// sweepOnly lists the sweep's options given (WithLevelDuration,
	// WithDecideMax), which Level refuses.
	sweepOnly []string
	// objectiveSet: WithObjective was given (Sweep refuses one that
	// differs from its argument).
	objectiveSet  bool
	progress      func(harness.Progress)
	rates         []float64
	kneeTolerance float64
	errs          []error
}

// WithModel names the model to request (default: the only one the server
// lists).
func WithModel(name string) Option { return func(o *options) { o.model = name } }

// WithClientOptions passes options to openai.New (endpoint, API key, TLS,
// timeouts), after the defaults DefaultRequestTimeout and
// DefaultIdleTimeout, which they override. A nil option is refused.
func WithClientOptions(opts ...openai.Option) Option {
	return func(o *options) {
		for i, c := range opts {
			if c == nil {
				o.errs = append(o.errs, fmt.Errorf("loadtest: WithClientOptions: option %d is nil; give openai options such as openai.WithAPIKey(key), or leave it out", i))
			}
		}
		o.client = append(o.client, opts...)
	}
}

// WithWorkload sends the requests w builds (default: synthetic prompts of
// DefaultPromptTokens, DefaultOutputTokens tokens out). A
// loadgen.WorkloadFunc adapts a function. w sizes its own requests, so
// WithLengths, which sizes the default ones, is refused with it.
func WithWorkload(w loadgen.Workload) Option {
	return func(o *options) {
		if w == nil {
			o.errs = append(o.errs, errors.New("loadtest: WithWorkload(nil): give a Workload, e.g. a loadgen.WorkloadFunc"))
		}
		o.work = w
	}
}

// WithLengths sets the synthetic prompts' length and the tokens asked of
// each answer (default DefaultPromptTokens, DefaultOutputTokens): the
// CLI's --data prompt_tokens=P,output_tokens=O. Without a tokenizer a
// prompt is P words, the unit the built-in mock counts. It sizes only
// the default prompts: with WithWorkload it is refused.
func WithLengths(promptTokens, outputTokens int) Option {
	return func(o *options) {
		o.lengthsSet = true
		if promptTokens < 1 || outputTokens < 1 {
			o.errs = append(o.errs, fmt.Errorf("loadtest: WithLengths(%d, %d): want two counts >= 1, e.g. WithLengths(256, 64)", promptTokens, outputTokens))
		}
		o.promptTokens, o.outputTokens = promptTokens, outputTokens
	}
}

// WithPacer gives Level's arrival process: any loadgen.Pacer (a
// loadgen.PacerFunc adapts a function). The level then runs open loop at
// the pacer's times. Give Level the zero Profile or Mode constant, with
// Rate 0: the pacer alone sets the arrivals, and the Summary's
// Profile.Rate is then the pacer's mean rate over the level (arrivals
// planned before its end / its length, req/s; of a plan of more than 10
// million arrivals, the first 10 million over the time they span). A
// Profile Rate other than
// 0, or Mode poisson, would describe arrivals the pacer does not make,
// and is refused.
func WithPacer(p loadgen.Pacer) Option {
	return func(o *options) {
		if p == nil {
			o.errs = append(o.errs, errors.New("loadtest: WithPacer(nil): give a Pacer, e.g. a loadgen.PacerFunc"))
		}
		o.pacer = p
	}
}

// WithRecords calls fn with each record as its request finishes, from one
// goroutine, in completion order (harness.Config.OnRecord). fn may keep
// rec but must not change it; a panic in fn stops the level with an error.
//
// fn runs on the level's record path: the level waits for it before it
// takes the next record and does not return, even when ctx is cancelled,
// until every record has been through fn. A slow fn delays the end of
// Level or Sweep by as long as it blocks (a 60 s sleep in the first call
// holds a level cancelled after 3 s for about 60 s); hand slow work to a
// goroutine of your own, e.g. through a buffered channel.
func WithRecords(fn func(rec *loadgen.Record)) Option {
	return func(o *options) { o.onRecord = fn }
}

// WithObjective judges Level's requests against obj: Summary.Goodput
// counts those that meet it, and the maximum lag defaults to obj's.
// Sweep takes its objective as an argument.
//
// A Sweep refuses WithObjective with an objective other than its own.
// An objective that slo.Objective.Validate refuses (one built by hand
// with a term Parse would not give) is refused.
func WithObjective(obj slo.Objective) Option {
	return func(o *options) {
		if err := obj.Validate(); err != nil {
			o.errs = append(o.errs, fmt.Errorf("loadtest: WithObjective: %w", err))
		}
		o.objective, o.objectiveSet = obj, true
	}
}

// WithTrims sets the share of each level excluded from its measured window
// at its start (warmup) and end (cooldown), as loadgen.Trim values
// (default 10 % each).
func WithTrims(warmup, cooldown loadgen.Trim) Option {
	return func(o *options) {
		if err := errors.Join(warmup.Validate(), cooldown.Validate()); err != nil {
			o.errs = append(o.errs, fmt.Errorf("loadtest: WithTrims: %w", err))
		}
		o.warmup, o.cooldown = warmup, cooldown
	}
}

// WithDrain sets how long requests in flight when a level ends may run on
// (default DefaultDrain; 0 cuts them off, recorded as cancelled).
func WithDrain(d time.Duration) Option {
	return func(o *options) {
		if d < 0 {
			o.errs = append(o.errs, fmt.Errorf("loadtest: WithDrain(%v): want a duration >= 0, e.g. 30*time.Second", d))
		}
		o.drain = d
	}
}

// WithMaxLag sets the scheduling-lag p99 above which a level is
// client-limited and its verdict inconclusive (default: the SLO's,
// slo.Objective.MaxLag). Raise it (the CLI uses 20 ms) when the server
// runs in the same process, as the mock of an example or a test does.
func WithMaxLag(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			o.errs = append(o.errs, fmt.Errorf("loadtest: WithMaxLag(%v): want a duration > 0, e.g. 20*time.Millisecond", d))
		}
		o.maxLag = d
	}
}

// WithLevelDuration sets the length of a sweep's grid levels (default
// DefaultLevelDuration), and bounds its decided levels at
// DefaultDecideFactor times it unless WithDecideMax says otherwise.
func WithLevelDuration(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			o.errs = append(o.errs, fmt.Errorf("loadtest: WithLevelDuration(%v): want a duration > 0, e.g. 30*time.Second", d))
		}
		o.levelDuration = d
		o.sweepOnly = append(o.sweepOnly, "WithLevelDuration")
	}
}

// WithDecideMax bounds a sweep level run until its SLO terms are decided
// (default DefaultDecideFactor × the level duration).
func WithDecideMax(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			o.errs = append(o.errs, fmt.Errorf("loadtest: WithDecideMax(%v): want a duration > 0, e.g. 5*time.Minute", d))
		}
		o.decideMax = d
		o.sweepOnly = append(o.sweepOnly, "WithDecideMax")
	}
}

// WithRates gives a sweep its grid: these constant rates, req/s, in
// place of the synchronous and throughput levels and the rates between
// them (the CLI's `sweep --rate r1,r2,...`). An embedder who knows
// roughly where the knee lies gets there in fewer levels: give a rate
// that should pass and one that should fail. The search below the first
// failure is the same as without them. Each rate must be > 0.
func WithRates(rates ...float64) Option {
	return func(o *options) {
		for i, r := range rates {
			if !(r > 0) || math.IsInf(r, 0) {
				o.errs = append(o.errs, fmt.Errorf("loadtest: WithRates: rate %d is %v: want a rate > 0, req/s, e.g. WithRates(10, 20, 40)", i, r))
			}
		}
		if len(rates) == 0 {
			o.errs = append(o.errs, errors.New("loadtest: WithRates(): give at least one rate, req/s, e.g. WithRates(10, 20, 40)"))
		}
		o.rates = append([]float64(nil), rates...)
	}
}

// WithKneeTolerance sets the relative bracket width (hi−lo)/hi at which a
// sweep stops bisecting (default sweep.DefaultKneeTolerance, 5 %; the
// CLI's --knee-tolerance), in (0, 1). A wider tolerance decides the knee
// in fewer levels, each level below the knee run to a decision costing
// about 300 requests for a p99 term.
func WithKneeTolerance(t float64) Option {
	return func(o *options) {
		if !(t > 0 && t < 1) {
			o.errs = append(o.errs, fmt.Errorf("loadtest: WithKneeTolerance(%v): want a fraction in (0, 1), e.g. 0.05", t))
		}
		o.kneeTolerance = t
	}
}

// WithProgress calls fn about every second while a level runs, from a
// goroutine the runner owns (harness.Config.Progress).
func WithProgress(fn func(harness.Progress)) Option { return func(o *options) { o.progress = fn } }

func newOptions(opts []Option) (options, error) {
	o := options{
		promptTokens:  DefaultPromptTokens,
		outputTokens:  DefaultOutputTokens,
		warmup:        loadgen.Trim{Fraction: DefaultTrimFraction},
		cooldown:      loadgen.Trim{Fraction: DefaultTrimFraction},
		drain:         DefaultDrain,
		levelDuration: DefaultLevelDuration,
	}
	for _, opt := range opts {
		if opt == nil {
			o.errs = append(o.errs, errors.New("loadtest: a nil Option"))
			continue
		}
		opt(&o)
	}
	if o.work != nil && o.lengthsSet {
		o.errs = append(o.errs, errors.New("loadtest: WithLengths with WithWorkload: the lengths size only the default synthetic prompts, and the Workload builds its own requests; drop WithLengths, or size the Workload's requests (e.g. workload.SyntheticConfig.Lengths)"))
	}
	if o.work == nil && len(o.errs) == 0 {
		w, err := workload.NewSynthetic(workload.SyntheticConfig{
			Lengths: workload.Data{PromptTokens: o.promptTokens, OutputTokens: o.outputTokens},
			Seed:    DefaultSeed,
		})
		if err != nil {
			return o, err
		}
		o.work = w
	}
	if o.decideMax == 0 {
		o.decideMax = DefaultDecideFactor * o.levelDuration
	}
	return o, errors.Join(o.errs...)
}

// client returns the Requester for target, naming the model the server
// lists when WithModel did not.
func (o *options) newClient(ctx context.Context, target string) (*openai.Client, error) {
	// The CLI's timeouts first, so that the caller's options override them.
	copts := append([]openai.Option{openai.WithRequestTimeout(DefaultRequestTimeout), openai.WithIdleTimeout(DefaultIdleTimeout)}, o.client...)
	if o.model == "" {
		probe, err := openai.New(target, copts...)
		if err != nil {
			return nil, fmt.Errorf("loadtest: %w", err)
		}
		ids, err := probe.Models(ctx)
		if err != nil {
			return nil, fmt.Errorf("loadtest: no model given and the server's list failed: %w; name one with WithModel", err)
		}
		if len(ids) != 1 {
			return nil, fmt.Errorf("loadtest: the server lists %d models (%q): name one with WithModel", len(ids), ids)
		}
		o.model = ids[0]
	}
	c, err := openai.New(target, append(copts, openai.WithModel(o.model))...)
	if err != nil {
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	return c, nil
}

// runner builds the harness.Runner of Level and Sweep.
func (o *options) runner(client *openai.Client, lim, decide loadgen.Limits, precision slo.Precision) (*harness.Runner, error) {
	cfg := harness.Config{
		Requester:    client,
		Workload:     o.work,
		Clock:        loadgen.NewClock(time.Now()),
		Limits:       lim,
		DecideLimits: decide,
		Warmup:       o.warmup,
		Cooldown:     o.cooldown,
		Objective:    o.objective,
		Precision:    precision,
		MaxLag:       o.maxLag,
		Drain:        o.drain,
		OnRecord:     o.onRecord,
		Progress:     o.progress,
		SettleProbe:  true,
	}
	if o.pacer != nil {
		pacer := o.pacer
		cfg.Pacer = func(loadgen.Profile) loadgen.Pacer { return pacer }
	}
	return harness.New(cfg)
}

// Level runs one level of load p for d against the OpenAI-compatible
// server at target (a base URL such as "http://127.0.0.1:8000") and
// returns everything it measured: Level.Result counts the requests
// scheduled, sent, ok, failed and cancelled; Level.Summary holds the
// latencies (ms) with their 95 % intervals and the throughputs over the
// measured window. d must be > 0. With WithPacer, p is the zero Profile
// (or Mode constant, Rate 0): the level then runs open loop at the
// pacer's times, and a Profile rate or a poisson mode is refused.
//
// Errors: bad options, an unreachable /v1/models when no model is named,
// or the level's own (a panicking workload or callback, ctx cancelled).
// On interruption it returns what was measured with the error.
func Level(ctx context.Context, target string, p loadgen.Profile, d time.Duration, opts ...Option) (harness.Level, error) {
	o, err := newOptions(opts)
	if err != nil {
		return harness.Level{}, err
	}
	if d <= 0 {
		return harness.Level{}, fmt.Errorf("loadtest: Level's duration %v: want > 0, e.g. 30*time.Second", d)
	}
	if o.rates != nil || o.kneeTolerance != 0 {
		return harness.Level{}, errors.New("loadtest: WithRates and WithKneeTolerance guide a sweep's search and do not apply to Level, which runs the one Profile it is given")
	}
	if len(o.sweepOnly) > 0 {
		return harness.Level{}, fmt.Errorf("loadtest: %s: a sweep's level lengths, which do not apply to Level, whose length is its argument d", strings.Join(o.sweepOnly, " and "))
	}
	if o.pacer != nil {
		if !p.Mode.OpenLoop() && p.Mode != "" {
			return harness.Level{}, fmt.Errorf("loadtest: WithPacer with a %s profile: a pacer sets arrival times, which only an open-loop level has; give the zero Profile", p.Mode)
		}
		// A faulty pacer (negative, decreasing or too dense offsets) is
		// named as the fault, before the profile or its mean rate.
		if err := loadgen.CheckPacer(ctx, o.pacer, loadgen.Limits{MaxDuration: d}); err != nil {
			return harness.Level{}, fmt.Errorf("loadtest: %w", err)
		}
		// The pacer's arrivals are the level's: a rate or a Poisson mode
		// of the Profile would misname them in the Summary.
		if p.Mode == loadgen.ModePoisson || p.Rate != 0 {
			return harness.Level{}, fmt.Errorf("loadtest: WithPacer with Profile{Mode: %q, Rate: %v}: the pacer sets the arrivals, so the Profile's mode and rate would misname them; give the zero Profile (or Mode constant, Rate 0), and the Summary reports the pacer's mean rate", p.Mode, p.Rate)
		}
		p.Mode = loadgen.ModeConstant
		if p.Rate, err = meanRate(o.pacer, d); err != nil {
			return harness.Level{}, err
		}
	}
	if err := p.Validate(); err != nil {
		return harness.Level{}, fmt.Errorf("loadtest: %w", err)
	}
	client, err := o.newClient(ctx, target)
	if err != nil {
		return harness.Level{}, err
	}
	r, err := o.runner(client, loadgen.Limits{MaxDuration: d, UnreachableAfter: DefaultUnreachableAfter}, loadgen.Limits{}, slo.Precision{})
	if err != nil {
		return harness.Level{}, err
	}
	_, err = r.RunLevel(ctx, 0, p)
	var lv harness.Level
	if levels := r.Levels(); len(levels) > 0 {
		lv = levels[len(levels)-1]
	}
	return lv, err
}

// meanRateArrivals bounds the arrivals meanRate counts: 10 million, a
// second or so of the pacer's time.
const meanRateArrivals = 10_000_000

// meanRate is the mean rate of pacer's arrivals planned before d, req/s.
// A plan of more than meanRateArrivals arrivals is not counted to its end:
// its rate is that of the arrivals counted, over the time they span (the
// whole level's count would need them all).
func meanRate(pacer loadgen.Pacer, d time.Duration) (rate float64, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("loadtest: the Pacer panicked: %v", v)
		}
	}()
	var n int64
	var prev time.Duration
	for ; n < meanRateArrivals; n++ {
		at := pacer.Arrival(n, prev)
		if at >= d {
			break
		}
		prev = at
	}
	if n == 0 {
		return 0, fmt.Errorf("loadtest: the Pacer plans no arrival within the level's %v", d)
	}
	if n == meanRateArrivals && prev > 0 {
		return float64(n-1) / prev.Seconds(), nil // n arrivals span n-1 gaps
	}
	return float64(n) / d.Seconds(), nil
}

// Sweep runs a rate sweep against target to the knee of obj, as
// `gollm-bench sweep --slo ... --precision decide` does: a grid of
// constant-rate levels from synchronous to throughput, then bisection,
// each level that decides the knee run until every SLO term is decided
// (within WithDecideMax). The Result's Knee is nil when no level passed
// or none could be decided, and the error is then nil all the same: an
// undecided sweep is a result, not a failure. Check Result.Undecided (the
// inconclusive levels) and Result.Warnings (why: too few requests for a
// p99 within WithDecideMax, a client-limited level whose lag passed
// WithMaxLag) before reading Knee. Otherwise Knee's BracketLo and
// BracketHi bound the true knee, req/s. obj must have at least one term.
//
// WithRates replaces the grid with rates of the caller's choosing and
// WithKneeTolerance widens the bracket at which bisection stops: with a
// rate known to pass and one known to fail, the knee is decided in about
// the time a p99 term needs to pass (some 300 requests at the lower rate).
//
// An obj that slo.Objective.Validate refuses is refused before anything
// is sent. WithPacer does not apply to a sweep (its levels are constant rates) and
// is refused.
func Sweep(ctx context.Context, target string, obj slo.Objective, opts ...Option) (sweep.Result, error) {
	o, err := newOptions(opts)
	if err != nil {
		return sweep.Result{}, err
	}
	if obj.IsZero() {
		return sweep.Result{}, errors.New("loadtest: Sweep needs an SLO with at least one term, e.g. slo.Parse(\"ttft_p99<=500ms\")")
	}
	if err := obj.Validate(); err != nil {
		return sweep.Result{}, fmt.Errorf("loadtest: Sweep's objective: %w", err)
	}
	if o.pacer != nil {
		return sweep.Result{}, errors.New("loadtest: WithPacer does not apply to Sweep, whose levels are constant rates; use Level for a pacer of your own")
	}
	if o.objectiveSet && !o.objective.Equal(obj) {
		return sweep.Result{}, fmt.Errorf("loadtest: WithObjective(%q) differs from the objective Sweep is given (%q): a sweep has one SLO; leave WithObjective out", o.objective, obj)
	}
	o.objective = obj
	client, err := o.newClient(ctx, target)
	if err != nil {
		return sweep.Result{}, err
	}
	r, err := o.runner(client, loadgen.Limits{MaxDuration: o.levelDuration, UnreachableAfter: DefaultUnreachableAfter},
		loadgen.Limits{MaxDuration: o.decideMax, UnreachableAfter: DefaultUnreachableAfter},
		slo.Precision{Decide: true})
	if err != nil {
		return sweep.Result{}, err
	}
	plan := sweep.Plan{Kind: sweep.KindRate, RateMode: loadgen.ModeConstant, Seed: DefaultSeed,
		MaxLevels: DefaultMaxLevels, Objective: obj, Decide: true, Rates: o.rates, KneeTolerance: o.kneeTolerance}
	return sweep.Run(ctx, plan, r)
}
