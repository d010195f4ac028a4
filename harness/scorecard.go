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
		warnings = append(warnings, metrics.Warning{Code: WarnNoSLO, Level: -1,
			Message: fmt.Sprintf("no --slo: the scorecard describes level %d (highest output throughput), and its goodput is raw throughput", ref)})
	} else {
		pass := lv.Verdict.Pass
		perf.SLOPass = &pass
		perf.SLOOutcome = string(lv.Verdict.Outcome)
		if res.Knee == nil {
			warnings = append(warnings, metrics.Warning{Code: WarnNoKnee, Level: -1,
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
	for _, l := range levels {
		if l.Result.Level != lv.Index {
			continue
		}
		if r, ok := l.Telemetry.(*LevelReading); ok && r != nil && r.Energy != nil {
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
	})
}

// AchievedLengths returns the mean achieved ISL and OSL of a level's
// in-window requests as the summary measured them (achieved ISL and OSL),
// rounded, for metadata when no fixed --data lengths were asked for.
func AchievedLengths(s metrics.Summary) (isl, osl int) {
	return int(s.PromptTokens.Mean + 0.5), int(s.OutputTokens.Mean + 0.5)
}
