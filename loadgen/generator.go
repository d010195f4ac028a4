package loadgen

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// DefaultLateTolerance is how far past its intended time an open-loop
// arrival may fire before it counts as late (LevelResult.Late).
const DefaultLateTolerance = time.Millisecond

// recordBuffer is the capacity of the channel between request goroutines
// and the sink writer.
const recordBuffer = 1024

// Generator sends load: it runs levels (Run) against a Requester, building
// requests with a Workload, and emits one Record per scheduled request.
//
// A Generator may run many levels, one after another; Seq keeps counting
// across them. Run must not be called concurrently on one Generator (it
// returns an error if it is). Progress is safe to call at any time from any
// goroutine.
type Generator struct {
	requester     Requester
	workload      Workload
	clock         Clock
	log           *slog.Logger
	drain         time.Duration
	lateTolerance time.Duration
	fineTimer     bool
	pacer         Pacer // WithPacer; nil: PacerFor(profile)
	shard         Shard
	shardSet      bool  // WithShard was given: its Count must be >= 1
	prefetchN     int   // WithPrefetch
	prefetchBytes int64 // WithPrefetch

	running  atomic.Bool
	current  atomic.Pointer[level] // the level in progress, for Stop
	nextSeq  int64                 // owned by the running Run
	progress progressCounters
}

// Option configures a Generator.
type Option func(*Generator)

// WithFineTimer turns the open-loop pacer's fine timer on or off. On (the
// default), while arrivals come at least 0.75 ms apart on average (below
// about 1,300 req/s), the last 2 ms before each arrival are slept on a
// kernel timer where the platform has one (Linux: timerfd), which ends the
// wait within about 0.1 ms of the arrival instead of up to 1 ms after it
// (the Go runtime's timers have millisecond resolution on an idle
// process); denser arrivals stay on the runtime timer, whose 1 ms batches
// cost less CPU. See BenchmarkWakerLateness. Turn it off under testing/synctest, whose fake
// clock does not drive a kernel timer, or where timerfd is forbidden (a
// failing timer falls back by itself).
func WithFineTimer(on bool) Option { return func(g *Generator) { g.fineTimer = on } }

// WithClock sets the clock whose offsets stamp every record. Give every
// component of a run the same Clock. The default is NewClock(time.Now())
// taken when New is called.
func WithClock(c Clock) Option { return func(g *Generator) { g.clock = c } }

// WithLogger sets the logger for diagnostics (recovered panics). The
// default discards.
func WithLogger(l *slog.Logger) Option {
	return func(g *Generator) {
		if l != nil {
			g.log = l
		}
	}
}

// WithSeqStart sets the Seq of the first request the Generator schedules
// (default 0), e.g. to give shards of a distributed run disjoint ranges.
func WithSeqStart(seq int64) Option { return func(g *Generator) { g.nextSeq = seq } }

// (WithShard, in shard.go, splits a level's plan between processes.)

// WithDrainTimeout lets requests still in flight when Limits.MaxDuration ends
// run for up to d longer before they are cancelled (default 0: they are
// cancelled at once and recorded as StatusCancelled, "incomplete" in the
// summary's terms: docs/metrics.md#the-measured-window-and-its-trims).
func WithDrainTimeout(d time.Duration) Option { return func(g *Generator) { g.drain = max(d, 0) } }

// WithPacer sets the Pacer of open-loop levels (ModeConstant and
// ModePoisson profiles), in place of PacerFor(profile): any arrival
// process, as vegeta's Attack takes any pacer. The profile's Rate then
// only names the level; the client's health is judged against the
// arrivals p plans (LevelResult.PlannedInWindow). nil restores PacerFor.
func WithPacer(p Pacer) Option { return func(g *Generator) { g.pacer = p } }

// pacerFor is the Pacer of an open-loop profile p.
func (g *Generator) pacerFor(p Profile) Pacer {
	if g.pacer != nil {
		return g.pacer
	}
	return PacerFor(p)
}

// WithLateTolerance sets how far past its intended time an open-loop
// arrival may fire before it counts as late (default DefaultLateTolerance).
func WithLateTolerance(d time.Duration) Option {
	return func(g *Generator) { g.lateTolerance = max(d, 0) }
}

// New returns a Generator that sends requests built by workload through
// requester.
func New(requester Requester, workload Workload, opts ...Option) *Generator {
	g := &Generator{
		requester:     requester,
		workload:      workload,
		clock:         NewClock(time.Now()),
		log:           slog.New(slog.DiscardHandler),
		lateTolerance: DefaultLateTolerance,
		fineTimer:     true,
		prefetchN:     DefaultPrefetchRequests,
		prefetchBytes: DefaultPrefetchBytes,
	}
	for _, o := range opts {
		o(g)
	}
	return g
}

// Clock returns the Generator's clock.
func (g *Generator) Clock() Clock { return g.clock }

