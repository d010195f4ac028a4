package harness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gollm-bench/gollm-bench/energy/gpu"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Config configures a Runner. Requester, Workload and one of
// Limits.MaxDuration and Limits.MaxRequests are required.
type Config struct {
	Requester loadgen.Requester
	Workload  loadgen.Workload
	// Pacer, when set, gives the arrival process of each open-loop level
	// (and each run of a repeated one, whose Profile carries its derived
	// Seed): a ramp, gamma gaps, a trace's schedule. nil, or a nil
	// answer, keeps loadgen.PacerFor(profile).
	Pacer func(loadgen.Profile) loadgen.Pacer
	// Label, when set, names a level's load in Progress.Label, e.g. the
	// ramp or trace Pacer shapes it with; nil or "" leaves Progress.Label
	// empty (the profile names it). It is called only with Progress set
	// (without it, Label is not used).
	Label func(loadgen.Profile) string
	// Clock stamps every record; give the Requester the same one.
	Clock loadgen.Clock
	// Limits are each level's stop conditions. Their warmup and cooldown
	// fields must be zero (Validate refuses them): a level's trims are
	// Warmup and Cooldown below.
	Limits           loadgen.Limits
	Warmup, Cooldown loadgen.Trim
	// Objective is the SLO; its per-request predicate gives goodput.
	Objective slo.Objective
	// MaxLag is the scheduling-lag p99 above which a level is
	// client-limited (default Objective.MaxLag()).
	MaxLag time.Duration
	// Log receives every record, each level's records once its window is
	// known. Nil keeps nothing on disk (records live in memory per level).
	Log *RecordLog
	// Telemetry is read at each level's window start and end (optional).
	Telemetry Telemetry
	// Progress, when set, is called about every ProgressEvery while a
	// level runs (default 1 s), from a goroutine the Runner owns. Without
	// Progress, ProgressEvery still paces the precision and SLO watches of
	// a level run to a decision. A panic in Progress (or Label) stops the
	// level and RunLevel returns it as an error.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// OnRecord, when set, is called with each record as its request
	// finishes (completion order, warmup and cooldown included; InWindow
	// is not yet known), from one goroutine the Runner owns, after the
	// record is kept for the level's summary. It may keep rec but must not
	// change it. A panic in OnRecord stops the level with an error that
	// carries the panic's message; the records are all kept.
	//
	// OnRecord runs on the level's record path: the level's one writer
	// goroutine waits for it before it takes the next record, and the
	// level does not end (not even on ctx's cancellation) until every
	// record has been through it. A slow OnRecord therefore delays the
	// level's end by as long as it blocks; one that must do slow work
	// (a network write, a disk flush) should hand the record to a
	// goroutine of its own, e.g. through a buffered channel.
	OnRecord func(rec *loadgen.Record)
	// Drain lets requests in flight when a level's MaxDuration ends run up
	// to this long before they are cancelled, so that requests sent in the
	// window are measured to their end rather than cut off (the window
	// itself still ends at MaxDuration − cooldown). Requests sent before the
	// window (in the warmup) are not drained but cancelled at MaxDuration:
	// they are not measured, and in a throughput level, whose closed loop
	// keeps a queue deeper than the server completes within the level, the
	// window's requests wait behind them. 0 cancels at once: the zero
	// value measures only what finished by MaxDuration, where the CLI's
	// --drain-timeout defaults to 30 s (loadtest's default too).
	Drain time.Duration
	// TimelineBuckets is the number of points of each level's timeline
	// (default 60).
	TimelineBuckets int
	Logger          *slog.Logger
	// Shard, when set, runs this process's part of a distributed run
	// (docs/cli.md#distributed-runs, loadgen.WithShard): every level follows
	// the whole seeded plan and sends only the shard's requests. Each level's
	// Summary then describes the shard's share (its Profile is Shard.Share of
	// the level's), so that metrics.MergeSummaries of all shards gives the
	// whole level.
	Shard loadgen.Shard
	// Precision, when set, makes RunLevelToDecision run a level (but a
	// throughput probe) until its precision targets are met and every SLO
	// term is decided, or the level fails, or its Limits are reached (see
	// precisionMonitor). sweep.Run calls RunLevelToDecision for the levels
	// that decide the knee and for every level of a fixed run, when its
	// Plan.Decide is set; RunLevel ignores Precision.
	Precision slo.Precision
	// DecideLimits bound a level run to a decision (RunLevelToDecision with
	// Precision); zero means Limits. Without Precision they are not used
	// (a facade may set them whatever its precision). A sweep runs its grid under Limits
	// and the levels that decide the knee under these, usually longer.
	// Their warmup and cooldown fields must be zero, as Limits' must.
	DecideLimits loadgen.Limits
	// Repeat runs each level this many times and pools them (0 or 1: once).
	Repeat int
	// SettleProbe, when true, makes a level that follows one whose requests were
	// cut off at its end (LevelResult.Cancelled > 0) first send one probe
	// request (a one-word prompt, max_tokens 1) and wait for its answer. A server that keeps
	// serving requests whose client went away (llama.cpp keeps ~490 of the
	// throughput level's 512 queued for ~10 s) would otherwise still be
	// busy with them during the next level; on a FIFO server the probe is
	// answered once that backlog is gone. The probe is not recorded; a
	// wait over DrainWarnAfter is a warning on the next level.
	SettleProbe bool
}

