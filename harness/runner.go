package harness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Trim is a warmup or cooldown: a duration, a request count, or a share of
// the level's length (duration levels) or request count (request-count
// levels). At most one field is set; the zero Trim trims nothing.
type Trim struct {
	Duration time.Duration
	Requests int64
	Fraction float64 // 0..0.5
}

// String spells t as the --warmup/--cooldown flags do.
func (t Trim) String() string {
	switch {
	case t.Duration > 0:
		return t.Duration.String()
	case t.Requests > 0:
		return fmt.Sprint(t.Requests)
	case t.Fraction > 0:
		return fmt.Sprintf("%g%%", t.Fraction*100)
	}
	return "0"
}

// Config configures a Runner. Requester, Workload and one of
// Limits.MaxDuration and Limits.MaxRequests are required.
type Config struct {
	Requester loadgen.Requester
	Workload  loadgen.Workload
	// Clock stamps every record; give the Requester the same one.
	Clock loadgen.Clock
	// Limits are each level's stop conditions. Their warmup and cooldown
	// fields are ignored: Warmup and Cooldown below are used instead.
	Limits           loadgen.Limits
	Warmup, Cooldown Trim
	// Objective is the SLO; its per-request predicate gives goodput.
	Objective slo.Objective
	// MaxLag is the scheduling-lag p99 above which a level is
	// client-limited (default Objective.MaxLag()).
	MaxLag time.Duration
	// MinSamples is the request count below which p99 is flagged
	// unreliable (default metrics.DefaultMinSamples; < 0 turns it off).
	MinSamples int
	// Log receives every record, each level's records once its window is
	// known. Nil keeps nothing on disk (records live in memory per level).
	Log *RecordLog
	// Telemetry is read at each level's window start and end (optional).
	Telemetry Telemetry
	// Progress, when set, is called about every ProgressEvery while a
	// level runs (default 1 s), from a goroutine the Runner owns.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Drain lets requests in flight when a level's MaxDuration ends run up
	// to this long before they are cancelled, so that requests sent in the
	// window are measured to their end rather than cut off (the window
	// itself still ends at MaxDuration − cooldown). Requests sent before the
	// window (in the warmup) are not drained but cancelled at MaxDuration:
	// they are not measured, and in a throughput level, whose closed loop
	// keeps a queue deeper than the server completes within the level, the
	// window's requests wait behind them. 0 cancels at once.
	Drain time.Duration
	// TimelineBuckets is the number of points of each level's timeline
	// (default 60).
	TimelineBuckets int
	Logger          *slog.Logger
	// Shard, when set, runs this process's part of a distributed run
	// (SPEC §12, loadgen.WithShard): every level follows the whole seeded
	// plan and sends only the shard's requests. Each level's Summary then
	// describes the shard's share (its Profile is Shard.Share of the
	// level's), so that metrics.MergeSummaries of all shards gives the
	// whole level.
	Shard loadgen.Shard
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
	Level   int
	Profile loadgen.Profile
	Elapsed time.Duration
	// Expected is the level's planned length (0 when it is request-bound
	// and the rate is unknown).
	Expected time.Duration
	Load     loadgen.Progress
	Live     metrics.LiveStats
	// Final is true on the last call for a level, when it has ended.
	Final bool
}

// Telemetry reads side measurements (GPU energy, engine metrics) over a
// level's window. Begin is called when the window opens and End when it
// closes; End returns what to store in run.json. Implementations must
// return promptly when ctx is cancelled.
type Telemetry interface {
	Begin(ctx context.Context, level int) error
	End(ctx context.Context, level int) (any, error)
}

// Level is everything measured at one level.
type Level struct {
	Result    loadgen.LevelResult `json:"result"`
	Summary   metrics.Summary     `json:"summary"`
	Timeline  metrics.Timeline    `json:"timeline"`
	Telemetry any                 `json:"telemetry,omitempty"`
}

// Runner runs levels; it implements sweep.LevelRunner. Levels run one at a
// time (RunLevel must not be called concurrently).
type Runner struct {
	cfg     Config
	nextSeq int64 // Seq of the next level's first request

	genMu sync.Mutex
	gen   *loadgen.Generator // the level in progress, for progress reports

	abandoned int64 // requests the previous level cut off at its end

	mu     sync.Mutex
	levels []Level
}