// NextSeq returns the Seq the next scheduled request will get. Call it
// between levels, not during Run.
func (g *Generator) NextSeq() int64 { return g.nextSeq }

// missing reports the parts of a level that are nil (the Requester, the
// Workload given to New, the Sink given to Run), each a panic in one of
// our goroutines if it went on.
func (g *Generator) missing(sink Sink) error {
	var errs []error
	if g.requester == nil {
		errs = append(errs, errors.New("no Requester: give New an openai.Client or a RequesterFunc"))
	}
	if g.workload == nil {
		errs = append(errs, errors.New("no Workload: give New a workload (workload.NewSynthetic, workload.Prompts) or a WorkloadFunc"))
	}
	if sink == nil {
		errs = append(errs, errors.New("no Sink: give Run a Sink, e.g. &loadgen.MemorySink{} or a SinkFunc"))
	}
	return errors.Join(errs...)
}

// MaxLateness is how late an open-loop scheduler may still send the
// arrivals its plan put before Limits.MaxDuration: a scheduler this far
// behind (a rate faster than the client can send) stops there, so that
// MaxDuration + MaxLateness bounds every level whatever its rate. A
// scheduler only a little late (a trace replay's dense last arrivals on a
// busy machine) still sends its whole plan.
const MaxLateness = time.Second

// MaxQueueDepth is the most open-loop arrivals that wait at once for a
// Profile.MaxConcurrency slot, FIFO; an arrival that finds the queue this
// deep is held back (LevelResult.HeldBack): never sent, no record. At
// 24 bytes an arrival the queue holds at most 1.5 MiB, and an arrival at
// its end waits MaxQueueDepth/MaxConcurrency request times: with the
// cap at 1024, 64 of them.
const MaxQueueDepth = 1 << 16

// errStop is the cancellation cause of a level stopped by a limit, a sink
// or a workload failure (not by the caller).
var errStop = errors.New("loadgen: level stopped")