// DrainWarnAfter is the probe wait, s, above which the next level carries
// a "drained" warning.
const DrainWarnAfter = time.Second

// Progress is a live snapshot of the level in progress.
type Progress struct {
	Level int
	// Repeat is the 0-based run of a repeated level, of Repeats runs
	// (Repeats is 1 without Config.Repeat).
	Repeat, Repeats int
	Profile         loadgen.Profile
	// Label names the level's load when Config.Label does ("ramp linear
	// 2→20 req/s over 1m0s", "trace mooncake 1×"); "" otherwise.
	Label   string
	Elapsed time.Duration
	// Expected is the level's planned length (0 when it is request-bound
	// and the rate is unknown).
	Expected time.Duration
	// Drain is how long requests still in flight at Expected may run on
	// before they are cancelled (Config.Drain): past Expected the level
	// ends within Drain.
	Drain time.Duration
	Load  loadgen.Progress
	Live  metrics.LiveStats
	// Final is true on the last call for a level, when it has ended.
	Final bool
	// Precision is the live state of a precision-driven level
	// (Config.Precision), nil otherwise.
	Precision *PrecisionProgress
	// Phase is loadgen.PhaseWarmup while the run-level warm-up phase runs
	// (Level is then loadgen.WarmupLevel), "" for a level.
	Phase loadgen.Phase
	// Gate is the warm-up phase's thermal gate after its last read; nil
	// for a level, or without a gate.
	Gate *gpu.GateState
}

// Telemetry reads side measurements (GPU energy, engine metrics) over a
// level's window. Begin is called when the window opens and End when it
// closes; End returns what was read over the window (nil: nothing), as
// stored in run.json's telemetry. Implementations must return promptly
// when ctx is cancelled. Package telemetry's Sources is the command
// line's; this package imports none, so that running a level pulls in no
// Prometheus code.
type Telemetry interface {
	Begin(ctx context.Context, level int) error
	End(ctx context.Context, level int) (TelemetryReading, error)
}

// TelemetryReading is what a Telemetry read over one level's window
// (package telemetry's *LevelReading). Warnings returns its warnings for
// the level's summary s, cross-checks against s's token counts included;
// it is called once, when the level ends. A reading that also has a
// method ServerConcurrency() float64 (the engine's peak running
// sequences) gives Runner.ServerConcurrency its figure.
type TelemetryReading interface {
	Warnings(s metrics.Summary) []metrics.Warning
}