// New validates cfg and returns a Runner.
func New(cfg Config) (*Runner, error) {
	var errs []error
	if cfg.Requester == nil {
		errs = append(errs, errors.New("harness: no Requester"))
	}
	if cfg.Workload == nil {
		errs = append(errs, errors.New("harness: no Workload"))
	}
	if cfg.Limits.MaxDuration <= 0 && cfg.Limits.MaxRequests <= 0 {
		errs = append(errs, errors.New("harness: a level needs --max-seconds or --max-requests"))
	}
	for name, t := range map[string]Trim{"--warmup": cfg.Warmup, "--cooldown": cfg.Cooldown} {
		if t.Fraction < 0 || t.Fraction >= 0.5 || t.Duration < 0 || t.Requests < 0 {
			errs = append(errs, fmt.Errorf("harness: %s %s: must be non-negative and a share below 50%%", name, t))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
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

// Levels returns what was measured at every level run so far, in order.
func (r *Runner) Levels() []Level {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Level(nil), r.levels...)
}

// ServerConcurrency returns the most requests the engine reported running
// at once during level (Sources' engine metrics: peak running sequences,
// or busy slots on llama.cpp), or 0 when the level has no such reading. It
// implements sweep.CapacityReporter.
func (r *Runner) ServerConcurrency(level int) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, lv := range r.levels {
		if lv.Summary.Level != level {
			continue
		}
		if rd, ok := lv.Telemetry.(*LevelReading); ok && rd != nil && rd.Engine != nil && rd.Engine.Engine != "" {
			return rd.Engine.PeakRunning
		}
	}
	return 0
}

// limitsFor resolves the trims of a level into loadgen.Limits.
func (r *Runner) limitsFor() loadgen.Limits {
	lim := r.cfg.Limits
	lim.Warmup, lim.WarmupRequests = r.cfg.Warmup.Duration, r.cfg.Warmup.Requests
	lim.Cooldown, lim.CooldownRequests = r.cfg.Cooldown.Duration, r.cfg.Cooldown.Requests
	for _, t := range []struct {
		trim *Trim
		dur  *time.Duration
		reqs *int64
	}{{&r.cfg.Warmup, &lim.Warmup, &lim.WarmupRequests}, {&r.cfg.Cooldown, &lim.Cooldown, &lim.CooldownRequests}} {
		if t.trim.Fraction <= 0 {
			continue
		}
		if lim.MaxDuration > 0 {
			*t.dur = time.Duration(t.trim.Fraction * float64(lim.MaxDuration))
		} else {
			*t.reqs = int64(math.Round(t.trim.Fraction * float64(lim.MaxRequests)))
		}
	}
	return lim
}

// RunLevel runs one level and returns its summary. On interruption it
// returns the partial level's summary with the error, so nothing measured
// is lost.
func (r *Runner) RunLevel(ctx context.Context, level int, p loadgen.Profile) (metrics.Summary, error) {
	lim := r.limitsFor()
	drained := r.drain(ctx, level)
	spool, err := r.cfg.Log.spool(level)
	if err != nil {
		return metrics.Summary{}, err
	}
	defer spool.discard()
	live := metrics.NewLive()
	sink := loadgen.Tee(spool, loadgen.SinkFunc(func(rec *loadgen.Record) error { live.Add(rec); return nil }))

	opts := []loadgen.Option{loadgen.WithClock(r.cfg.Clock), loadgen.WithLogger(r.cfg.Logger),
		loadgen.WithSeqStart(r.nextSeq), loadgen.WithDrainTimeout(r.cfg.Drain)}
	share := p
	if !r.cfg.Shard.IsZero() {
		opts = append(opts, loadgen.WithShard(r.cfg.Shard.Index, r.cfg.Shard.Count))
		if s, err := r.cfg.Shard.Share(p); err == nil {
			share = s
		}
	}
	gen := loadgen.New(r.cfg.Requester, r.cfg.Workload, opts...)
	r.genMu.Lock()
	r.gen = gen
	r.genMu.Unlock()
	tele := startTelemetry(ctx, r.cfg.Telemetry, level, lim)
	stopProgress := r.watchProgress(ctx, level, p, lim, live)
	res, runErr := gen.Run(ctx, level, p, lim, sink)
	r.nextSeq = gen.NextSeq()
	stopProgress()
	telemetry, teleErr := tele.finish()

	// Accumulate from the spool, now that the window is known.
	cfg := metrics.Config{
		Level:        level,
		Profile:      share,
		Window:       metrics.Window{Start: res.Window.Start, End: res.Window.End},
		MaxLag:       r.cfg.MaxLag,
		MinSamples:   r.cfg.MinSamples,
		CPUSeconds:   res.ClientCPU.Seconds(),
		WallSeconds:  res.Duration().Seconds(),
		CapReached:   res.Queued > 0,
		PeakInFlight: res.MaxInFlight,
		InWindow:     res.InWindow,
	}
	if !r.cfg.Objective.IsZero() {
		cfg.Good = r.cfg.Objective.Good
	}
	cfg.TargetRate = plannedRate(p, lim, r.cfg.Shard, res)
	acc := metrics.NewAccumulator(cfg)
	timeline := metrics.NewTimelineBuilder(level, res.Start, res.End, cfg.Window, r.cfg.TimelineBuckets)
	replayErr := spool.replay(func(rec *loadgen.Record) error {
		acc.Add(rec)
		timeline.Add(rec)
		return r.cfg.Log.write(rec)
	})
	summary := acc.Summary()
	if w, ok := telemetry.(interface {
		Warnings(metrics.Summary) []metrics.Warning
	}); ok && telemetry != nil {
		summary.Warnings = append(summary.Warnings, w.Warnings(summary)...)
	}
	if teleErr != nil {
		summary.Warnings = append(summary.Warnings, metrics.Warning{Code: "telemetry_failed", Level: level, Message: fmt.Sprintf("telemetry: %v", teleErr)})
	}
	summary.Warnings = append(summary.Warnings, drained...)
	r.abandoned = res.Cancelled
	lv := Level{Result: res, Summary: summary, Timeline: timeline.Timeline(), Telemetry: telemetry}
	r.mu.Lock()
	r.levels = append(r.levels, lv)
	r.mu.Unlock()
	return summary, errors.Join(runErr, replayErr)
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
	return []metrics.Warning{{Code: "drained", Level: level, Message: fmt.Sprintf(
		"before level %d: the server was still busy with the %d request(s) cut off at the end of the previous level; a probe request waited %.3g s for it (not measured)",
		level, n, wait.Seconds())}}
}

// watchProgress calls Config.Progress periodically until the returned
// function is called; it waits for the goroutine to stop.
func (r *Runner) watchProgress(ctx context.Context, level int, p loadgen.Profile, lim loadgen.Limits, live *metrics.Live) (stop func()) {
	if r.cfg.Progress == nil {
		return func() {}
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
		r.cfg.Progress(Progress{Level: level, Profile: p, Elapsed: r.cfg.Clock.Now() - start, Expected: expected, Load: gen.Progress(), Live: live.Stats(), Final: final})
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
	return func() {
		close(done)
		wg.Wait()
		report(true)
	}
}

// plannedRate is an open-loop level's target rate over its window: the
// arrivals its seeded plan puts inside the window (those this shard owns),
// per second, req/s. For Poisson arrivals this is the realised plan, not
// the nominal rate, whose noise alone (about 6 % for 300 arrivals) would
// otherwise flag a healthy client as falling behind. 0 for closed loop or
// an empty window (the accumulator then uses the nominal rate).
func plannedRate(p loadgen.Profile, lim loadgen.Limits, shard loadgen.Shard, res loadgen.LevelResult) float64 {
	pacer := loadgen.PacerFor(p)
	win := res.Window
	if pacer == nil || win.Empty() {
		return 0
	}
	var n int64
	var prev time.Duration
	for i := int64(0); lim.MaxRequests <= 0 || i < lim.MaxRequests; i++ {
		at := pacer.Arrival(i, prev)
		prev = at
		// [Start, End): an arrival planned exactly at the window's end is
		// sent just after it, so it is not expected among those sent in
		// the window.
		t := res.Start + at
		if t >= win.End {
			break
		}
		if t >= win.Start && (shard.IsZero() || shard.Owns(i)) {
			n++
		}
	}
	return float64(n) / (win.End - win.Start).Seconds()
}
