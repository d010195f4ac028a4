package benchmark

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// The run-level warm-up phase (--warmup-phase) and the thermal gate that
// holds it open (--stabilize): load sent before the first level, with the
// run's own workload, whose requests count in no level (harness.RunWarmup).

// parseWarmupPhase parses --warmup-phase and --stabilize into b.phase.
// --stabilize alone warms under harness.DefaultWarmupProfile until the
// gate holds.
func (b *Benchmark) parseWarmupPhase() error {
	s := &b.s
	if ph := s.WarmupPhase; !ph.IsZero() {
		if ph.Gate != nil {
			return errors.New("--warmup-phase: its Gate is --stabilize's; set that instead")
		}
		if err := ph.Validate(); err != nil {
			return fmt.Errorf("--warmup-phase %s: %w", ph, err)
		}
		b.phase = ph
	}
	if s.Stabilize != nil {
		st := *s.Stabilize
		if st.Validate() != nil {
			return nil // validateFlags reports it
		}
		if e := strings.ToLower(strings.TrimSpace(s.Energy)); e == "" || e == "none" {
			return fmt.Errorf("--stabilize %s with --energy none: the thermal gate reads GPU power, and --energy none reads none; give --energy nvml, dcgm=URL or prometheus=URL, or drop --stabilize", energy.StabilizationText(st))
		}
		b.phase.Gate = &st
		if b.phase.Profile.Mode == "" {
			b.phase.Profile = harness.DefaultWarmupProfile()
		}
	}
	if b.phase.Profile.Mode.OpenLoop() {
		b.phase.Profile.Seed, b.phase.Profile.MaxConcurrency = s.Seed, s.MaxConcurrency
	}
	return nil
}

// checkWarmupLength refuses a --warmup-phase longer than the whole run it
// warms: longer than --max-seconds times the most levels the run can have
// (its --rate levels, or a sweep's --max-levels) and its --repeat. Such a
// phase is most likely a slip of unit ("60m" for "60s"). The thermal
// gate's timeout is not counted: the gate holds the phase open only as
// long as the GPUs need. Levels bound by --max-requests alone have no
// length to compare with.
func (b *Benchmark) checkWarmupLength() error {
	s := &b.s
	if s.WarmupPhase.IsZero() || s.MaxDuration <= 0 {
		return nil
	}
	levels, what := len(b.profiles()), "level(s)"
	if b.isSweep() {
		levels, what = s.MaxLevels, "level(s) at most (--max-levels)"
		if levels == 0 {
			levels, what = max(len(b.levels), s.GridLevels), "grid level(s)"
		}
	}
	budget := time.Duration(float64(levels*max(s.Repeat, 1)) * float64(s.MaxDuration))
	if b.phase.Duration <= budget {
		return nil
	}
	rep := ""
	if s.Repeat > 1 {
		rep = fmt.Sprintf(" × --repeat %d", s.Repeat)
	}
	return fmt.Errorf("--warmup-phase %s: the phase (%v) is longer than the whole run it warms (%d %s × --max-seconds %s%s = %v); shorten the phase, or lengthen --max-seconds (with --stabilize, the gate holds a short phase open as long as the GPUs need)",
		s.WarmupPhase, b.phase.Duration, levels, what, b.seconds(s.MaxDuration), rep, budget)
}

// suggestWarmupPhase says, once, that a sweep of a real server without a
// warm-up phase starts its first level against a cold server.
func (b *Benchmark) suggestWarmupPhase() {
	if b.isSweep() && b.s.Target != "" && b.phase.IsZero() {
		fmt.Fprintln(b.opt.Log, "note: no --warmup-phase: the first level meets a cold server (KV cache, allocator, GPU clocks); consider --warmup-phase concurrent:4:60s, with --stabilize=30s,3W to hold it until GPU power settles under that load")
	}
}

// warmUp runs the warm-up phase, if any, and says what it did.
func (b *Benchmark) warmUp(ctx context.Context) error {
	if b.phase.IsZero() {
		return nil
	}
	ph := b.phase
	name := ph.String()
	if b.s.WarmupPhase.IsZero() {
		name = fmt.Sprintf("%s:%d (until the thermal gate holds)", ph.Profile.Mode, ph.Profile.Concurrency)
	}
	fmt.Fprintf(b.opt.Log, "warm-up phase %s before the first level: its requests are recorded (phase warmup) and counted in no level\n", name)
	if g := ph.Gate; g != nil {
		d := g.WithDefaults()
		fmt.Fprintf(b.opt.Log, "thermal gate: the phase goes on until every GPU's power stays within ±%g W over %v and its temperature stops rising (at most %v)\n", d.BandW, d.Window, d.Timeout)
	}
	rec, err := b.runner.RunWarmup(ctx, ph, b.meter.Source())
	b.warmRecord = &rec
	fmt.Fprintf(b.opt.Log, "warm-up phase: %d requests (%d failed) in %.1f s", rec.Scheduled, rec.Failed, rec.DurationS)
	if rec.FirstTTFTMs != nil && rec.LastTTFTMs != nil {
		fmt.Fprintf(b.opt.Log, ", TTFT p50 %.4g ms at its start, %.4g ms at its end", *rec.FirstTTFTMs, *rec.LastTTFTMs)
	}
	fmt.Fprintln(b.opt.Log)
	if g := rec.Gate; g != nil {
		if g.Passed && g.HeldAfterS != nil {
			fmt.Fprintf(b.opt.Log, "thermal gate %s passed: GPU power settled under load after %.1f s\n", g.Spec, *g.HeldAfterS)
		} else if !rec.Interrupted {
			fmt.Fprintf(b.opt.Log, "*** thermal gate %s NOT passed: GPU power still moved %.1f W over the window when it timed out; the levels are measured anyway, with the GPUs possibly still warming (a power_not_stable warning in the scorecard) ***\n", g.Spec, g.SpreadW)
		}
	}
	return err
}

// recordWarmup puts the warm-up phase into run.json: its settings, its
// record, and its warnings among the run's.
func (b *Benchmark) recordWarmup(run *results.Run) {
	if !b.s.WarmupPhase.IsZero() {
		run.Config.WarmupPhase = b.phase.String()
	}
	if g := b.phase.Gate; g != nil {
		run.Config.Stabilize = g.String()
	}
	if b.warmRecord == nil {
		return
	}
	w := *b.warmRecord
	for i := range w.Warnings {
		w.Warnings[i].Message = flagWords(redact.URLs(w.Warnings[i].Message))
	}
	run.WarmupPhase = &w
	run.Result.Warnings = append(run.Result.Warnings, w.Warnings...)
}

// warmupMetadata is the scorecard's warmup: the per-level trim, and the
// run-level phase when there was one.
func warmupMetadata(run results.Run) (string, *scorecard.WarmupPhase) {
	w := run.WarmupPhase
	if w == nil {
		return run.Config.Warmup, nil
	}
	meta := &scorecard.WarmupPhase{Profile: string(w.Profile.Mode), Level: float64(w.Profile.Concurrency), DurationS: w.DurationS, Gate: "none"}
	if w.Profile.Mode.OpenLoop() {
		meta.Level = w.Profile.Rate
	}
	if w.Profile.Mode == loadgen.ModeSynchronous {
		meta.Level = 1
	}
	if g := w.Gate; g != nil {
		meta.Gate = "not_passed"
		if g.Passed {
			meta.Gate = "passed"
		}
	}
	return fmt.Sprintf("%s per level; run-level phase %s", run.Config.Warmup, w.Describe()), meta
}