// Level is everything measured at one level, or at one run of a repeated
// level.
type Level struct {
	Result loadgen.LevelResult `json:"result"`
	// Repeat is the 0-based run of a repeated level (Config.Repeat).
	Repeat    int              `json:"repeat,omitempty"`
	Summary   metrics.Summary  `json:"summary"`
	Timeline  metrics.Timeline `json:"timeline"`
	Telemetry TelemetryReading `json:"telemetry,omitempty"`
	// ErrorKinds counts the level's failed requests (StatusError and
	// StatusTimeout) by error kind, over all its records, warmup and
	// cooldown included; Summary.Requests.ErrorKinds counts the window's
	// only, and a level stopped early can have an empty window.
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
	// ErrorExamples holds the first error message of each kind of
	// ErrorKinds, in record order.
	ErrorExamples map[string]string `json:"error_examples,omitempty"`
	// Precision is where a precision-driven level stood when it ended.
	Precision *PrecisionProgress `json:"-"`
}

// Runner runs levels; it implements sweep.LevelRunner. Levels run one at a
// time: a RunLevel (or RunLevelToDecision) called while another is in
// progress on the same Runner returns an error and runs nothing.
type Runner struct {
	cfg     Config
	running atomic.Bool // a level is in progress (runLevel)
	nextSeq int64       // Seq of the next level's first request

	genMu sync.Mutex
	gen   *loadgen.Generator // the level in progress, for progress reports

	abandoned int64 // requests the previous level cut off at its end

	// prev is the level run last, kept so that a level re-run to a
	// decision right after it at the same load continues its sample
	// (continuation).
	prev *previousLevel

	mu     sync.Mutex
	levels []Level
}

// Validate reports every problem of c at once (errors.Join), each naming
// the field and the fix: a missing Requester or Workload, a level without
// a bound, an invalid trim, and a field the Runner would not use (the
// warmup and cooldown fields of Limits and DecideLimits).
func (c Config) Validate() error {
	var errs []error
	if c.Requester == nil {
		errs = append(errs, errors.New("harness: no Requester"))
	}
	if c.Workload == nil {
		errs = append(errs, errors.New("harness: no Workload"))
	}
	if c.Limits.MaxDuration <= 0 && c.Limits.MaxRequests <= 0 {
		errs = append(errs, errors.New("harness: a level needs Config.Limits.MaxDuration or Config.Limits.MaxRequests"))
	}
	for name, t := range map[string]loadgen.Trim{"Config.Warmup": c.Warmup, "Config.Cooldown": c.Cooldown} {
		if err := t.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("harness: %s: %w", name, err))
		}
	}
	errs = append(errs, unusedTrims("Config.Limits", c.Limits)...)
	errs = append(errs, unusedTrims("Config.DecideLimits", c.DecideLimits)...)
	// Negative counts and durations used to be read as their defaults.
	for _, f := range []struct {
		field, want string
		bad         bool
	}{
		{"Drain", "a duration >= 0 (0 cancels at once; the CLI's default is 30 s)", c.Drain < 0},
		{"Repeat", "a count >= 0 (0 or 1 runs each level once)", c.Repeat < 0},
		{"TimelineBuckets", "a count >= 0 (0 gives 60)", c.TimelineBuckets < 0},
		{"ProgressEvery", "a duration >= 0 (0 gives 1 s)", c.ProgressEvery < 0},
	} {
		if f.bad {
			errs = append(errs, fmt.Errorf("harness: Config.%s is negative: want %s", f.field, f.want))
		}
	}
	return errors.Join(errs...)
}

// unusedTrims reports the trims set in lim, which the Runner replaces by
// Config.Warmup and Config.Cooldown.
func unusedTrims(name string, lim loadgen.Limits) []error {
	var errs []error
	for _, f := range []struct {
		field, trim string
		set         bool
	}{
		{"Warmup", "Warmup", lim.Warmup != 0},
		{"WarmupRequests", "Warmup", lim.WarmupRequests != 0},
		{"WarmupFraction", "Warmup", lim.WarmupFraction != 0},
		{"Cooldown", "Cooldown", lim.Cooldown != 0},
		{"CooldownRequests", "Cooldown", lim.CooldownRequests != 0},
		{"CooldownFraction", "Cooldown", lim.CooldownFraction != 0},
	} {
		if f.set {
			errs = append(errs, fmt.Errorf("harness: %s.%s is not used by the Runner: give the trim as Config.%s (a loadgen.Trim: Duration, Requests or Fraction) and leave %s.%s zero", name, f.field, f.trim, name, f.field))
		}
	}
	return errs
}

