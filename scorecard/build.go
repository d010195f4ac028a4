package scorecard

import (
	"fmt"
	"math"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
)

// Inputs is what Build assembles a Scorecard from: numbers the integrator
// has already measured (the knee level's summary, the energy counters over
// its window, the cost rate). Build derives CPM, Wh/token, J/token, the
// PUE-adjusted figure and gCO2 per 1M tokens from them.
//
// For the declared constants a zero value means "not declared": PUE,
// IdleBaselineW, GridGCO2KWh.
type Inputs struct {
	Metadata Metadata
	// Performance holds the knee level's figures (KneePerformance fills most
	// of them from a metrics.Summary) plus the sweep-wide ones: KneeLevel,
	// PeakOutputTokS, KneeRateReqS or KneeConcurrency, KneeBracket, SLOPass.
	// GoodputTokS, GoodputReqS, WindowS and OutputTokens drive the derived
	// cost and energy figures.
	Performance Performance
	Energy      EnergyReading
	Cost        CostRate
	// PUE is the data-centre power usage effectiveness (--pue), ≥ 1.
	PUE float64
	// IdleBaselineW is idle power to subtract over the window, W (--idle-baseline-w).
	IdleBaselineW float64
	// GridGCO2KWh is the grid carbon intensity, gCO2/kWh (--grid-gco2-kwh).
	GridGCO2KWh float64
	// Warnings are the run's warnings, copied into the scorecard.
	Warnings []metrics.Warning

	// Prices, when set, price the window's tokens by type (--price);
	// Tokens holds the counts they price (KneeTokens fills it).
	Prices *TokenPrices
	Tokens TokenCounts
	// Pod is Kepler's pod energy over the knee window (--pod-energy).
	Pod *PodReading
	// LiteLLM is a LiteLLM proxy's accounting of the knee window.
	LiteLLM *LiteLLMReading
	// Reference, when set, is checked against Wh/token (--reference).
	Reference *Reference
}

// EnergyReading is the GPU energy over the knee level's window, as an energy
// source measured it (docs/metrics.md#energy).
type EnergyReading struct {
	// Source is "nvml", "dcgm", "prometheus" or "none"; "" is taken as "none".
	Source string
	// Valid is true when EnergyJ is a usable total for the window.
	Valid bool
	// EnergyJ is the gross energy Σ_gpu (end − start) mJ / 1000, J, before
	// any idle baseline: Build subtracts Inputs.IdleBaselineW × window.
	EnergyJ float64
	// ResetDetected is true when a counter reset was estimated from power samples.
	ResetDetected bool
	GPUName       string
	GPUCount      int
}

// CostRate is the deployment's cost rate (docs/metrics.md#cost-cpm).
type CostRate struct {
	// EURPerHour is the cost, currency/h; 0 means unknown.
	EURPerHour float64
	// Currency defaults to "EUR".
	Currency string
	// Source is "flag" (--gpu-cost-eur-h) or "opencost".
	Source string
}

// Warning codes Build adds.
const (
	WarnAnecdote        metrics.WarningCode = "anecdote"               // mandatory metadata missing
	WarnNoGoodput       metrics.WarningCode = "no_goodput"             // goodput is 0: CPM and cost per request undefined
	WarnEnergyInvalid   metrics.WarningCode = "energy_invalid"         // an energy source was set but gave no usable reading
	WarnEnergyReset     metrics.WarningCode = "energy_counter_reset"   // a counter reset was estimated from power samples (the code energy.WarnCounterReset raises)
	WarnBaselineTooHigh metrics.WarningCode = "idle_baseline_too_high" // the idle baseline exceeds the measured energy
	WarnNoOutputTokens  metrics.WarningCode = "no_output_tokens"       // no tokens in the window: per-token energy undefined
	WarnPUEOutOfRange   metrics.WarningCode = "pue_out_of_range"       // a declared PUE below 1 is ignored
	WarnNoSLO           metrics.WarningCode = "no_slo"                 // no SLO: the scorecard describes the level of highest throughput, goodput is raw throughput
	WarnNoKnee          metrics.WarningCode = "no_knee"                // no level passed: the scorecard describes the level of highest throughput, not a knee
)

// runWide is the Level of a warning about the whole run.
const runWide = -1