// Run runs one load level: it schedules requests as p says until a limit
// of lim is reached or ctx is cancelled, and writes exactly one Record per
// scheduled request to sink, from a single goroutine, in completion order.
// Each *Record is freshly allocated and never touched again after Write,
// so a sink may keep it.
//
// Pacing (docs/metrics.md#load-profiles). Open-loop modes (constant, poisson)
// fire arrival i at Start + Pacer.Arrival(i), whatever the server does: each
// request runs in its own goroutine and ScheduledAt is the intended time.
// With Profile.MaxConcurrency set, arrivals beyond the cap wait in a FIFO
// queue; the wait shows as lag (SentAt − ScheduledAt). A scheduler that falls
// behind still fires every arrival, late, and counts it (Late), until the
// clock reads MaxDuration + MaxLateness: whatever the rate, that bounds the
// level, and the arrivals it had not reached by then are not sent (the
// achieved rate falls short of the plan's, which the summary reports).
// Closed-loop
// modes run N workers (1 for synchronous, Profile.Concurrency for concurrent,
// MaxConcurrency or DefaultThroughputConcurrency for throughput), each
// sending request after request; ScheduledAt is the moment the worker became
// free.
//
// Stops. MaxDuration: no request is scheduled at or after Start +
// MaxDuration; requests still in flight then are cancelled (after the drain
// timeout, WithDrainTimeout) and recorded as StatusCancelled. With a drain
// timeout, those among them that were sent before the window opened (in
// the warmup) are cancelled at once rather than drained: they are not
// measured, and on a server with a deep queue (a throughput level) the
// requests sent in the window wait behind them. MaxRequests:
// after the MaxRequests-th request is scheduled, those in flight are
// allowed to finish (bounded by MaxDuration, if set). MaxErrors (failed =
// StatusError or StatusTimeout), UnreachableAfter (the first requests all
// failed to connect), a sink error, a workload error and ctx cancellation
// stop scheduling and cancel requests in flight at once.
// Every scheduled request still gets its record, offered to the sink even
// after a sink error: Written == Scheduled − HeldBack unless a write
// failed. HeldBack counts the open-loop arrivals the MaxConcurrency cap
// held back and the level never sent: those still queued when the level
// ended (cancelled, or MaxDuration reached), and those that found the
// queue already MaxQueueDepth deep. They get no record each: at a rate far
// above what the cap lets through they number millions, all alike, and
// would cost the client memory, time and disk out of proportion to the
// requests it sent; the count says how many.
//
// Window: [Start + warmup, End − cooldown]
// (docs/metrics.md#the-measured-window-and-its-trims). With
// Limits.WarmupRequests = N the window starts at the ScheduledAt of request k
// = N (requests k < N are excluded); with Limits.CooldownRequests = M it ends
// at the ScheduledAt of request k = Scheduled − M (requests k >= Scheduled −
// M are excluded). Use LevelResult.InWindow to set Record.InWindow when
// re-reading the records.
//
// The result is filled in whatever happens once the level has started. The
// error is non-nil if p or lim is invalid (nothing ran), if the sink or the
// workload failed, or if ctx was cancelled (it then wraps
// context.Cause(ctx), and the result has Interrupted set).
func (g *Generator) Run(ctx context.Context, level int, p Profile, lim Limits, sink Sink) (LevelResult, error) {
	res := LevelResult{Level: level, Profile: p, Limits: lim, Shard: g.shard}
	var shardErr error
	if g.shardSet && g.shard.Count < 1 {
		shardErr = fmt.Errorf("WithShard(%d, %d): want 0 <= index < count, e.g. WithShard(0, 2)", g.shard.Index, g.shard.Count)
	}
	if err := errors.Join(p.Validate(), lim.Validate(), shardErr, g.missing(sink)); err != nil {
		return res, fmt.Errorf("loadgen: level %d: %w", level, err)
	}
	share, err := g.shard.Share(p)
	if err != nil {
		return res, fmt.Errorf("loadgen: level %d: %w", level, err)
	}
	if p.Mode.OpenLoop() {
		// A Pacer is pure: its faults found now are those the level would
		// meet, and nothing is sent for a pacer that is refused.
		if err := CheckPacer(ctx, g.pacerFor(p), lim); err != nil {
			return res, fmt.Errorf("loadgen: level %d: %w", level, err)
		}
	}
	if !g.running.CompareAndSwap(false, true) {
		return res, errors.New("loadgen: Run called while another Run is in progress on the same Generator")
	}
	defer g.running.Store(false)

	cpu0 := processCPU()
	// The first requests are built before the level's clock starts.
	pf := newPrefetcher(g, g.nextSeq, g.shard.norm(), lim.MaxRequests)
	burst := 1
	if !p.Mode.OpenLoop() {
		burst = closedWorkers(share)
	}
	pf.prime(burst, primeAhead)
	l := g.newLevel(ctx, level, p, lim)
	l.share = share
	l.pf = pf
	defer l.cancelAll()
	g.progress.reset(level)
	g.current.Store(l)
	l.run(sink)
	g.current.Store(nil)
	g.nextSeq += l.planned

	res.Start, res.End = l.start, l.end
	res.FirstSeq = l.firstSeq
	res.Scheduled = l.scheduled
	res.Planned = l.planned
	res.Sent = l.sent.Load()
	res.OK, res.Failed, res.Cancelled = l.ok.Load(), l.failed.Load(), l.cancelled.Load()
	res.Written = l.written
	res.Late, res.Queued, res.MaxQueueDepth = l.late, l.queued, l.maxDepth
	res.HeldBack = l.heldBack
	res.MaxInFlight = l.maxInFlight.Load()
	res.ClientCPU = processCPU() - cpu0
	res.StopReason = l.reason
	res.Window = l.window()
	l.sessionResult(&res)
	switch {
	case ctx.Err() != nil:
		res.Interrupted = true
		res.StopReason = StopInterrupted
		err = fmt.Errorf("loadgen: level %d interrupted: %w", level, context.Cause(ctx))
	case l.sinkErr != nil:
		err = fmt.Errorf("loadgen: level %d: writing record: %w", level, l.sinkErr)
	case l.workloadErr != nil:
		err = fmt.Errorf("loadgen: level %d: %w", level, l.workloadErr)
	case l.pacerErr != nil:
		err = fmt.Errorf("loadgen: level %d: %w", level, l.pacerErr)
	}
	// The count walks the plan again: it stops at ctx's end, so a caller
	// who cancels is not held by a long plan.
	res.PlannedInWindow = g.plannedInWindow(ctx, p, lim, res)
	return res, err
}

// Stop ends the level in progress as if Limits.MaxDuration had elapsed
// now: nothing more is scheduled, requests in flight may finish within the
// drain timeout (WithDrainTimeout; without one they are cancelled at once,
// as incomplete), and the measured window ends now (less the cooldown).
// The level's StopReason is StopRequested unless it had already stopped.
// A caller uses it to end a level once it has measured enough, e.g. when
// its precision targets are met. Stop reports false when no level is
// running. It is safe to call from any goroutine.
func (g *Generator) Stop() bool {
	l := g.current.Load()
	if l == nil {
		return false
	}
	l.requestStop()
	return true
}