// New validates cfg (Config.Validate) and returns a Runner.
func New(cfg Config) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Clock == (loadgen.Clock{}) {
		cfg.Clock = loadgen.NewClock(time.Now())
	}
	if cfg.MaxLag <= 0 {
		cfg.MaxLag = cfg.Objective.MaxLag()
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = time.Second
	}
	if cfg.TimelineBuckets <= 0 {
		cfg.TimelineBuckets = 60
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{cfg: cfg}, nil
}

// Objective returns the SLO the Runner measures goodput against
// (Config.Objective); sweep.Run reads it, so that the SLO is given once.
func (r *Runner) Objective() slo.Objective { return r.cfg.Objective }

// Levels returns what was measured at every level run so far, in order.
func (r *Runner) Levels() []Level {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Level(nil), r.levels...)
}

// ServerConcurrency returns the most requests the engine reported running
// at once during level (the engine metrics of package telemetry's Sources: peak running sequences,
// or busy slots on llama.cpp), or 0 when the level has no such reading. It
// implements sweep.CapacityReporter.
func (r *Runner) ServerConcurrency(level int) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, lv := range r.levels {
		if lv.Summary.Level != level {
			continue
		}
		if rd, ok := lv.Telemetry.(interface{ ServerConcurrency() float64 }); ok {
			return rd.ServerConcurrency()
		}
	}
	return 0
}

// limitsFor is the limits of a level: Limits with the trims applied.
func (r *Runner) limitsFor() loadgen.Limits {
	return r.cfg.Limits.WithTrims(r.cfg.Warmup, r.cfg.Cooldown)
}

// decideLimits are the limits of a level run to a decision: DecideLimits,
// or Limits when it is zero, with the trims applied (a share applies to
// the length the level actually runs).
func (r *Runner) decideLimits() loadgen.Limits {
	base := r.cfg.Limits
	if r.cfg.DecideLimits.MaxDuration > 0 || r.cfg.DecideLimits.MaxRequests > 0 {
		base = r.cfg.DecideLimits
	}
	return base.WithTrims(r.cfg.Warmup, r.cfg.Cooldown)
}

// RunLevel runs one level and returns its summary. With Config.Repeat > 1
// it runs the level that many times, one after the other (Poisson
// arrivals reseeded for each run with loadgen.DeriveSeed), and returns the pooled
// summary (metrics.PoolRepeats) with the spread between the runs. On
// interruption it returns the partial level's summary with the error, so
// nothing measured is lost.
func (r *Runner) RunLevel(ctx context.Context, level int, p loadgen.Profile) (metrics.Summary, error) {
	return r.runLevel(ctx, level, p, false)
}

// RunLevelToDecision is RunLevel for a level that must be decided: it
// runs until every SLO term is decided and the precision targets
// (Config.Precision) are met, or the level fails, within its limits. A
// throughput level, a saturation probe, runs as RunLevel does; so does
// every level without Config.Precision. It implements
// sweep.DecidingRunner.
func (r *Runner) RunLevelToDecision(ctx context.Context, level int, p loadgen.Profile) (metrics.Summary, error) {
	return r.runLevel(ctx, level, p, true)
}