// Build assembles a Scorecard from in. It sets the schema version, the status
// and missing list from in.Metadata, and derives (docs/metrics.md: energy per
// token, cost, carbon):
//
//	cpm_eur_1m           = EUR/h × 1e6 / (goodput_tok_s × 3600)
//	cost_per_request_eur = EUR/h / 3600 / goodput_req_s
//	cost_window_eur      = EUR/h × window_s / 3600
//	energy_j             = gross J − idle_baseline_w × window_s
//	mean_w               = energy_j / window_s
//	wh_per_token         = energy_j / 3600 / output_tokens
//	j_per_token          = energy_j / output_tokens
//	wh_per_token_pue     = wh_per_token × PUE
//	gco2_per_1m_tokens   = Wh/token × 1e6 / 1000 × gCO2/kWh (PUE-adjusted Wh/token when a PUE is declared)
//
// A figure whose inputs are missing, zero where they divide, or not finite
// is left nil, with a warning where the reason is not obvious. Build does not
// modify in and is safe for concurrent use.
func Build(in Inputs) Scorecard {
	sc := Scorecard{
		SchemaVersion: SchemaVersion,
		Metadata:      in.Metadata.clone(),
		Performance:   sanitized(in.Performance),
		Status:        in.Metadata.Status(),
		Missing:       in.Metadata.Missing(),
	}
	sc.Warnings = append(sc.Warnings, in.Warnings...)
	warn := func(code metrics.WarningCode, format string, args ...any) {
		sc.Warnings = append(sc.Warnings, metrics.Warning{Code: code, Level: runWide, Message: fmt.Sprintf(format, args...)})
	}
	if sc.Status == StatusAnecdote {
		warn(WarnAnecdote, "scorecard is an anecdote, not data: missing %v", sc.Missing)
	}
	p := sc.Performance
	window := value(p.WindowS)
	var tokens float64
	if p.OutputTokens != nil {
		tokens = float64(*p.OutputTokens)
	}

	// Cost.
	if rate := in.Cost.EURPerHour; finite(rate) && rate > 0 {
		c := &sc.Cost
		c.EURPerHour = num(rate)
		c.Currency = in.Cost.Currency
		if c.Currency == "" {
			c.Currency = "EUR"
		}
		c.Source = in.Cost.Source
		if window > 0 {
			c.CostWindowEUR = num(costWindow(rate, window))
		}
		if g := value(p.GoodputTokS); g > 0 {
			c.CPMEUR1M = num(cpmPer1M(rate, g))
			if p.GoodputTokSCI != nil {
				c.CPMEUR1MCI = interval(p.GoodputTokSCI.Reciprocal(cpmPer1M(rate, 1)))
			}
		} else if p.GoodputTokS != nil {
			warn(WarnNoGoodput, "goodput is 0 tokens/s at the knee level: cost per 1M tokens is undefined")
		}
		if g := value(p.GoodputReqS); g > 0 {
			c.CostPerRequestEUR = num(costPerRequest(rate, g))
		}
	}
	if in.Prices != nil {
		if tokens > 0 {
			sc.Cost.Tokens = tokenCost(*in.Prices, in.Tokens, tokens, window, p.OutputTokSCI)
		} else {
			warn(WarnNoTokenCost, "token prices were given but no output tokens arrived in the knee window: no cost by token type")
		}
	}
	if in.LiteLLM != nil && in.LiteLLM.Valid {
		sc.Cost.LiteLLM = liteLLMCost(*in.LiteLLM)
	}

	// Energy.
	e := &sc.Energy
	e.Source = in.Energy.Source
	if e.Source == "" {
		e.Source = "none"
	}
	e.GPUName, e.GPUCount = in.Energy.GPUName, in.Energy.GPUCount
	e.ResetDetected = in.Energy.ResetDetected
	if in.PUE > 0 {
		if in.PUE >= 1 && finite(in.PUE) {
			e.PUE = num(in.PUE)
		} else {
			warn(WarnPUEOutOfRange, "PUE %g is below 1 and was ignored", in.PUE)
		}
	}
	if b := in.IdleBaselineW; finite(b) && b > 0 {
		e.IdleBaselineW = num(b)
	}
	gross := in.Energy.EnergyJ
	valid := in.Energy.Valid
	basis := BasisGPU
	if pod := in.Pod; (!valid || !finite(gross) || gross < 0) && pod != nil && pod.Valid && finite(pod.EnergyJ) && pod.EnergyJ >= 0 {
		// No usable GPU counter: the per-token figures divide Kepler's
		// pod energy, and say so. Kepler attributes no idle power to a
		// pod, so no idle baseline is subtracted from it.
		if e.Source != "none" {
			warn(WarnEnergyInvalid, "energy source %s gave no usable reading for the knee window", e.Source)
		}
		warn(WarnEnergyFromPod, "Wh/token divides Kepler's energy of %s (CPU and GPU, active power only), not GPU counters: it is not comparable with a GPU-counter Wh/token", pod.Selector)
		e.Source, gross, valid, basis = "kepler", pod.EnergyJ, true, BasisPod
		e.IdleBaselineW, e.GPUName, e.GPUCount = nil, "", 0
	}
	switch {
	case !valid || !finite(gross) || gross < 0:
		if e.Source != "none" {
			warn(WarnEnergyInvalid, "energy source %s gave no usable reading for the knee window: energy figures omitted", e.Source)
		}
	case e.IdleBaselineW != nil && window <= 0:
		warn(WarnEnergyInvalid, "an idle baseline was declared but the window length is unknown: energy figures omitted")
	case e.IdleBaselineW != nil && gross-*e.IdleBaselineW*window < 0:
		warn(WarnBaselineTooHigh, "idle baseline %g W × %g s exceeds the measured %g J: energy figures omitted", *e.IdleBaselineW, window, gross)
	default:
		e.Valid = true
		e.WhPerTokenBasis = basis
		net := gross
		if e.IdleBaselineW != nil {
			e.EnergyGrossJ = num(gross)
			net = gross - *e.IdleBaselineW*window
		}
		e.EnergyJ = num(net)
		if window > 0 {
			e.MeanW = num(meanW(net, window))
		}
		if tokens > 0 {
			e.WhPerToken = num(whPerToken(net, tokens))
			e.JPerToken = num(jPerToken(net, tokens))
			if p.OutputTokSCI != nil && window > 0 {
				// Wh/token = E / 3600 / (tok/s × window): the reciprocal
				// of the token rate, scaled.
				e.WhPerTokenCI = interval(p.OutputTokSCI.Reciprocal(net / 3600 / window))
			}
			if e.PUE != nil {
				e.WhPerTokenPUE = num(whPerToken(net, tokens) * *e.PUE)
				if e.WhPerTokenCI != nil {
					e.WhPerTokenPUECI = interval(e.WhPerTokenCI.Scale(*e.PUE))
				}
			}
		} else {
			warn(WarnNoOutputTokens, "no output tokens in the knee window: energy per token is undefined")
		}
		if e.ResetDetected {
			warn(WarnEnergyReset, "an energy counter reset was detected; its share of the window was estimated from power samples")
		}
	}

	if in.Pod != nil {
		e.Pod = podEnergy(*in.Pod, tokens, window, p.OutputTokSCI)
	}
	if ref := in.Reference; ref != nil && ref.WhPerToken > 0 {
		if e.WhPerToken != nil {
			pl, w := plausibility(*ref, *e.WhPerToken, e.WhPerTokenCI)
			e.Plausibility = &pl
			if w != nil {
				sc.Warnings = append(sc.Warnings, *w)
			}
		} else {
			warn(WarnReferenceUnchecked, "a reference Wh/token was given (%s) but the scorecard has no Wh/token to check against it", ref.Source)
		}
	}

	// Carbon.
	if g := in.GridGCO2KWh; finite(g) && g > 0 {
		sc.Carbon.GridGCO2KWh = num(g)
		wh, whCI := e.WhPerToken, e.WhPerTokenCI
		if e.WhPerTokenPUE != nil {
			wh, whCI = e.WhPerTokenPUE, e.WhPerTokenPUECI
			sc.Carbon.PUEAdjusted = true
		}
		if wh != nil {
			sc.Carbon.GCO2Per1MTokens = num(gco2Per1M(*wh, g))
			if whCI != nil {
				sc.Carbon.GCO2Per1MTokensCI = interval(whCI.Scale(gco2Per1M(1, g)))
			}
		}
	}
	return sc
}