// plannedInWindow counts the arrivals of an open-loop level's seeded plan
// (this shard's) whose intended time falls in [Window.Start, Window.End):
// the sends the level owed its window. An arrival planned exactly at the
// window's end is sent just after it, so it is not counted. A level
// stopped early (a failed write, an interruption, MaxErrors, an
// unreachable target, a workload error) planned nothing after its stop,
// so that the stop does not read as a client falling behind. 0 for a
// closed loop or an empty window.
func (g *Generator) plannedInWindow(ctx context.Context, p Profile, lim Limits, res LevelResult) int64 {
	pacer := g.pacerFor(p)
	win := res.Window
	if pacer == nil || win.Empty() {
		return 0
	}
	bounded, last := lim.MaxRequests > 0, lim.MaxRequests
	switch res.StopReason {
	case StopSinkError, StopInterrupted, StopMaxErrors, StopUnreachable, StopWorkloadError, StopPacerError:
		bounded, last = true, res.Planned
	}
	shard := g.shard.norm()
	var n int64
	pl := plan{pacer: pacer}
	for !bounded || pl.next < last {
		if pl.next%4096 == 0 && ctx.Err() != nil {
			break
		}
		// A faulty arrival (the level stopped there) or one at or past
		// the window's end ends the count; at is compared as an offset,
		// which cannot overflow as res.Start + at could.
		i, at, err := pl.arrival()
		if err != nil || at >= win.End-res.Start {
			break
		}
		if at >= win.Start-res.Start && shard.Owns(i) {
			n++
		}
	}
	return n
}

// level is the state of one Run.
type level struct {
	g     *Generator
	num   int
	p     Profile
	share Profile // this shard's part of p (Shard.Share); p when unsharded
	shard Shard   // normalised: Count >= 1
	lim   Limits
	start time.Duration
	// firstSeq is the Seq of request k = 0.
	firstSeq int64

	parent      context.Context
	reqCtx      context.Context // cancelled: requests in flight must stop
	preCtx      context.Context // requests sent before the window: their deadline is MaxDuration, drain or not
	preCancel   context.CancelFunc
	reqCancel   context.CancelCauseFunc
	reqTimeout  context.CancelFunc
	schedCtx    context.Context // cancelled: schedule nothing more
	schedCancel context.CancelCauseFunc
	writerCtx   context.Context // cancelled: the sink writer has gone
	writerStop  context.CancelFunc
	records     chan *Record
	producers   errgroup.Group
	pf          *prefetcher

	// mu guards the fields below it.
	mu          sync.Mutex
	reason      StopReason
	scheduled   int64         // requests this shard scheduled
	planned     int64         // requests of the whole plan spanned: k in [0, planned)
	warmupAt    time.Duration // ScheduledAt of the first request k >= WarmupRequests
	warmupSet   bool
	tail        []time.Duration // open loop: planned times of the last CooldownRequests k; closed loop: ScheduledAt of this shard's last CooldownRequests requests, a ring indexed by j
	inflight    int             // open loop with a cap: slots in use
	queue       []slot          // open loop with a cap: arrivals waiting, FIFO from head
	head        int
	queued      int64
	maxDepth    int64
	heldBack    int64 // open loop with a cap: arrivals never sent, dropped from the full or stopped queue
	workloadErr error
	pacerErr    error // the Pacer panicked (StopPacerError)

	late                        int64 // owned by the open-loop scheduler
	sent, ok, failed, cancelled atomic.Int64
	unconnected                 atomic.Int64 // requests that failed to connect while connected is false
	connected                   atomic.Bool  // a request finished that did not fail to connect
	inFlight, maxInFlight       atomic.Int64 // requests between send and finish, and the most at once

	// Owned by the writer until it returns.
	written int64
	sinkErr error

	end time.Duration

	// stopAt is when Generator.Stop ended scheduling (0: it was not
	// called); drainTimer cancels what is still in flight a drain timeout
	// later. Both are guarded by mu.
	stopAt     time.Duration
	drainTimer *time.Timer

	sess sessionCounters // multi-turn levels (session.go)

	live liveSet // the requests in flight (inflight.go)
}

// slot is one scheduled request: its index k in the level's whole plan
// (Seq = firstSeq + k) and its ScheduledAt.
type slot struct {
	k  int64
	at time.Duration
	// queued is set when the arrival waited for a MaxConcurrency slot.
	queued bool
}

func (g *Generator) newLevel(ctx context.Context, num int, p Profile, lim Limits) *level {
	l := &level{g: g, num: num, p: p, share: p, shard: g.shard.norm(), lim: lim, parent: ctx, firstSeq: g.nextSeq}
	l.start = g.clock.Now()
	l.reqCtx, l.reqCancel = context.WithCancelCause(ctx)
	l.reqTimeout = func() {}
	if lim.MaxDuration > 0 {
		l.reqCtx, l.reqTimeout = context.WithDeadlineCause(l.reqCtx,
			g.clock.Start().Add(l.start+lim.MaxDuration+g.drain), errStop)
	}
	l.schedCtx, l.schedCancel = context.WithCancelCause(l.reqCtx)
	l.preCtx, l.preCancel = context.WithCancel(l.reqCtx)
	if lim.MaxDuration > 0 {
		l.preCtx, l.preCancel = context.WithDeadlineCause(l.reqCtx, g.clock.Start().Add(l.start+lim.MaxDuration), errStop)
	}
	l.writerCtx, l.writerStop = context.WithCancel(context.WithoutCancel(ctx))
	l.records = make(chan *Record, recordBuffer)
	return l
}