func (r *Runner) runLevel(ctx context.Context, level int, p loadgen.Profile, decide bool) (metrics.Summary, error) {
	if !r.running.CompareAndSwap(false, true) {
		return metrics.Summary{}, fmt.Errorf("harness: level %d: RunLevel called while another level is in progress on the same Runner; levels run one at a time (use a Runner per concurrent caller)", level)
	}
	defer r.running.Store(false)
	n := max(r.cfg.Repeat, 1)
	if n == 1 {
		s, _, err := r.runOnce(ctx, level, p, 0, decide)
		return s, err
	}
	var runs []metrics.Summary
	var errs []error
	for i := range n {
		rp := p
		rp.Seed = loadgen.DeriveSeed(p.Seed, i)
		s, res, err := r.runOnce(ctx, level, rp, i, decide)
		if res.Scheduled > 0 || err == nil {
			runs = append(runs, s)
		}
		if err != nil {
			errs = append(errs, err)
			break
		}
	}
	if len(runs) == 0 {
		return metrics.Summary{}, errors.Join(errs...)
	}
	pooled, err := metrics.PoolRepeats(runs...)
	if err != nil {
		return runs[len(runs)-1], errors.Join(append(errs, err)...)
	}
	pooled.Profile = runs[0].Profile
	pooled.Profile.Seed = p.Seed
	pooled.Repeats = repeatSpread(r.cfg.Objective, runs, pooled)
	pooled.Warnings = append(pooled.Warnings, repeatWarnings(level, pooled.Repeats)...)
	return pooled, errors.Join(errs...)
}

