package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gollm-bench/gollm-bench/energy/gpu"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// WarmupPhase is a run-level warm-up: load sent with the run's own
// workload before the first level, so that the server's KV cache,
// allocator and compiled kernels, and its GPUs' clocks and temperature,
// are in their steady state when measurement starts. It differs from the
// per-level trim (Config.Warmup), which drops the start of every level's
// own requests from its window: the phase is a separate stretch of load,
// once per run, whose requests count in no level.
//
// The zero WarmupPhase is no phase (IsZero). ParseWarmupPhase reads the
// text form, "concurrent:4:60s".
type WarmupPhase struct {
	// Profile is the phase's load: ModeConcurrent with its Concurrency,
	// or ModeConstant/ModePoisson with its Rate, req/s (and Seed,
	// MaxConcurrency as a level's).
	Profile loadgen.Profile
	// Duration is the least the phase sends for. With Gate it may be 0:
	// the phase then lasts until the gate holds.
	Duration time.Duration
	// Gate, when set, holds the phase open past Duration until the GPUs
	// have settled under its load (gpu.Gate: power within the band over
	// the window, temperature no longer rising), and at most until the
	// gate's Timeout, counted from the phase's start.
	Gate *gpu.Stabilization
}

// DefaultWarmupProfile is the load of a phase whose profile is not given
// (the gate alone, --stabilize without --warmup-phase): 4 requests in
// flight, as the seed's Kubernetes warm-up sent, enough to make a GPU
// draw its loaded power, few enough for any server.
func DefaultWarmupProfile() loadgen.Profile {
	return loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}
}

// IsZero reports whether w is no phase.
func (w WarmupPhase) IsZero() bool { return w.Profile.Mode == "" && w.Duration == 0 && w.Gate == nil }

// MaxLength is the longest the phase can send for, its drain aside:
// Duration, or the gate's timeout when that is longer.
func (w WarmupPhase) MaxLength() time.Duration {
	if w.Gate == nil {
		return w.Duration
	}
	return max(w.Duration, w.Gate.WithDefaults().Timeout)
}

// Validate reports every problem with w at once, naming its fields.
func (w WarmupPhase) Validate() error {
	var errs []error
	switch w.Profile.Mode {
	case loadgen.ModeConcurrent, loadgen.ModeConstant, loadgen.ModePoisson:
		errs = append(errs, w.Profile.Validate())
	default:
		errs = append(errs, fmt.Errorf("WarmupPhase.Profile.Mode %q: want %s, %s or %s", w.Profile.Mode, loadgen.ModeConcurrent, loadgen.ModeConstant, loadgen.ModePoisson))
	}
	switch {
	case w.Duration < 0:
		errs = append(errs, fmt.Errorf("WarmupPhase.Duration %v: must not be negative", w.Duration))
	case w.Duration == 0 && w.Gate == nil:
		errs = append(errs, errors.New("WarmupPhase.Duration is 0 without a Gate: the phase would send nothing"))
	}
	if w.Gate != nil {
		errs = append(errs, w.Gate.Validate())
	}
	return errors.Join(errs...)
}

// String is the phase's text form, as ParseWarmupPhase reads it:
// "concurrent:4:60s", "poisson:2.5:10m" ("" for no phase). A gate is not
// part of it.
func (w WarmupPhase) String() string {
	if w.IsZero() {
		return ""
	}
	level := strconv.Itoa(w.Profile.Concurrency)
	if w.Profile.Mode.OpenLoop() {
		level = strconv.FormatFloat(w.Profile.Rate, 'g', -1, 64)
	}
	return fmt.Sprintf("%s:%s:%s", w.Profile.Mode, level, formatDuration(w.Duration))
}