func (l *level) cancelAll() {
	l.mu.Lock()
	if l.drainTimer != nil {
		l.drainTimer.Stop()
	}
	l.mu.Unlock()
	l.schedCancel(errStop)
	l.preCancel()
	l.reqTimeout()
	l.reqCancel(errStop)
	l.writerStop()
}

// stop records reason (the first one wins), stops scheduling and, if
// cancelInflight, cancels the requests in flight.
func (l *level) stop(reason StopReason, cancelInflight bool) {
	l.mu.Lock()
	if l.reason == "" {
		l.reason = reason
	}
	l.mu.Unlock()
	l.schedCancel(errStop)
	if cancelInflight {
		l.reqCancel(errStop)
	}
}

// requestStop is Generator.Stop for this level.
func (l *level) requestStop() {
	now := l.g.clock.Now()
	l.mu.Lock()
	first := l.stopAt == 0 && l.schedCtx.Err() == nil
	if first {
		l.stopAt = now
		if d := l.g.drain; d > 0 {
			l.drainTimer = time.AfterFunc(d, func() { l.reqCancel(errStop) })
		}
	}
	l.mu.Unlock()
	if first {
		l.stop(StopRequested, l.g.drain == 0)
	}
}

// beforeWindow reports whether request k, sent at sentAt, was sent before
// the window opens: among the first Limits.WarmupRequests, or within
// Limits.Warmup (plus WarmupFraction of MaxDuration) of the level's start.
func (l *level) beforeWindow(k int64, sentAt time.Duration) bool {
	if n := l.lim.WarmupRequests; n > 0 {
		return k < n
	}
	return sentAt < l.start+l.lim.Warmup+time.Duration(l.lim.WarmupFraction*float64(l.lim.MaxDuration))
}

// run schedules, sends and writes until the level is over.
func (l *level) run(sink Sink) {
	var writer errgroup.Group
	writer.Go(func() error { l.write(sink); return nil })
	var prefetch errgroup.Group
	pfCtx, pfStop := context.WithCancel(l.schedCtx)
	if l.pf.active {
		prefetch.Go(func() error { l.pf.run(pfCtx); return nil })
	}

	switch l.p.Mode {
	case ModeConstant, ModePoisson:
		l.producers.Go(func() error { l.openLoop(l.g.pacerFor(l.p)); return nil })
	default:
		for range closedWorkers(l.share) {
			l.producers.Go(func() error { l.worker(); return nil })
		}
	}
	_ = l.producers.Wait() // producers never return errors
	pfStop()
	_ = prefetch.Wait()
	close(l.records)
	_ = writer.Wait()
	l.end = l.g.clock.Now()
	if l.reason == "" && l.lim.MaxDuration > 0 {
		l.reason = StopMaxDuration
	}
	if !l.p.Mode.OpenLoop() {
		// Closed loop: shard i's j-th request is k = j*n + i.
		l.planned = l.scheduled * int64(l.shard.Count)
		if m := l.lim.MaxRequests; m > 0 && l.reason == StopMaxRequests {
			l.planned = m
		}
	}
}

// closedWorkers is the number of workers of a closed-loop share: 1 for
// synchronous, Concurrency for concurrent, MaxConcurrency (default
// DefaultThroughputConcurrency) for throughput.
func closedWorkers(share Profile) int {
	switch share.Mode {
	case ModeConcurrent:
		return share.Concurrency
	case ModeThroughput:
		if share.MaxConcurrency > 0 {
			return share.MaxConcurrency
		}
		return DefaultThroughputConcurrency
	}
	return 1
}

// write is the single goroutine that calls sink.Write. The first sink
// error stops the level; the records still to come (the requests cut off
// by the stop) are offered to the sink all the same, since a sink that
// failed may still keep them elsewhere (harness's spool keeps them in
// memory when its file cannot grow). Later errors are not counted again.
func (l *level) write(sink Sink) {
	for rec := range l.records {
		if err := writeGuarded(sink, rec); err != nil {
			if l.sinkErr == nil {
				l.sinkErr = err
				l.stop(StopSinkError, true)
			}
			continue
		}
		l.written++
	}
}

// writeGuarded calls sink.Write(rec), turning a panic in the embedder's
// Sink into an error: the writer is our goroutine, so a panic there could
// not be recovered by the caller of Run and would end the process.
func writeGuarded(sink Sink, rec *Record) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic in Sink: %v", v)
		}
	}()
	return sink.Write(rec)
}

// emit hands rec to the writer. It selects on writerCtx, not on the
// caller's context: records of requests cut off by a cancellation must
// still be written.
func (l *level) emit(rec *Record) {
	select {
	case l.records <- rec:
	case <-l.writerCtx.Done():
	}
}