// runOnce runs one level (or one run of a repeated level) end to end.
func (r *Runner) runOnce(ctx context.Context, level int, p loadgen.Profile, repeat int, decide bool) (metrics.Summary, loadgen.LevelResult, error) {
	lim := r.limitsFor()
	precise := decide && !r.cfg.Precision.IsZero() && p.Mode != loadgen.ModeThroughput
	if precise {
		// A level run to a decision may stop before its bound: its shares
		// of warmup and cooldown apply to the length it actually ran.
		lim = r.decideLimits()
	}
	drained := r.drain(ctx, level)
	spool, err := r.cfg.Log.spool(level)
	if err != nil {
		return metrics.Summary{}, loadgen.LevelResult{}, err
	}
	live := metrics.NewLive()
	// A level run to a decision right after a level of the same load
	// continues that level's sample rather than measure it again.
	cont := r.continuable(level, p, precise, drained)
	r.prev = nil
	// The monitor judges the level as it runs: a precise level stops once
	// decided, and any level with an SLO is cut off, not drained, once it
	// is known to fail (watchFailing).
	var monitor, judge *precisionMonitor
	if precise || !r.cfg.Objective.IsZero() {
		judge = newPrecisionMonitor(r.cfg.Precision, r.cfg.Objective, p, lim, r.cfg.Clock.Now())
		if r.cfg.DecideLimits.MaxDuration > 0 {
			// A sweep's level that decides the knee passes no sooner than
			// its grid's plain length; a level whose only bound is Limits
			// (`run --precision`) may stop whenever it is decided.
			judge.minPass = r.cfg.Limits.MaxDuration
		}
		if cont != nil {
			judge.carry(cont.rows)
			judge.minPass = 0 // the level it continues ran the plain length
		}
	}
	if precise {
		monitor = judge
	}
	sink := loadgen.SinkFunc(func(rec *loadgen.Record) error {
		rec.Repeat = repeat
		live.Add(rec)
		if judge != nil {
			judge.Add(rec)
		}
		if err := spool.Write(rec); err != nil {
			return err
		}
		return r.onRecord(rec)
	})

	opts := r.generatorOptions()
	if r.cfg.Pacer != nil {
		pacer, err := r.pacerFor(p)
		if err != nil {
			return metrics.Summary{}, loadgen.LevelResult{}, err
		}
		opts = append(opts, loadgen.WithPacer(pacer))
	}
	gen := loadgen.New(r.cfg.Requester, r.cfg.Workload, opts...)
	r.genMu.Lock()
	r.gen = gen
	r.genMu.Unlock()
	tele := startTelemetry(ctx, r.cfg.Telemetry, level, lim)
	stopProgress := r.watchProgress(ctx, level, repeat, p, lim, live, monitor, nil)
	stopPrecision := r.watchPrecision(ctx, gen, monitor)
	stopFailing := r.watchFailing(ctx, gen, judge, lim, monitor != nil)
	res, runErr := gen.Run(ctx, level, p, lim, sink)
	r.nextSeq = gen.NextSeq()
	cutOff := stopFailing()
	cutOff = stopPrecision() || cutOff
	progressErr := stopProgress()
	telemetry, teleErr := tele.finish()

	// Accumulate from the spool, now that the window is known.
	cfg := metrics.LevelConfig(res)
	cfg.MaxLag = r.cfg.MaxLag
	if !r.cfg.Objective.IsZero() {
		cfg.Good = r.cfg.Objective.Good
	}
	acc := metrics.NewAccumulator(cfg)
	timeline := metrics.NewTimelineBuilder(level, res.Start, res.End, cfg.Window, r.cfg.TimelineBuckets)
	// Every record is accounted for, even when the log cannot take them
	// (a full disk): the level's records then stay in its spool.
	var errs errorTally
	r.cfg.Log.beginLevel()
	copying := r.cfg.Log.copying(spool)
	replayErr := spool.replay(func(rec *loadgen.Record) error {
		acc.Add(rec)
		timeline.Add(rec)
		errs.add(rec)
		if copying {
			r.cfg.Log.add(rec)
		}
		return nil
	})
	writeErr := r.cfg.Log.endLevel(spool, copying, replayErr)
	summary := acc.Summary()
	if res.StopReason == loadgen.StopUnreachable {
		summary.Warnings = append(summary.Warnings, unreachableWarning(level, lim.UnreachableAfter, errs.examples[string(loadgen.ErrorConnect)]))
	}
	if telemetry != nil {
		summary.Warnings = append(summary.Warnings, telemetry.Warnings(summary)...)
	}
	if teleErr != nil {
		summary.Warnings = append(summary.Warnings, metrics.Warning{Code: WarnTelemetryFailed, Level: level, Message: fmt.Sprintf("telemetry: %v", teleErr)})
	}
	summary.Warnings = append(summary.Warnings, drained...)
	if cutOff {
		summary.Warnings = append(summary.Warnings, metrics.Warning{Code: WarnCutOff, Level: level, Message: fmt.Sprintf(
			"level %d was known to fail the SLO, so its %d request(s) still in flight were cut off at once rather than drained; each counts as a censored observation (at least the time it waited)",
			level, res.Cancelled)})
	}
	r.abandoned = res.Cancelled
	lv := Level{Result: res, Repeat: repeat, Summary: summary, Timeline: timeline.Timeline(), Telemetry: telemetry,
		ErrorKinds: errs.kinds, ErrorExamples: errs.examples}
	if monitor != nil {
		st := monitor.progress()
		lv.Precision = &st
		summary.Warnings = append(summary.Warnings, precisionWarnings(level, r.cfg.Precision, r.cfg.Objective, summary, res, lim)...)
		lv.Summary = summary
	}
	if cont != nil && runErr == nil && writeErr == nil {
		if pooled, err := cont.pool(level, summary); err == nil {
			summary = pooled
			lv.Summary = pooled
		}
	}
	// A level judged on a sample (a long one, precisionMonitor.Add) is
	// not continued: the next level would mix its sample with every
	// request of its own.
	if repeat == 0 && r.cfg.Repeat <= 1 && runErr == nil && writeErr == nil && judge != nil && !judge.sampled() {
		r.prev = &previousLevel{level: level, profile: p, summary: summary, result: res, rows: judge.windowRows(res.Window)}
	}
	r.mu.Lock()
	r.levels = append(r.levels, lv)
	r.mu.Unlock()
	if writeErr != nil && res.StopReason == loadgen.StopSinkError {
		// The write failure is the cause; the stop it caused (a sink
		// error wrapping the same failure) says nothing more.
		runErr = nil
	}
	return summary, res, errors.Join(runErr, progressErr, writeErr)
}

// pacerFor calls Config.Pacer, turning a panic into an error.
func (r *Runner) pacerFor(p loadgen.Profile) (pacer loadgen.Pacer, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("harness: Config.Pacer panicked for the %s profile: %v", p.Mode, v)
		}
	}()
	return r.cfg.Pacer(p), nil
}

