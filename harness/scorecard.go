package harness

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// ScorecardInputs is what a scorecard needs beyond the run itself: the
// metadata declared by flags, the cost rate and the energy factors.
type ScorecardInputs struct {
	Metadata      scorecard.Metadata
	Cost          scorecard.CostRate
	PUE           float64
	IdleBaselineW float64
	GridGCO2KWh   float64
	// Prices prices the knee window's tokens by type (--price); nil: none.
	Prices *scorecard.TokenPrices
	// Reference is checked against Wh/token (--reference); nil: none.
	Reference *scorecard.Reference
}

// Scorecard builds the run's scorecard (SPEC §10) from its reference
// level: the knee when the sweep found one; otherwise, without a knee, the
// level with the highest output throughput, with a warning saying so.
// levels are the Runner's levels, for their telemetry.
func Scorecard(run results.Run, levels []Level, in ScorecardInputs) scorecard.Scorecard {
	res := run.Result
	warnings := append([]metrics.Warning(nil), res.Warnings...)
	withSLO := !res.Objective.IsZero()
	ref := -1
	if res.Knee != nil && res.Knee.Level < len(res.Levels) {
		ref = res.Knee.Level
	}
	peak := 0.0
	peakInFlight := 0
	for i, lv := range res.Levels {
		s := lv.Summary
		if s.OutputTokensPerSecond > peak {
			peak = s.OutputTokensPerSecond
			if res.Knee == nil {
				ref = i
			}
		}
		peakInFlight = max(peakInFlight, int(s.Client.PeakInFlight), lv.Profile.Concurrency)
	}
	meta := in.Metadata
	if meta.MaxConcurrencyTested == 0 {
		meta.MaxConcurrencyTested = peakInFlight
	}
	if ref < 0 {
		return scorecard.Build(scorecard.Inputs{Metadata: meta, Cost: in.Cost, PUE: in.PUE, IdleBaselineW: in.IdleBaselineW, GridGCO2KWh: in.GridGCO2KWh, Warnings: warnings})
	}
	lv := res.Levels[ref]
	perf := scorecard.KneePerformance(lv.Summary, withSLO)
	if !withSLO {
		// Without an SLO every successful request is "good": goodput is
		// the level's throughput, and the scorecard says so.
		perf.GoodputTokS = scorecard.Num(lv.Summary.OutputTokensPerSecond)
		perf.GoodputReqS = scorecard.Num(lv.Summary.RequestsPerSecond)
		warnings = append(warnings, metrics.Warning{Code: "no_slo", Level: -1,
			Message: fmt.Sprintf("no --slo: the scorecard describes level %d (highest output throughput), and its goodput is raw throughput", ref)})
	} else {
		pass := lv.Verdict.Pass
		perf.SLOPass = &pass
		perf.SLOOutcome = string(lv.Verdict.Outcome)
		if res.Knee == nil {
			warnings = append(warnings, metrics.Warning{Code: "no_knee", Level: -1,
				Message: fmt.Sprintf("no knee was found under the SLO: the scorecard describes level %d (highest output throughput), not a knee", ref)})
		}
	}
	perf.KneeLevel = &ref
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
	var er scorecard.EnergyReading
	var pod *scorecard.PodReading
	var lite *scorecard.LiteLLMReading
	for _, l := range levels {
		if l.Result.Level != lv.Index {
			continue
		}
		r, _ := l.Telemetry.(*LevelReading)
		if r != nil {
			pod, lite = podInput(r), liteLLMInput(r)
		}
		if r != nil && r.Energy != nil {
			e := r.Energy
			er = scorecard.EnergyReading{Source: e.Source, Valid: e.Valid, EnergyJ: e.GrossEnergyJ, ResetDetected: e.ResetDetected, GPUName: e.GPUName, GPUCount: e.GPUCount}
			if meta.Hardware == "" && e.GPUCount > 0 {
				meta.Hardware = e.Hardware()
			}
			if meta.GPUCount == 0 {
				meta.GPUCount = e.GPUCount
			}
		}
	}
	return scorecard.Build(scorecard.Inputs{
		Metadata: meta, Performance: perf, Energy: er, Cost: in.Cost,
		PUE: in.PUE, IdleBaselineW: in.IdleBaselineW, GridGCO2KWh: in.GridGCO2KWh, Warnings: warnings,
		Prices: in.Prices, Tokens: scorecard.KneeTokens(lv.Summary), Pod: pod, LiteLLM: lite, Reference: in.Reference,
	})
}

// podInput is the scorecard's view of a level's Kepler reading.
func podInput(r *LevelReading) *scorecard.PodReading {
	p := r.Pod
	if p == nil {
		return nil
	}
	in := &scorecard.PodReading{Source: p.Source, Via: p.Via, Generation: p.Generation, Scope: p.Scope, Selector: p.Selector,
		Valid: p.Valid, EnergyJ: p.EnergyJ, CPUJ: p.CPUJ, GPUJ: p.GPUJ}
	if g := r.PodGap; g != nil {
		in.Gap = &scorecard.PodGap{GPUJ: g.GPUJ, GapJ: g.GapJ, GapFraction: g.GapFraction, KeplerIdleJ: g.KeplerIdleJ, Reason: g.Reason}
	}
	return in
}

// liteLLMInput is the scorecard's view of a level's LiteLLM reading.
func liteLLMInput(r *LevelReading) *scorecard.LiteLLMReading {
	l := r.LiteLLM
	if l == nil {
		return nil
	}
	return &scorecard.LiteLLMReading{Valid: l.Valid, Via: l.Via, Filter: l.Filter,
		InputTokens: l.InputTokens, OutputTokens: l.OutputTokens, Spend: l.Spend}
}

// AchievedLengths returns the mean achieved ISL and OSL of a level's
// in-window requests as the summary measured them (achieved ISL and OSL),
// rounded, for metadata when no fixed --data lengths were asked for.
func AchievedLengths(s metrics.Summary) (isl, osl int) {
	return int(s.PromptTokens.Mean + 0.5), int(s.OutputTokens.Mean + 0.5)
}