// noteScheduled counts one request of this shard; l.mu must be held.
func (l *level) noteScheduled() {
	l.scheduled++
	l.g.progress.scheduled.Add(1)
}

// notePlanned notes that arrival k of the whole open-loop plan is at at,
// whichever shard sends it, for the request-count window trims; l.mu must
// be held.
func (l *level) notePlanned(k int64, at time.Duration) {
	l.planned = k + 1
	if k == l.lim.WarmupRequests {
		l.warmupAt, l.warmupSet = at, true
	}
	l.ring(k, at)
}

// ring keeps at as entry i of the cooldown ring; l.mu must be held.
func (l *level) ring(i int64, at time.Duration) {
	if m := l.lim.CooldownRequests; m > 0 {
		if int64(len(l.tail)) < m {
			l.tail = append(l.tail, at)
		} else {
			l.tail[i%m] = at
		}
	}
}

// window computes the measured window once the level is over.
//
// The cooldown counts back from the end of scheduling: with a drain
// timeout, requests still in flight at MaxDuration may finish after it, and
// that tail, with no new arrivals, is not part of the measured load.
func (l *level) window() Window {
	end := l.end
	if d := l.lim.MaxDuration; d > 0 && l.start+d < end {
		end = l.start + d
	}
	if l.stopAt > 0 && l.stopAt < end {
		end = l.stopAt // Stop: the tail that drains after it is not measured load
	}
	length := end - l.start
	w := Window{
		Start: l.start + l.lim.Warmup + time.Duration(l.lim.WarmupFraction*float64(length)),
		End:   end - l.lim.Cooldown - time.Duration(l.lim.CooldownFraction*float64(length)),
	}
	if nw := l.lim.WarmupRequests; nw > 0 {
		if l.warmupSet {
			w.Start = l.warmupAt
		} else {
			w.Start = l.end
		}
	}
	if m := l.lim.CooldownRequests; m > 0 {
		// cut is the first request k of the whole plan in the cooldown.
		cut := l.planned - m
		w.End = l.start
		switch {
		case cut <= 0:
		case l.p.Mode.OpenLoop():
			w.End = l.tail[cut%m]
		default:
			// This shard's first request j with k = j*n + i >= cut.
			n, i := int64(l.shard.Count), int64(l.shard.Index)
			j := max(cut-i+n-1, 0) / n
			if j < l.scheduled && l.scheduled-j <= m {
				w.End = l.tail[j%m]
			}
		}
	}
	if w.End < w.Start {
		w.End = w.Start
	}
	return w
}

// openLoop fires arrivals at the pacer's times until a stop.
func (l *level) openLoop(pacer Pacer) {
	clock := l.g.clock
	wake := newWaker(clock, l.g.fineTimer)
	defer wake.close()
	pl := plan{pacer: pacer}
	for {
		i, off, err := pl.arrival()
		if err != nil {
			l.mu.Lock()
			if l.pacerErr == nil {
				l.pacerErr = err
			}
			l.mu.Unlock()
			l.stop(StopPacerError, true)
			return
		}
		if d := l.lim.MaxDuration; d > 0 && off >= d {
			// The plan is done; the level lasts until MaxDuration.
			wake.until(l.schedCtx, l.start+d)
			l.stop(StopMaxDuration, l.g.drain == 0)
			return
		}
		if off >= PlanHorizon {
			// The plan has no more arrivals and no MaxDuration ends the
			// level: it lasts until ctx, Stop or the requests in flight
			// end it (start + off could overflow, so it is not waited for).
			<-l.schedCtx.Done()
			return
		}
		at := l.start + off
		if !l.shard.Owns(i) {
			// Another shard's arrival: note it for the window trims, and
			// stop after it if it is the plan's last.
			l.mu.Lock()
			l.notePlanned(i, at)
			l.mu.Unlock()
			if m := l.lim.MaxRequests; m > 0 && i+1 >= m {
				l.stop(StopMaxRequests, false)
				return
			}
			continue
		}
		if !wake.until(l.schedCtx, at) {
			return
		}
		if d := l.lim.MaxDuration; d > 0 && clock.Now()-l.start >= d+MaxLateness {
			// The scheduler fell far behind its plan (a rate faster than
			// it can send): MaxDuration bounds the level all the same,
			// and the arrivals left are not sent.
			l.stop(StopMaxDuration, l.g.drain == 0)
			return
		}
		if clock.Now()-at > l.g.lateTolerance {
			l.late++
		}
		l.arrive(slot{k: i, at: at})
		if m := l.lim.MaxRequests; m > 0 && i+1 >= m {
			l.stop(StopMaxRequests, false)
			return
		}
	}
}