// onRecord calls Config.OnRecord, turning a panic into an error that
// stops the level.
func (r *Runner) onRecord(rec *loadgen.Record) (err error) {
	if r.cfg.OnRecord == nil {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("harness: Config.OnRecord panicked on record seq %d: %v", rec.Seq, v)
		}
	}()
	r.cfg.OnRecord(rec)
	return nil
}

// watchPrecision checks a precision-driven level every ProgressEvery and
// stops it once it has measured enough (see precisionMonitor). A level
// that fails is cut off rather than stopped: its requests in flight can
// only confirm the failure, so they are not drained. The returned
// function stops the watch and waits for it.
func (r *Runner) watchPrecision(ctx context.Context, gen *loadgen.Generator, m *precisionMonitor) (stop func() bool) {
	if m == nil {
		return func() bool { return false }
	}
	return tickUntil(ctx, r.cfg.ProgressEvery, func() (done, cut bool) {
		st := m.check(r.cfg.Clock.Now(), gen.InFlight())
		switch {
		case !st.Met:
			return false, false
		case st.Failing:
			return true, gen.CutOff()
		}
		gen.Stop()
		return true, false
	})
}

// watchFailing watches a level with an SLO once its schedule is over
// (MaxDuration reached, or MaxRequests scheduled): every ProgressEvery it
// judges the finished requests and those still in flight (each a censored
// observation: at least the time it has waited), and once some term fails
// it cuts the level off (loadgen.Generator.CutOff) instead of draining it
// for up to Config.Drain. A precise level (watchPrecision) is watched
// from its start instead. The returned function stops the watch, waits
// for it, and reports whether it cut the level off.
func (r *Runner) watchFailing(ctx context.Context, gen *loadgen.Generator, m *precisionMonitor, lim loadgen.Limits, precise bool) (stop func() bool) {
	if m == nil || precise || r.cfg.Drain <= 0 {
		return func() bool { return false }
	}
	return tickUntil(ctx, min(r.cfg.ProgressEvery, 500*time.Millisecond), func() (done, cut bool) {
		now := r.cfg.Clock.Now()
		over := lim.MaxDuration > 0 && now-m.start >= lim.MaxDuration ||
			lim.MaxRequests > 0 && gen.Progress().Scheduled >= lim.MaxRequests
		if !over {
			return false, false
		}
		inFlight := gen.InFlight()
		if len(inFlight) == 0 || !m.check(now, inFlight).Failing {
			return false, false
		}
		return true, gen.CutOff()
	})
}

// tickUntil calls step every period on a goroutine of its own until step
// reports done or ctx ends. The returned function stops it, waits for it,
// and reports whether a step cut the level off.
func tickUntil(ctx context.Context, period time.Duration, step func() (done, cut bool)) (stop func() bool) {
	quit := make(chan struct{})
	var cut bool
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				var done bool
				if done, cut = step(); done {
					return
				}
			}
		}
	})
	return func() bool {
		close(quit)
		wg.Wait()
		return cut
	}
}

// drain sends a probe request when Config.SettleProbe is set and the previous level
// cut requests off, and waits for its answer (see Config.SettleProbe). It returns
// the warning to put on level, if any.
func (r *Runner) drain(ctx context.Context, level int) []metrics.Warning {
	if !r.cfg.SettleProbe || r.abandoned == 0 {
		return nil
	}
	n := r.abandoned
	r.abandoned = 0
	probe := loadgen.Request{Seq: -1, Prompt: "Hello", PromptTokens: 1, MaxTokens: 1}
	var rec loadgen.Record
	start := r.cfg.Clock.Now()
	rec.SentAt = start
	r.cfg.Requester.Do(ctx, r.cfg.Clock, &probe, &rec)
	wait := r.cfg.Clock.Now() - start
	if wait < DrainWarnAfter {
		return nil
	}
	return []metrics.Warning{{Code: WarnDrained, Level: level, Message: fmt.Sprintf(
		"before level %d: the server was still busy with the %d request(s) cut off at the end of the previous level; a probe request waited %.3g s for it (not measured)",
		level, n, wait.Seconds())}}
}