// KneePerformance fills the knee-level figures of a Performance from that
// level's summary: output tok/s, TTFT P99, ITL P95, E2E P99 (plain, not
// error-adjusted), error rate, window and output tokens (output tok/s ×
// window). Goodput is copied only when withSLO is true: without an SLO
// goodput is undefined, not 0. A distribution with no samples leaves its
// figure nil. The caller adds KneeLevel, PeakOutputTokS, the knee, its
// bracket and SLOPass.
func KneePerformance(s metrics.Summary, withSLO bool) Performance {
	// A repeated level's figures carry the wider of the within-run and
	// between-run intervals.
	wide := func(name string, within stats.Interval) *stats.Interval {
		if f, ok := s.Repeats.Figure(name); ok {
			within = within.Wider(f.Between)
		}
		return interval(within)
	}
	p := Performance{
		OutputTokS:   num(s.OutputTokensPerSecond),
		OutputTokSCI: wide(metrics.FigureOutputTokS, s.OutputTokensPerSecondCI),
		WindowS:      num(s.WindowSeconds),
		ReceiveClock: s.ReceiveClock,
	}
	if s.Requests.OK+s.Requests.Failed > 0 {
		p.ErrorRate = num(s.ErrorRate)
		p.ErrorRateCI = interval(s.ErrorRateCI)
	}
	if s.TTFT.Count > 0 {
		p.TTFTP99Ms = num(s.TTFT.P99)
		p.TTFTP99MsCI = wide("ttft_p99", s.TTFT.P99CI)
	}
	if s.ITL.Count > 0 {
		p.ITLP95Ms = num(s.ITL.P95)
		p.ITLP95MsCI = wide("itl_p95", s.ITL.P95CI)
	}
	if s.E2E.Count > 0 {
		p.E2EP99Ms = num(s.E2E.P99)
	}
	if s.WindowSeconds > 0 {
		n := int64(math.Round(s.OutputTokensPerSecond * s.WindowSeconds))
		p.OutputTokens = &n
	}
	if withSLO {
		p.GoodputTokS = num(s.Goodput.OutputTokensPerSecond)
		p.GoodputTokSCI = wide(metrics.FigureGoodputTokS, s.Goodput.OutputTokensPerSecondCI)
		p.GoodputReqS = num(s.Goodput.RequestsPerSecond)
	}
	return p
}