// arrivalGuarded returns pacer.Arrival(i, prev), or an error when the
// embedder's Pacer panics (in the scheduler's goroutine, which the caller
// of Run could not recover).
func arrivalGuarded(pacer Pacer, i int64, prev time.Duration) (at time.Duration, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic in Arrival(%d): %v", i, v)
		}
	}()
	return pacer.Arrival(i, prev), nil
}

// arrive starts request s now, or queues it when MaxConcurrency slots are
// in use.
func (l *level) arrive(s slot) {
	l.mu.Lock()
	l.notePlanned(s.k, s.at)
	l.noteScheduled()
	if c := l.share.MaxConcurrency; c > 0 && l.inflight >= c {
		if int64(len(l.queue)-l.head) >= MaxQueueDepth {
			// The queue is already MaxQueueDepth deep: this arrival
			// could only be sent far behind its time, if at all. It is
			// counted, not queued, so that a rate far above what the cap
			// lets through costs neither memory nor a record each.
			l.heldBack++
			l.mu.Unlock()
			return
		}
		s.queued = true
		l.queue = append(l.queue, s)
		l.queued++
		depth := int64(len(l.queue) - l.head)
		l.maxDepth = max(l.maxDepth, depth)
		l.g.progress.queued.Add(1)
		l.mu.Unlock()
		return
	}
	l.inflight++
	l.mu.Unlock()
	l.producers.Go(func() error { l.slot(s); return nil })
}

// slot runs s, then the queued arrivals, oldest first, until the queue is
// empty. Once the level is over for arrivals still queued (its requests
// cancelled, or MaxDuration reached: the drain is for requests in flight),
// the queue is dropped: those arrivals were never sent, held back by the
// client's own cap, and are counted (HeldBack), not recorded one by one.
func (l *level) slot(s slot) {
	for {
		l.execute(s)
		l.mu.Lock()
		if l.queueOver() {
			n := int64(len(l.queue) - l.head)
			l.heldBack += n
			l.g.progress.queued.Add(-n)
			l.queue, l.head = nil, 0
		}
		if next, ok := l.dequeue(); ok {
			s = next
			l.g.progress.queued.Add(-1)
			l.mu.Unlock()
			continue
		}
		l.inflight--
		l.mu.Unlock()
		return
	}
}

// queueOver reports whether arrivals still queued can no longer be sent:
// the level's requests are cancelled, or MaxDuration has passed.
func (l *level) queueOver() bool {
	if l.reqCtx.Err() != nil {
		return true
	}
	d := l.lim.MaxDuration
	return d > 0 && l.g.clock.Now()-l.start >= d
}

// dequeue takes the oldest queued arrival; l.mu must be held. The queue
// keeps only the arrivals still waiting: one that never empties (a rate
// above what the MaxConcurrency cap lets through, for a whole soak) would
// otherwise hold every arrival it ever queued, 24 bytes each.
func (l *level) dequeue() (slot, bool) {
	if l.head >= len(l.queue) {
		return slot{}, false
	}
	s := l.queue[l.head]
	l.head++
	switch {
	case l.head == len(l.queue):
		l.queue, l.head = l.queue[:0], 0
	case l.head >= 1024 && l.head >= len(l.queue)/2:
		n := copy(l.queue, l.queue[l.head:])
		l.queue, l.head = l.queue[:n], 0
	}
	return s, true
}

// worker is a closed-loop slot: request after request until a stop.
func (l *level) worker() {
	for {
		l.mu.Lock()
		if l.schedCtx.Err() != nil {
			l.mu.Unlock()
			return
		}
		at := l.g.clock.Now()
		if d := l.lim.MaxDuration; d > 0 && at-l.start >= d {
			l.mu.Unlock()
			l.stop(StopMaxDuration, l.g.drain == 0)
			return
		}
		// This shard's j-th request is request k = j*n + i of the level.
		j := l.scheduled
		n := int64(l.shard.Count)
		k := j*n + int64(l.shard.Index)
		if m := l.lim.MaxRequests; m > 0 && k >= m {
			l.mu.Unlock()
			l.stop(StopMaxRequests, false)
			return
		}
		l.noteScheduled()
		if !l.warmupSet && k >= l.lim.WarmupRequests {
			l.warmupAt, l.warmupSet = at, true
		}
		l.ring(j, at)
		last := l.lim.MaxRequests > 0 && k+n >= l.lim.MaxRequests
		l.mu.Unlock()
		if last {
			l.stop(StopMaxRequests, false)
		}
		l.execute(slot{k: k, at: at})
	}
}