// watchProgress calls Config.Progress periodically until the returned
// function is called; it waits for the goroutine to stop. extra, when
// set, completes each report. A panic in Config.Progress or Config.Label
// (run in the watch's goroutine, where the embedder could not recover it)
// stops the level, as Generator.Stop does, and no report follows; stop
// returns it as an error with the panic's message.
func (r *Runner) watchProgress(ctx context.Context, level, repeat int, p loadgen.Profile, lim loadgen.Limits, live *metrics.Live, monitor *precisionMonitor, extra func(*Progress)) (stop func() error) {
	if r.cfg.Progress == nil {
		return func() error { return nil }
	}
	var (
		panicMu  sync.Mutex
		panicErr error
	)
	guarded := func(what string, fn func()) (ok bool) {
		defer func() {
			if v := recover(); v != nil {
				panicMu.Lock()
				if panicErr == nil {
					panicErr = fmt.Errorf("harness: level %d: Config.%s panicked: %v", level, what, v)
				}
				panicMu.Unlock()
				r.genMu.Lock()
				gen := r.gen
				r.genMu.Unlock()
				gen.Stop()
				ok = false
			}
		}()
		fn()
		return true
	}
	failed := func() bool {
		panicMu.Lock()
		defer panicMu.Unlock()
		return panicErr != nil
	}
	expected := lim.MaxDuration
	if expected == 0 && p.Mode.OpenLoop() && p.Rate > 0 {
		expected = time.Duration(float64(lim.MaxRequests) / p.Rate * float64(time.Second))
	}
	start := r.cfg.Clock.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	report := func(final bool) {
		r.genMu.Lock()
		gen := r.gen
		r.genMu.Unlock()
		pr := Progress{Level: level, Repeat: repeat, Repeats: max(r.cfg.Repeat, 1), Profile: p, Elapsed: r.cfg.Clock.Now() - start,
			Expected: expected, Drain: r.cfg.Drain, Load: gen.Progress(), Live: live.Stats(), Final: final}
		if failed() {
			return
		}
		if r.cfg.Label != nil && !guarded("Label", func() { pr.Label = r.cfg.Label(p) }) {
			return
		}
		if monitor != nil {
			st := monitor.progress()
			pr.Precision = &st
		}
		if extra != nil {
			extra(&pr)
		}
		guarded("Progress", func() { r.cfg.Progress(pr) })
	}
	go func() {
		defer wg.Done()
		t := time.NewTicker(r.cfg.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				report(false)
			}
		}
	}()
	return func() error {
		close(done)
		wg.Wait()
		report(true)
		panicMu.Lock()
		defer panicMu.Unlock()
		return panicErr
	}
}

// errorTally counts failed records by error kind and keeps the first
// message of each kind (Level.ErrorKinds, Level.ErrorExamples). Its zero
// value is ready to use.
type errorTally struct {
	kinds    map[string]int64
	examples map[string]string
}

func (t *errorTally) add(rec *loadgen.Record) {
	if rec.Status != loadgen.StatusError && rec.Status != loadgen.StatusTimeout {
		return
	}
	kind := string(rec.ErrorKind)
	if kind == "" {
		kind = string(rec.Status)
	}
	if t.kinds == nil {
		t.kinds, t.examples = map[string]int64{}, map[string]string{}
	}
	t.kinds[kind]++
	if _, ok := t.examples[kind]; !ok && rec.ErrorMessage != "" {
		t.examples[kind] = rec.ErrorMessage
	}
}

// unreachableWarning says that level stopped because its first n requests
// all failed to connect, with the first such error, and how to go on.
func unreachableWarning(level int, n int64, example string) metrics.Warning {
	if example == "" {
		example = "no message"
	}
	return metrics.Warning{Code: WarnUnreachable, Level: level, Message: fmt.Sprintf(
		"level %d stopped early: its first %d requests all failed to connect (%s), so none reached the server; check that the server is up at the Requester's base URL (for HTTPS with a private CA, check the client's TLS configuration), or give Config.Limits.UnreachableAfter 0 to keep sending",
		level, n, example)}
}