// interval returns a pointer to a copy of ci, or nil when ci is the zero
// Interval (none was computed).
func interval(ci stats.Interval) *stats.Interval {
	if ci.IsZero() {
		return nil
	}
	return &ci
}

// Num returns a pointer to v, or nil when v is NaN or ±Inf: the way to put
// a measured number into a Performance.
func Num(v float64) *float64 { return num(v) }

// The formulas of docs/metrics.md (energy per token, cost, carbon). The
// energy and cost packages implement the same definitions; these are kept
// small and unexported so that the scorecard stays self-contained until they
// are deduplicated.

// cpmPer1M is the cost per 1M output tokens: EUR/h × 1e6 / (tok/s × 3600).
func cpmPer1M(eurPerHour, goodputTokS float64) float64 {
	return eurPerHour * 1e6 / (goodputTokS * 3600)
}

// costPerRequest is EUR/h / 3600 / (req/s): the cost of one request.
func costPerRequest(eurPerHour, reqS float64) float64 { return eurPerHour / 3600 / reqS }

// costWindow is EUR/h × window_h.
func costWindow(eurPerHour, windowS float64) float64 { return eurPerHour * windowS / 3600 }

// meanW is E_J / window_s.
func meanW(energyJ, windowS float64) float64 { return energyJ / windowS }

// whPerToken is E_J / 3600 / output tokens.
func whPerToken(energyJ, tokens float64) float64 { return energyJ / 3600 / tokens }

// jPerToken is E_J / output tokens.
func jPerToken(energyJ, tokens float64) float64 { return energyJ / tokens }

// gco2Per1M is Wh/token × 1e6 / 1000 × gCO2/kWh: grams of CO2 per 1M tokens.
func gco2Per1M(whPerToken, gridGCO2kWh float64) float64 {
	return whPerToken * 1e6 / 1000 * gridGCO2kWh
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func num(v float64) *float64 {
	if !finite(v) {
		return nil
	}
	return &v
}

func value(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// sanitized returns a copy of p whose float pointers are fresh (so the
// scorecard shares no memory with the caller) and nil where not finite.
func sanitized(p Performance) Performance {
	f := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		return num(*v)
	}
	q := p
	q.GoodputTokS, q.GoodputReqS, q.OutputTokS = f(p.GoodputTokS), f(p.GoodputReqS), f(p.OutputTokS)
	q.TTFTP99Ms, q.ITLP95Ms, q.E2EP99Ms = f(p.TTFTP99Ms), f(p.ITLP95Ms), f(p.E2EP99Ms)
	q.PeakOutputTokS, q.KneeRateReqS = f(p.PeakOutputTokS), f(p.KneeRateReqS)
	q.ErrorRate, q.WindowS = f(p.ErrorRate), f(p.WindowS)
	if p.KneeLevel != nil {
		v := *p.KneeLevel
		q.KneeLevel = &v
	}
	if p.KneeConcurrency != nil {
		v := *p.KneeConcurrency
		q.KneeConcurrency = &v
	}
	if p.SLOPass != nil {
		v := *p.SLOPass
		q.SLOPass = &v
	}
	if p.KneeReached != nil {
		v := *p.KneeReached
		q.KneeReached = &v
	}
	if p.OutputTokens != nil {
		v := *p.OutputTokens
		q.OutputTokens = &v
	}
	if p.KneeBracket != nil {
		b := Bracket{Low: p.KneeBracket.Low, High: f(p.KneeBracket.High), Unit: p.KneeBracket.Unit}
		q.KneeBracket = &b
	}
	ci := func(c *stats.Interval) *stats.Interval {
		if c == nil {
			return nil
		}
		return interval(*c)
	}
	q.TTFTP99MsCI, q.ITLP95MsCI, q.GoodputTokSCI, q.OutputTokSCI, q.ErrorRateCI = ci(p.TTFTP99MsCI), ci(p.ITLP95MsCI), ci(p.GoodputTokSCI), ci(p.OutputTokSCI), ci(p.ErrorRateCI)
	return q
}