// execute builds, sends and records request s. It always emits exactly
// one record, even if the workload or the requester panics.
func (l *level) execute(s slot) {
	if sw, ok := l.g.workload.(SessionWorkload); ok {
		l.session(s, sw) // a multi-turn session: session.go
		return
	}
	g := l.g
	rec := &Record{Seq: l.firstSeq + s.k, Level: l.num, ScheduledAt: s.at}
	sent := false
	defer func() {
		if v := recover(); v != nil {
			g.log.Error("loadgen: panic while handling a request, recovered",
				"seq", rec.Seq, "panic", v, "stack", string(debug.Stack()))
			rec.Status, rec.ErrorKind = StatusError, ErrorPanic
			rec.ErrorMessage = fmt.Sprintf("panic: %v", v)
		}
		if rec.DoneAt == 0 {
			rec.DoneAt = g.clock.Now()
		}
		l.finish(rec, sent)
		l.emit(rec)
	}()

	req, err := l.pf.take(s.k)
	if err != nil {
		rec.Status, rec.ErrorKind = StatusError, ErrorWorkload
		rec.ErrorMessage = err.Error()
		l.mu.Lock()
		if l.workloadErr == nil {
			l.workloadErr = fmt.Errorf("workload: request seq %d: %w", rec.Seq, err)
		}
		l.mu.Unlock()
		l.stop(StopWorkloadError, true)
		return
	}
	l.send(s, &req, rec, &sent)
}

// send sends req, request k of the level, and fills rec. It sets *sent
// once the request is handed to the Requester (before it is, so that a
// panic in the Requester still counts it as sent); a request cut off
// before that is recorded as cancelled.
func (l *level) send(s slot, req *Request, rec *Record, sent *bool) {
	k := s.k
	g := l.g
	req.Seq, req.Level = rec.Seq, l.num
	rec.RequestedOutputTokens, rec.RequestedPromptTokens = req.MaxTokens, req.RequestedPromptTokens
	rec.ISLClampedFrom, rec.PromptTokensExact = req.ISLClampedFrom, req.PromptTokensExact
	rec.PromptTokens, rec.PromptTokensSource = req.PromptTokens, req.PromptTokensSource
	if req.PromptTokensSource == SourceTokenizer {
		rec.LocalPromptTokens = req.PromptTokens
	}
	if d := l.lim.MaxDuration; l.reqCtx.Err() != nil || (s.queued && d > 0 && g.clock.Now()-l.start >= d) {
		// Cut off before it was sent (in the queue, or at the stop). The
		// drain after MaxDuration is for requests in flight: an arrival
		// still queued for a MaxConcurrency slot is not sent then.
		rec.Status, rec.ErrorKind = StatusCancelled, ErrorCancelled
		rec.ErrorMessage = "level stopped before the request was sent"
		return
	}
	*sent = true
	g.progress.sent.Add(1)
	l.sent.Add(1)
	for n := l.inFlight.Add(1); ; {
		m := l.maxInFlight.Load()
		if n <= m || l.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	rec.SentAt = g.clock.Now()
	ctx := l.reqCtx
	if l.beforeWindow(k, rec.SentAt) {
		ctx = l.preCtx
	}
	lr := &LiveRequest{scheduledAt: rec.ScheduledAt, sentAt: rec.SentAt}
	l.live.add(lr)
	defer l.live.remove(lr)
	g.requester.Do(context.WithValue(ctx, liveRequestKey{}, lr), g.clock, req, rec)
	if rec.Status != StatusOK && ctx.Err() != nil {
		// Whatever the requester saw, we cut the request off.
		rec.Status, rec.ErrorKind = StatusCancelled, ErrorCancelled
	}
}

// finish counts rec's outcome and applies MaxErrors and UnreachableAfter.
func (l *level) finish(rec *Record, sent bool) {
	p := &l.g.progress
	if sent {
		p.done.Add(1)
		l.inFlight.Add(-1)
		l.checkReachable(rec)
	}
	p.outputToks.Add(int64(rec.OutputTokens))
	switch rec.Status {
	case StatusOK:
		l.ok.Add(1)
	case StatusCancelled:
		l.cancelled.Add(1)
		p.cancelled.Add(1)
	default: // StatusError, StatusTimeout, or a requester that left Status empty
		if rec.Status == "" {
			rec.Status = StatusError
			rec.ErrorMessage = "requester returned without setting a status"
		}
		n := l.failed.Add(1)
		p.failed.Add(1)
		if m := l.lim.MaxErrors; m > 0 && n >= m {
			l.stop(StopMaxErrors, true)
		}
	}
}

// checkReachable applies Limits.UnreachableAfter to a request that was
// sent: the level stops once its first UnreachableAfter finished requests
// all failed to connect. A request cut off by the stop itself counts
// neither way.
func (l *level) checkReachable(rec *Record) {
	m := l.lim.UnreachableAfter
	if m <= 0 || l.connected.Load() {
		return
	}
	switch {
	case rec.ErrorKind == ErrorConnect:
		if l.unconnected.Add(1) >= m && !l.connected.Load() {
			l.stop(StopUnreachable, true)
		}
	case rec.Status != StatusCancelled:
		l.connected.Store(true)
	}
}
