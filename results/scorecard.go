package results

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Scorecard builds the run's scorecard from run.json alone: the metadata
// recorded in it, the reference level's figures and intervals, the GPU
// energy read over that level's windows, the cost rate and the declared
// energy factors. The reference level is ReferenceLevel's, with a
// warning saying why when it is not a knee. `gollm-bench report` can
// therefore rebuild scorecard.json from a results folder, on any machine.
func (r Run) Scorecard() scorecard.Scorecard {
	res := r.Result
	warnings := append([]metrics.Warning(nil), res.Warnings...)
	withSLO := !res.Objective.IsZero()
	meta := r.Metadata
	levels := r.Levels()
	peak, peakInFlight := 0.0, 0
	for _, l := range levels {
		peak = max(peak, l.Summary.OutputTokensPerSecond)
		peakInFlight = max(peakInFlight, int(l.Summary.Client.PeakInFlight), l.Profile.Concurrency)
	}
	ref, why := r.reference(levels)
	if meta.MaxConcurrencyTested == 0 {
		meta.MaxConcurrencyTested = peakInFlight
	}
	in := scorecard.Inputs{Metadata: meta, PUE: r.Config.PUE, IdleBaselineW: r.Config.IdleBaselineW, GridGCO2KWh: r.Config.GridGCO2KWh}
	if r.CostRate != nil {
		in.Cost = *r.CostRate
	}
	if ref < 0 {
		in.Warnings = warnings
		return scorecard.Build(in)
	}
	lv := levels[ref]
	perf := scorecard.KneePerformance(lv.Summary, withSLO)
	if !withSLO {
		// Without an SLO every successful request is "good": goodput is
		// the level's throughput, and the scorecard says so.
		perf.GoodputTokS = scorecard.Num(lv.Summary.OutputTokensPerSecond)
		perf.GoodputTokSCI = perf.OutputTokSCI
		perf.GoodputReqS = scorecard.Num(lv.Summary.RequestsPerSecond)
		warnings = append(warnings, metrics.Warning{Code: scorecard.WarnNoSLO, Level: -1,
			Message: fmt.Sprintf("no SLO: the scorecard describes level %d (%s), and its goodput is raw throughput", lv.Index, why)})
	} else {
		pass := lv.Verdict.Pass
		perf.SLOPass = &pass
		perf.SLOOutcome = string(lv.Verdict.Outcome)
		if res.Knee == nil {
			warnings = append(warnings, metrics.Warning{Code: scorecard.WarnNoKnee, Level: -1,
				Message: fmt.Sprintf("no knee was found under the SLO: the scorecard describes level %d (%s), not a knee", lv.Index, why)})
		}
	}
	idx := lv.Index
	perf.KneeLevel = &idx
	perf.PeakOutputTokS = scorecard.Num(peak)
	if k := res.Knee; k != nil {
		if lv.Profile.Mode.OpenLoop() {
			perf.KneeRateReqS = scorecard.Num(k.OfferedLoad)
		} else {
			c := int(k.OfferedLoad)
			perf.KneeConcurrency = &c
		}
		unit := "req_s"
		if k.Unit == "concurrency" {
			unit = "concurrency"
		}
		br := &scorecard.Bracket{Low: k.BracketLo, Unit: unit}
		if k.BracketHi > 0 {
			br.High = scorecard.Num(k.BracketHi)
		}
		perf.KneeBracket = br
		reached := k.Reached
		perf.KneeReached = &reached
	}
	in.Performance = perf
	in.Energy = levelEnergy(lv)
	in.Prices, in.Reference, in.Tokens = r.Prices, r.Reference, scorecard.KneeTokens(lv.Summary)
	for _, run := range lv.Runs {
		// Kepler and LiteLLM read the first run of a repeated level.
		if t := run.Telemetry; t != nil {
			in.Pod, in.LiteLLM = podInput(t), liteLLMInput(t)
			break
		}
	}
	if meta.Hardware == "" && in.Energy.GPUCount > 0 {
		for _, run := range lv.Runs {
			if t := run.Telemetry; t != nil && t.Energy != nil {
				meta.Hardware = t.Energy.Hardware()
				break
			}
		}
	}
	if meta.GPUCount == 0 {
		meta.GPUCount = in.Energy.GPUCount
	}
	in.Metadata, in.Warnings = meta, warnings
	return scorecard.Build(in)
}

