package loadgen

import "time"

// StopReason says why a level stopped scheduling requests.
type StopReason string

// Stop reasons, as written in the result's "stop_reason" field.
const (
	StopMaxDuration   StopReason = "max_duration"   // Limits.MaxDuration elapsed
	StopMaxRequests   StopReason = "max_requests"   // Limits.MaxRequests were scheduled
	StopMaxErrors     StopReason = "max_errors"     // Limits.MaxErrors requests failed
	StopInterrupted   StopReason = "interrupted"    // the caller's context was cancelled (Ctrl-C)
	StopSinkError     StopReason = "sink_error"     // Sink.Write failed
	StopWorkloadError StopReason = "workload_error" // Workload.Request failed (or panicked)
	StopPacerError    StopReason = "pacer_error"    // the Pacer panicked
	StopRequested     StopReason = "stop_requested" // the caller called Generator.Stop (e.g. precision targets met)
	StopUnreachable   StopReason = "unreachable"    // the first Limits.UnreachableAfter requests all failed to connect
)

// Window is a level's measured window [Start, End], as offsets from the
// run's start: [level start + warmup, end of scheduling − cooldown].
// Latency metrics use the requests sent inside it; throughputs count the
// tokens that arrived inside it.
type Window struct {
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
}

// Empty reports whether the window holds no time (End <= Start): the
// warmup and cooldown consumed the whole level, and rates over it are
// undefined.
func (w Window) Empty() bool { return w.End <= w.Start }

// Seconds returns the window's length in seconds.
func (w Window) Seconds() float64 { return (w.End - w.Start).Seconds() }

// Contains reports whether t lies in [Start, End].
func (w Window) Contains(t time.Duration) bool { return t >= w.Start && t <= w.End }

// LevelResult describes one level run by Generator.Run: what was asked,
// when it ran, its measured window and the client's health. It is plain
// data, safe to copy and to encode as JSON.
//
// Requests of a level are indexed k = Seq − FirstSeq, k in [0, Planned);
// a shard's requests are those with k % Shard.Count == Shard.Index (all of
// them when unsharded, where Planned == Scheduled). ScheduledAt never
// decreases with k, in every mode, within one process.
type LevelResult struct {
	Level   int     `json:"level"`
	Profile Profile `json:"profile"`
	Limits  Limits  `json:"limits"`

	// Start is the level's start, the ScheduledAt of its first request;
	// End is when its last request finished or was abandoned (at least
	// Start + MaxDuration when the level stopped on max_duration). Both
	// are offsets from the run's start.
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`

	// Window is the measured window, [Start + warmup, End − cooldown]
	// (docs/metrics.md#the-measured-window-and-its-trims); see Generator.Run
	// for how request-count trims map to times. Use InWindow to classify
	// records.
	Window Window `json:"window"`

	// PlannedInWindow is, for an open-loop level, the number of arrivals
	// of its seeded plan (this shard's part) whose intended time falls in
	// [Window.Start, Window.End): the sends the level owed its window, the
	// target a healthy client meets (metrics.LevelConfig turns it into
	// Config.TargetRate). For Poisson arrivals this is the realised plan,
	// whose own noise (about 6 % for 300 arrivals) would otherwise read as
	// a client falling behind. 0 for closed-loop levels.
	PlannedInWindow int64 `json:"planned_in_window,omitempty"`

	FirstSeq  int64 `json:"first_seq"` // Seq of request k = 0
	Scheduled int64 `json:"scheduled"` // requests this process scheduled: exactly one record each
	// Sessions is, for a multi-turn level (SessionWorkload), the sessions
	// this process started: its arrivals. Each turn of a session is a
	// request, counted in Scheduled; Planned, FirstSeq and the request
	// indices k count sessions. 0 outside sessions.
	Sessions int64 `json:"sessions,omitempty"`
	// Planned is the number of requests of the whole plan (all shards)
	// the level spanned: request indices k lie in [0, Planned), and the
	// next level's FirstSeq is FirstSeq + Planned. It equals Scheduled
	// for an unsharded level; 0 (in results written before it existed)
	// means Scheduled.
	Planned int64 `json:"planned,omitempty"`
	// Shard is the part of a distributed run this process ran
	// (docs/cli.md#distributed-runs; zero when unsharded). Profile is the
	// whole plan's; Shard.Share gives this shard's part of it.
	Shard     Shard `json:"shard,omitzero"`
	Sent      int64 `json:"sent"`      // requests handed to the Requester
	OK        int64 `json:"ok"`        // records with StatusOK
	Failed    int64 `json:"failed"`    // records with StatusError or StatusTimeout
	Cancelled int64 `json:"cancelled"` // records with StatusCancelled: incomplete, cut off by the stop
	Written   int64 `json:"written"`   // records the sink accepted (== Scheduled − HeldBack unless a write failed)
	// HeldBack counts the open-loop arrivals of the plan that the
	// Profile.MaxConcurrency cap held back and the level never sent:
	// still queued when it ended, or beyond MaxQueueDepth. They are
	// counted in Scheduled but have no Record (Generator.Run).
	HeldBack int64 `json:"held_back,omitempty"`

	// Late counts open-loop arrivals the scheduler fired more than the
	// late tolerance (WithLateTolerance) after their intended time: the
	// client fell behind (wrk2). They were still sent, with lag.
	Late int64 `json:"late_arrivals"`
	// Queued counts arrivals that waited for a free slot because
	// Profile.MaxConcurrency was reached; their wait is scheduling lag
	// (ScheduledAt stays the intended time). MaxQueueDepth is the longest
	// the FIFO queue got.
	Queued        int64 `json:"queued"`
	MaxQueueDepth int64 `json:"max_queue_depth"`
	// MaxInFlight is the most requests the level had in flight (sent,
	// not yet finished) at once.
	MaxInFlight int64 `json:"max_in_flight"`

	// ClientCPU is the user+system CPU time this process used during the
	// level (getrusage RUSAGE_SELF; 0 where unsupported), in ns.
	ClientCPU time.Duration `json:"client_cpu_ns"`

	// Interrupted is true when the caller's context was cancelled before
	// the level finished: the result is partial.
	Interrupted bool       `json:"interrupted"`
	StopReason  StopReason `json:"stop_reason"`
}

// Duration returns End − Start.
func (r LevelResult) Duration() time.Duration { return r.End - r.Start }

// InWindow reports whether rec, a record of this level, counts in the
// measured window (docs/metrics.md#the-measured-window-and-its-trims): it is
// one of this level's requests, not among the first Limits.WarmupRequests nor
// the last Limits.CooldownRequests, and it was sent inside Window (a request
// that was never sent, being cut off in the max-concurrency queue, counts at
// its ScheduledAt). Requests cut off at the end are in the window too, as
// incomplete (StatusCancelled), so they are reported, not dropped.
func (r LevelResult) InWindow(rec *Record) bool {
	if rec.Level != r.Level {
		return false
	}
	span := r.Planned
	if span == 0 {
		span = r.Scheduled
	}
	k := rec.Seq - r.FirstSeq
	if k < 0 || k >= span || k < r.Limits.WarmupRequests || k >= span-r.Limits.CooldownRequests {
		return false
	}
	t := rec.SentAt
	if t == 0 {
		t = rec.ScheduledAt
	}
	return t >= r.Window.Start && t <= r.Window.End
}

// MarkInWindow sets rec.InWindow to r.InWindow(rec).
func (r LevelResult) MarkInWindow(rec *Record) { rec.InWindow = r.InWindow(rec) }
