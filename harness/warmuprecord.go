package harness

import (
	"fmt"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/energy/gpu"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// WarmupRecord is run.json's record (results.WarmupPhase) of the run-level warm-up phase: the
// load sent before the first level, with the run's own workload, to bring
// the server (KV cache, allocator, compiled kernels) and its GPUs (clocks,
// temperature, power) to the state the levels are measured in. Its
// requests are in requests.jsonl with phase "warmup" and level -1, and
// count in no level's figures; this record is what they show: how TTFT
// drifted while the server warmed, the errors, and where the thermal gate
// stood when the phase ended.
type WarmupRecord struct {
	// Spec is the phase as given, e.g. "concurrent:4:60s".
	Spec string `json:"spec"`
	// Profile is its load: the mode and its concurrency or rate. In a
	// sharded run it is the whole plan's; the counts below are this
	// shard's.
	Profile loadgen.Profile `json:"profile"`
	// PlannedS is the phase's length as given, s: the least it runs.
	PlannedS float64 `json:"planned_s"`
	// Start and End are the phase's first send and its last request's
	// end, as offsets from the run's start.
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
	// DurationS is End − Start, s: longer than PlannedS when the thermal
	// gate held it open, or by the drain of its last requests.
	DurationS float64 `json:"duration_s"`
	// StopReason says why it stopped sending: "stop_requested" (its
	// length passed and, with a gate, the gate held), "max_duration" (the
	// gate's timeout, or its length without a gate), "interrupted", or
	// an error stop.
	StopReason loadgen.StopReason `json:"stop_reason"`

	// Requests counts its requests: Scheduled in all, by outcome.
	Scheduled int64 `json:"scheduled"`
	OK        int64 `json:"ok"`
	Failed    int64 `json:"failed"`
	Cancelled int64 `json:"cancelled"`
	// ErrorKinds counts the failed requests by error kind, and
	// ErrorExamples holds the first message of each kind.
	ErrorKinds    map[string]int64  `json:"error_kinds,omitempty"`
	ErrorExamples map[string]string `json:"error_examples,omitempty"`

	// Drift is TTFT and outcomes over the phase, in equal slices by send
	// time: a cold start shows as a first slice slower than the last.
	Drift []WarmupSlice `json:"ttft_drift,omitempty"`
	// FirstTTFTMs and LastTTFTMs are the median TTFT of the first and last
	// slices that have one, ms; nil when no request had a first token.
	FirstTTFTMs *float64 `json:"first_ttft_p50_ms,omitempty"`
	LastTTFTMs  *float64 `json:"last_ttft_p50_ms,omitempty"`

	// Gate is the thermal gate the phase ran under (--stabilize); nil
	// without one.
	Gate *WarmupGate `json:"gate,omitempty"`
	// GPUs is every GPU's power, temperature and clock read when the
	// phase ended; empty without an energy source.
	GPUs []gpu.GPUState `json:"gpus_at_end,omitempty"`

	// Interrupted is true when the run was stopped during the phase.
	Interrupted bool              `json:"interrupted,omitempty"`
	Warnings    []metrics.Warning `json:"warnings,omitempty"`
}

// WarmupSlice is one slice of the warm-up phase, by send time.
type WarmupSlice struct {
	// StartS is the slice's start, s from the phase's start; it lasts
	// until the next slice's.
	StartS float64 `json:"start_s"`
	Sent   int64   `json:"sent"`
	OK     int64   `json:"ok"`
	Failed int64   `json:"failed"`
	// TTFTP50Ms and TTFTMeanMs are the median and mean TTFT of the ok
	// requests sent in the slice, ms; nil when none.
	TTFTP50Ms  *float64 `json:"ttft_p50_ms,omitempty"`
	TTFTMeanMs *float64 `json:"ttft_mean_ms,omitempty"`
}

// WarmupGate is the thermal gate's outcome at the end of the warm-up
// phase.
type WarmupGate struct {
	// Spec is the gate as run: "WINDOW,BAND,TIMEOUT", defaults filled in.
	Spec string `json:"spec"`
	// The gate holds when every GPU's power stayed within the band over
	// the window and no GPU's temperature was still rising.
	Passed bool `json:"passed"`
	// Passed is true when the gate held as the phase ended: the phase
	// runs its planned length, then on until the gate holds, at most
	// until the gate's timeout (counted from the phase's start).
	// HeldAfterS is when it first held, s from the phase's start: how
	// long the GPUs took to settle under the load; nil when it never held.
	HeldAfterS *float64 `json:"held_after_s,omitempty"`
	// SpreadW is the largest per-GPU power spread over the last window, W,
	// and TempRiseC the largest temperature rise, °C (nil: not read).
	SpreadW   float64  `json:"spread_w"`
	TempRiseC *float64 `json:"temp_rise_c,omitempty"`
	// Reads and FailedReads count the gate's reads of the energy source.
	Reads       int `json:"reads"`
	FailedReads int `json:"failed_reads,omitempty"`
}

// Describe is the phase as the scorecard's warmup metadatum states it,
// beside the per-level trim: "concurrent:4:60s ran 62.3 s, thermal gate
// 30s,3W,5m0s passed (first held after 41.0 s)". A phase with no length
// of its own (--stabilize without --warmup-phase: the gate's load alone)
// reads "concurrent:4 under the thermal gate alone (no phase length given) ran
// 5.0 s, ...".
func (w WarmupRecord) Describe() string {
	spec := w.Spec
	if w.PlannedS == 0 && w.Gate != nil {
		if i := strings.LastIndexByte(spec, ':'); i > 0 {
			spec = spec[:i]
		}
		spec += " under the thermal gate alone (no phase length given)"
	}
	s := fmt.Sprintf("%s ran %.1f s", spec, w.DurationS)
	switch g := w.Gate; {
	case g == nil:
		s += ", no thermal gate"
	case g.Passed && g.HeldAfterS != nil:
		s += fmt.Sprintf(", thermal gate %s passed (first held after %.1f s)", g.Spec, *g.HeldAfterS)
	default:
		s += fmt.Sprintf(", thermal gate %s NOT passed (timed out)", g.Spec)
	}
	if w.Interrupted {
		s += ", interrupted"
	}
	return s
}