// levelEnergy is the GPU energy read over a level's windows: for a level
// run several times, the sum over its runs (their windows add up to the
// pooled summary's). The reading is valid only when every run's is.
func levelEnergy(lv Level) scorecard.EnergyReading {
	var er scorecard.EnergyReading
	n := 0
	for _, run := range lv.Runs {
		t := run.Telemetry
		if t == nil || t.Energy == nil {
			continue
		}
		e := t.Energy
		if n == 0 {
			er = scorecard.EnergyReading{Source: e.Source, Valid: true, GPUName: e.GPUName, GPUCount: e.GPUCount}
		}
		n++
		er.Valid = er.Valid && e.Valid
		er.EnergyJ += e.GrossEnergyJ
		er.ResetDetected = er.ResetDetected || e.ResetDetected
	}
	if n > 0 && n < len(lv.Runs) {
		er.Valid = false // a run without a reading: the sum would be short
	}
	return er
}

// podInput is the scorecard's view of a level's Kepler reading.
func podInput(t *LevelTelemetry) *scorecard.PodReading {
	p := t.Pod
	if p == nil {
		return nil
	}
	in := &scorecard.PodReading{Source: p.Source, Via: p.Via, Generation: p.Generation, Scope: p.Scope, Selector: p.Selector,
		Valid: p.Valid, EnergyJ: p.EnergyJ, CPUJ: p.CPUJ, GPUJ: p.GPUJ}
	if g := t.PodGap; g != nil {
		in.Gap = &scorecard.PodGap{GPUJ: g.GPUJ, GapJ: g.GapJ, GapFraction: g.GapFraction, KeplerIdleJ: g.KeplerIdleJ, Reason: g.Reason}
	}
	return in
}

// liteLLMInput is the scorecard's view of a level's LiteLLM reading.
func liteLLMInput(t *LevelTelemetry) *scorecard.LiteLLMReading {
	l := t.LiteLLM
	if l == nil {
		return nil
	}
	return &scorecard.LiteLLMReading{Valid: l.Valid, Via: l.Via, Filter: l.Filter,
		InputTokens: l.InputTokens, OutputTokens: l.OutputTokens, Spend: l.Spend}
}

// ReferenceLevel returns the level the scorecard and the report's headline
// describe, and why that one, in words ("the knee", "the highest output
// throughput among the levels that passed", ...): the knee level when the
// sweep found one (reached or not); otherwise the level of highest output
// throughput among those that passed the SLO, or, when none passed (or
// there is no SLO), among those with a successful request in their window.
// A level without one has no latency to describe, whatever throughput the
// tokens streamed into its window add up to. ok is false when the run has
// no level.
func (r Run) ReferenceLevel() (lv Level, why string, ok bool) {
	levels := r.Levels()
	i, why := r.reference(levels)
	if i < 0 {
		return Level{}, "", false
	}
	return levels[i], why, true
}

// reference is ReferenceLevel's index into levels, or -1.
func (r Run) reference(levels []Level) (int, string) {
	res := r.Result
	if k := res.Knee; k != nil {
		for i, l := range levels {
			if l.Index == k.Level {
				if k.Reached {
					return i, "the knee"
				}
				return i, "the highest passing level: the knee was not reached"
			}
		}
	}
	best := func(keep func(Level) bool) int {
		ref, peak := -1, -1.0
		for i, l := range levels {
			if keep(l) && l.Summary.OutputTokensPerSecond > peak {
				ref, peak = i, l.Summary.OutputTokensPerSecond
			}
		}
		return ref
	}
	ok := func(l Level) bool { return l.Summary.Requests.OK > 0 }
	withSLO := !res.Objective.IsZero()
	if withSLO {
		if i := best(func(l Level) bool { return ok(l) && l.Verdict.Outcome == slo.OutcomePass }); i >= 0 {
			return i, "the highest output throughput among the levels that passed"
		}
	}
	if i := best(ok); i >= 0 {
		if withSLO {
			return i, "the highest output throughput among the levels with successful requests; none passed"
		}
		return i, "the highest output throughput among the levels with successful requests"
	}
	if i := best(func(Level) bool { return true }); i >= 0 {
		return i, "the highest output throughput; no level had a successful request"
	}
	return -1, ""
}