// formatDuration writes d as people write it: "60s", "90s", "10m", "1.5s".
func formatDuration(d time.Duration) string {
	switch {
	case d >= 5*time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// MaxWarmupConcurrency is the most requests in flight ParseWarmupPhase
// accepts: a warm-up brings a server to its steady state, and needs no
// more than a level's load (DefaultThroughputConcurrency is 512).
const MaxWarmupConcurrency = 4096

// ParseWarmupPhase reads a phase in its text form PROFILE:LEVEL:DURATION:
//
//	concurrent:N:DURATION   N requests in flight (a whole number >= 1)
//	constant:R:DURATION     R requests/s at even intervals (R > 0)
//	poisson:R:DURATION      R requests/s on average, exponential gaps
//
// DURATION is a Go duration greater than 0: "60s", "2m", "1m30s". Errors
// quote the text and say what is wanted; a caller prefixes the name of
// its setting. The result has no Gate.
func ParseWarmupPhase(s string) (WarmupPhase, error) {
	const want = "want PROFILE:LEVEL:DURATION, e.g. concurrent:4:60s, constant:2:60s or poisson:2:60s"
	var w WarmupPhase
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 3 {
		return w, fmt.Errorf("%q: %s", s, want)
	}
	mode, level, dur := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
	var errs []error
	switch m := loadgen.Mode(strings.ToLower(mode)); m {
	case loadgen.ModeConcurrent:
		n, err := strconv.Atoi(level)
		switch {
		case err != nil || n < 1:
			errs = append(errs, fmt.Errorf("%q: concurrent takes a whole number of requests in flight >= 1, e.g. concurrent:4:60s, not %q", s, level))
		case n > MaxWarmupConcurrency:
			errs = append(errs, fmt.Errorf("%q: %d requests in flight: a warm-up phase takes at most %d", s, n, MaxWarmupConcurrency))
		}
		w.Profile = loadgen.Profile{Mode: m, Concurrency: n}
	case loadgen.ModeConstant, loadgen.ModePoisson:
		r, err := strconv.ParseFloat(level, 64)
		switch {
		case err != nil || !(r > 0) || math.IsInf(r, 0):
			errs = append(errs, fmt.Errorf("%q: %s takes a rate in requests/s > 0, e.g. %s:2:60s, not %q", s, m, m, level))
		case r > loadgen.MaxRate:
			errs = append(errs, fmt.Errorf("%q: a rate of %s req/s: the largest usable rate is %g req/s (arrivals closer than 1 µs cannot be sent apart)", s, level, float64(loadgen.MaxRate)))
		}
		w.Profile = loadgen.Profile{Mode: m, Rate: r}
	default:
		errs = append(errs, fmt.Errorf("%q: profile %q: want concurrent, constant or poisson (%s)", s, mode, want))
	}
	d, err := time.ParseDuration(dur)
	switch {
	case err != nil:
		hint := ""
		if _, nerr := strconv.ParseFloat(dur, 64); nerr == nil {
			hint = fmt.Sprintf(" (a unit is needed: %ss)", dur)
		}
		errs = append(errs, fmt.Errorf("%q: duration %q is not a duration like 60s or 2m%s", s, dur, hint))
	case d <= 0:
		errs = append(errs, fmt.Errorf("%q: duration %q: want a length > 0, e.g. 60s", s, dur))
	}
	w.Duration = d
	if err := errors.Join(errs...); err != nil {
		return WarmupPhase{}, err
	}
	return w, nil
}

// RunWarmup runs the warm-up phase ph before the levels: it sends ph's
// load with the Runner's workload and requester (sharded as the levels
// are) until ph.Duration has passed and, with ph.Gate, until the gate
// holds on reads of src or its timeout passes. Its requests get Phase
// loadgen.PhaseWarmup and Level loadgen.WarmupLevel; they are written to
// the records log before the first level's, and counted in no level.
// Requests in flight at its end may finish within Config.Drain, and when
// some are cut off the first level starts with the settle probe
// (Config.SettleProbe), as after any level.
//
// src, when not nil, is also read once when the phase ends, for the GPUs'
// power, temperature and clocks then; it must not be read by anyone else
// meanwhile (a Meter's window, say). ph.Gate needs src.
//
// The record is filled in whatever happens once the phase started. The
// error is non-nil if ph is invalid or ph.Gate has no src (nothing was
// sent), if the records could not be written, or if ctx was cancelled
// (the record then has Interrupted set). RunWarmup must not run at the
// same time as a level.
func (r *Runner) RunWarmup(ctx context.Context, ph WarmupPhase, src gpu.Source) (WarmupRecord, error) {
	out := WarmupRecord{Spec: ph.String(), Profile: ph.Profile, PlannedS: ph.Duration.Seconds()}
	if err := ph.Validate(); err != nil {
		return out, fmt.Errorf("harness: warm-up phase: %w", err)
	}
	var gate *gpu.Gate
	if ph.Gate != nil {
		if src == nil || src.Name() == "none" {
			return out, errors.New("harness: warm-up phase: its thermal gate reads GPU power, but there is no energy source")
		}
		gate, _ = gpu.NewGate(*ph.Gate) // validated above
		out.Gate = &WarmupGate{Spec: gate.Stabilization().String()}
	}
	lim := loadgen.Limits{MaxDuration: ph.MaxLength(), MaxErrors: r.cfg.Limits.MaxErrors, UnreachableAfter: r.cfg.Limits.UnreachableAfter}
	spool, err := r.cfg.Log.spool(loadgen.WarmupLevel)
	if err != nil {
		return out, err
	}
	live := metrics.NewLive()
	sink := loadgen.SinkFunc(func(rec *loadgen.Record) error {
		rec.Phase = loadgen.PhaseWarmup
		live.Add(rec)
		return spool.Write(rec)
	})
	gen := loadgen.New(r.cfg.Requester, r.cfg.Workload, r.generatorOptions()...)
	r.genMu.Lock()
	r.gen = gen
	r.genMu.Unlock()
	gw := r.watchGate(ctx, gen, ph.Duration, gate, src)
	stopProgress := r.watchProgress(ctx, loadgen.WarmupLevel, 0, ph.Profile, lim, live, nil, func(p *Progress) {
		p.Phase, p.Expected = loadgen.PhaseWarmup, ph.Duration
		p.Gate = gw.state()
	})
	res, runErr := gen.Run(ctx, loadgen.WarmupLevel, ph.Profile, lim, sink)
	r.nextSeq = gen.NextSeq()
	gs := gw.stop()
	runErr = errors.Join(runErr, stopProgress())
	r.abandoned = res.Cancelled

	out.Start, out.End, out.DurationS = res.Start, res.End, res.Duration().Seconds()
	out.StopReason, out.Interrupted = res.StopReason, res.Interrupted
	out.Scheduled, out.OK, out.Failed, out.Cancelled = res.Scheduled, res.OK, res.Failed, res.Cancelled
	if src != nil && src.Name() != "none" {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryTimeout)
		snap, err := src.Read(rctx, time.Now())
		cancel()
		if err != nil {
			out.Warnings = append(out.Warnings, metrics.Warning{Code: WarnTelemetryFailed, Level: -1,
				Message: fmt.Sprintf("warm-up phase: reading the GPUs' state at its end: %v", err)})
		} else {
			out.GPUs = snap.States()
		}
	}
	if gate != nil {
		out.Gate.Passed, out.Gate.SpreadW, out.Gate.TempRiseC = gs.passed, gs.last.SpreadW, gs.last.TempRiseC
		out.Gate.Reads, out.Gate.FailedReads = gs.reads, gs.failed
		if gs.heldAt >= 0 {
			// From the phase's start, as DurationS is: the gate's watch
			// starts a moment before the load generator's clock does.
			s := max(gs.heldAt-res.Start, 0).Seconds()
			out.Gate.HeldAfterS = &s
		}
		if gs.failed > 0 {
			out.Warnings = append(out.Warnings, metrics.Warning{Code: WarnTelemetryFailed, Level: -1,
				Message: fmt.Sprintf("thermal gate: %d of %d reads of %s failed (last: %v)", gs.failed, gs.failed+gs.reads, src.Name(), gs.lastErr)})
		}
		if !gs.passed && !res.Interrupted {
			out.Warnings = append(out.Warnings, gpu.NotStableWarning(gate.Stabilization(), gs.last))
		}
	}

	// The records, now that the phase is over: its summary, and the log.
	var errs errorTally
	drift := newDriftBuilder(res.Start)
	r.cfg.Log.beginLevel()
	copying := r.cfg.Log.copying(spool)
	replayErr := spool.replay(func(rec *loadgen.Record) error {
		errs.add(rec)
		drift.add(rec)
		if copying {
			r.cfg.Log.add(rec)
		}
		return nil
	})
	writeErr := r.cfg.Log.endLevel(spool, copying, replayErr)
	out.ErrorKinds, out.ErrorExamples = errs.kinds, errs.examples
	out.Drift, out.FirstTTFTMs, out.LastTTFTMs = drift.slices()
	if out.Failed > 0 {
		kinds := make([]string, 0, len(errs.kinds))
		for k, n := range errs.kinds {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		slices.Sort(kinds)
		out.Warnings = append(out.Warnings, metrics.Warning{Code: WarnWarmupErrors, Level: -1, Message: fmt.Sprintf(
			"the warm-up phase had %d failed request(s) of %d (%s): the levels may start against a server that was failing, not warm",
			out.Failed, out.Scheduled, strings.Join(kinds, ", "))})
	}
	if writeErr != nil && res.StopReason == loadgen.StopSinkError {
		runErr = nil // the write failure says it
	}
	if runErr != nil {
		runErr = fmt.Errorf("warm-up phase: %w", runErr)
	}
	return out, errors.Join(runErr, writeErr)
}

// generatorOptions are the options of every level's (and the warm-up
// phase's) generator.
func (r *Runner) generatorOptions() []loadgen.Option {
	opts := []loadgen.Option{loadgen.WithClock(r.cfg.Clock), loadgen.WithLogger(r.cfg.Logger),
		loadgen.WithSeqStart(r.nextSeq), loadgen.WithDrainTimeout(r.cfg.Drain)}
	if !r.cfg.Shard.IsZero() {
		opts = append(opts, loadgen.WithShard(r.cfg.Shard.Index, r.cfg.Shard.Count))
	}
	return opts
}

// gateWatch is the thermal gate running beside the warm-up phase's load.
type gateWatch struct {
	done chan struct{}
	wg   sync.WaitGroup

	mu  sync.Mutex
	out gateOutcome
	on  bool // a gate runs
}

// gateOutcome is where the gate stood when the phase ended.
type gateOutcome struct {
	passed        bool
	heldAt        time.Duration // first hold, on the run's clock; -1: never
	last          gpu.GateState
	reads, failed int
	lastErr       error
}

// watchGate reads src every gate interval, from a goroutine it owns, and
// stops gen once the gate holds and the phase has lasted minLen. Read
// failures are counted, not fatal: the gate then cannot hold on them, and
// its timeout ends the phase.
func (r *Runner) watchGate(ctx context.Context, gen *loadgen.Generator, minLen time.Duration, gate *gpu.Gate, src gpu.Source) *gateWatch {
	gw := &gateWatch{done: make(chan struct{}), out: gateOutcome{heldAt: -1}, on: gate != nil}
	if gate == nil {
		return gw
	}
	start := r.cfg.Clock.Now()
	every := gate.Stabilization().Interval
	gw.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			now := time.Now()
			rctx, cancel := context.WithTimeout(ctx, telemetryTimeout)
			snap, err := src.Read(rctx, now)
			cancel()
			elapsed := r.cfg.Clock.Now() - start
			gw.mu.Lock()
			if err != nil {
				if ctx.Err() == nil {
					gw.out.failed++
					gw.out.lastErr = err
				}
			} else {
				gw.out.reads++
				st := gate.Add(now, snap)
				gw.out.last = st
				if st.Holds && gw.out.heldAt < 0 {
					gw.out.heldAt = start + elapsed
				}
				gw.out.passed = st.Holds
			}
			passed := gw.out.passed
			gw.mu.Unlock()
			if passed && elapsed >= minLen && gen.Stop() {
				return
			}
			select {
			case <-gw.done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return gw
}

// state is the gate's last state, for the progress line (nil without a
// gate or before its first read).
func (gw *gateWatch) state() *gpu.GateState {
	if !gw.on {
		return nil
	}
	gw.mu.Lock()
	defer gw.mu.Unlock()
	if gw.out.reads == 0 {
		return nil
	}
	st := gw.out.last
	return &st
}

// stop ends the watch and returns the outcome.
func (gw *gateWatch) stop() gateOutcome {
	close(gw.done)
	gw.wg.Wait()
	gw.mu.Lock()
	defer gw.mu.Unlock()
	return gw.out
}

// driftSlices is the most slices of the warm-up phase's TTFT drift, and
// driftPerSlice the requests each slice should hold on average.
const driftSlices, driftPerSlice = 10, 5

// driftBuilder collects the warm-up phase's records for its TTFT drift.
type driftBuilder struct {
	start time.Duration
	recs  []driftPoint
}

type driftPoint struct {
	sentAt time.Duration
	status loadgen.Status
	ttftMs float64 // NaN: no first token, or not ok
}

func newDriftBuilder(start time.Duration) *driftBuilder { return &driftBuilder{start: start} }

func (b *driftBuilder) add(rec *loadgen.Record) {
	if rec.SentAt == 0 && rec.Status == loadgen.StatusCancelled {
		return // never sent
	}
	p := driftPoint{sentAt: rec.SentAt, status: rec.Status, ttftMs: math.NaN()}
	if ttft, ok := rec.TTFT(); ok && rec.Status == loadgen.StatusOK {
		p.ttftMs = float64(ttft) / float64(time.Millisecond)
	}
	b.recs = append(b.recs, p)
}

// slices cuts the phase, from its start to its last send, into equal
// slices by send time (at most driftSlices, and about driftPerSlice
// requests each on average), and returns them with the median
// TTFT of the first and last slices that have one.
func (b *driftBuilder) slices() (out []WarmupSlice, first, last *float64) {
	if len(b.recs) == 0 {
		return nil, nil, nil
	}
	end := b.start
	for _, p := range b.recs {
		end = max(end, p.sentAt)
	}
	n := min(driftSlices, max(len(b.recs)/driftPerSlice, 1))
	width := max((end-b.start)/time.Duration(n)+1, time.Nanosecond)
	out = make([]WarmupSlice, n)
	ttfts := make([][]float64, n)
	for i := range out {
		out[i].StartS = (time.Duration(i) * width).Seconds()
	}
	for _, p := range b.recs {
		i := min(max(int((p.sentAt-b.start)/width), 0), n-1)
		out[i].Sent++
		switch p.status {
		case loadgen.StatusOK:
			out[i].OK++
		case loadgen.StatusError, loadgen.StatusTimeout:
			out[i].Failed++
		}
		if !math.IsNaN(p.ttftMs) {
			ttfts[i] = append(ttfts[i], p.ttftMs)
		}
	}
	for i, xs := range ttfts {
		if len(xs) == 0 {
			continue
		}
		slices.Sort(xs)
		med := xs[len(xs)/2]
		if len(xs)%2 == 0 {
			med = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
		}
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		mean := sum / float64(len(xs))
		out[i].TTFTP50Ms, out[i].TTFTMeanMs = &med, &mean
		if first == nil {
			first = out[i].TTFTP50Ms
		}
		last = out[i].TTFTP50Ms
	}
	return out, first, last
}
