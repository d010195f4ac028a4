package scorecard

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
)

// This file holds the scorecard's figures from the telemetry beside the
// GPU counters: cost by token type (--price), LiteLLM's accounting
// (--litellm-metrics), Kepler's pod energy (--pod-energy) and the
// plausibility of the energy per token against a reference (--reference).

// Warning codes of these sections.
const (
	WarnImplausibleEnergy  metrics.WarningCode = "implausible_energy"               // Wh/token is more than a factor of 2 from the reference
	WarnPlausibilityOpen   metrics.WarningCode = "energy_plausibility_inconclusive" // the Wh/token interval straddles a factor-2 bound
	WarnReferenceUnchecked metrics.WarningCode = "reference_unchecked"              // a reference was given but there is no Wh/token
	WarnEnergyFromPod      metrics.WarningCode = "energy_from_pod"                  // Wh/token divides Kepler's pod energy: no usable GPU counter
	WarnNoTokenCost        metrics.WarningCode = "no_token_cost"                    // --price given but no output tokens in the window
	PlausibilityFactor                         = 2.0                                // the seed's rule: within a factor of 2 is plausible
	VerdictPlausible                           = "plausible"
	VerdictImplausible                         = "implausible"
	VerdictInconclusive                        = "inconclusive"
	BasisGPU                                   = "gpu" // Energy.WhPerTokenBasis: the GPUs' energy counters
	BasisPod                                   = "pod" // Energy.WhPerTokenBasis: Kepler's pod energy (CPU and GPU)
)

// TokenPrices are token prices, EUR per 1M tokens (--price; see
// cost.Prices for their meaning). CachedInput nil charges cached prompt
// tokens as Input.
type TokenPrices struct {
	Input       float64  `json:"input_eur_1m"`
	Output      float64  `json:"output_eur_1m"`
	CachedInput *float64 `json:"cached_input_eur_1m,omitempty"`
}

func (p TokenPrices) cached() float64 {
	if p.CachedInput != nil {
		return *p.CachedInput
	}
	return p.Input
}

// TokenCounts are the knee window's token counts by type and the mean
// lengths of its requests, which cost by token type prices.
type TokenCounts struct {
	// Input and CachedInput are the prompt tokens of the requests sent in
	// the window and prefilled (input tok/s × window), and the part the
	// server served from its cache (cached input tok/s × window).
	Input, CachedInput float64
	// MeanPrompt and MeanOutput are the mean ISL and OSL of the window's
	// successful requests, tokens, with their intervals.
	MeanPrompt, MeanOutput     float64
	MeanPromptCI, MeanOutputCI stats.Interval
}

// KneeTokens fills TokenCounts from the knee level's summary.
func KneeTokens(s metrics.Summary) TokenCounts {
	return TokenCounts{
		Input:        s.InputTokensPerSecond * s.WindowSeconds,
		CachedInput:  s.CachedInputTokensPerSecond * s.WindowSeconds,
		MeanPrompt:   s.PromptTokens.Mean,
		MeanOutput:   s.OutputTokens.Mean,
		MeanPromptCI: s.PromptTokens.MeanCI,
		MeanOutputCI: s.OutputTokens.MeanCI,
	}
}

// TokenCost is the cost of the knee window's tokens at token prices. The
// token counts over the window are counted, not estimated; the intervals
// come from output tok/s's (CPMs) and from the mean lengths' (per request).
type TokenCost struct {
	Prices TokenPrices `json:"prices"`
	// Token counts over the window: InputTokens includes CachedInputTokens.
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	// What each type cost over the window, EUR: InputEUR the uncached
	// prompt tokens, CachedInputEUR the cached ones, OutputEUR the
	// generated ones; WindowEUR their sum.
	InputEUR       float64 `json:"input_eur"`
	CachedInputEUR float64 `json:"cached_input_eur"`
	OutputEUR      float64 `json:"output_eur"`
	WindowEUR      float64 `json:"window_eur"`
	// CPMEUR1M is WindowEUR × 1e6 / output tokens: EUR per 1M output
	// tokens with every token type charged to them, comparable with the
	// GPU-hour cpm_eur_1m. CPMByType splits it by type (it is their sum).
	CPMEUR1M   *float64        `json:"cpm_eur_1m,omitempty"`
	CPMEUR1MCI *stats.Interval `json:"cpm_eur_1m_ci,omitempty"`
	CPMByType  *CPMByType      `json:"cpm_by_type_eur_1m,omitempty"`
	// BlendedEUR1M is WindowEUR × 1e6 / (input + output tokens): EUR per
	// 1M tokens of any type.
	BlendedEUR1M   *float64        `json:"blended_eur_1m,omitempty"`
	BlendedEUR1MCI *stats.Interval `json:"blended_eur_1m_ci,omitempty"`
	// CostPerRequestEUR is the mean cost of one successful request of the
	// window: (ISL − cached) × input + cached × cached_input + OSL ×
	// output, per 1M, with the mean ISL and OSL and the window's cached
	// share of prompt tokens.
	CostPerRequestEUR   *float64        `json:"cost_per_request_eur,omitempty"`
	CostPerRequestEURCI *stats.Interval `json:"cost_per_request_eur_ci,omitempty"`
}

// CPMByType is the token-priced CPM split by token type, EUR per 1M output
// tokens: what the window's uncached prompt, cached prompt and generated
// tokens cost, each divided by the output tokens.
type CPMByType struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input"`
	Output      float64 `json:"output"`
}

// tokenCost prices the window's tokens. out is the output token count over
// the window, rate its tok/s and rateCI its interval.
func tokenCost(p TokenPrices, t TokenCounts, out, window float64, rateCI *stats.Interval) *TokenCost {
	in := max(t.Input, 0)
	cached := min(max(t.CachedInput, 0), in)
	c := &TokenCost{Prices: p,
		InputTokens: int64(math.Round(in)), CachedInputTokens: int64(math.Round(cached)), OutputTokens: int64(math.Round(out))}
	c.InputEUR = (in - cached) * p.Input / 1e6
	c.CachedInputEUR = cached * p.cached() / 1e6
	c.OutputEUR = out * p.Output / 1e6
	c.WindowEUR = c.InputEUR + c.CachedInputEUR + c.OutputEUR
	if out > 0 {
		byType := CPMByType{Input: c.InputEUR * 1e6 / out, CachedInput: c.CachedInputEUR * 1e6 / out, Output: p.Output}
		c.CPMByType = &byType
		c.CPMEUR1M = num(byType.Input + byType.CachedInput + byType.Output)
		if rateCI != nil && window > 0 {
			// CPM = output price + (prompt cost per second × 1e6) / output tok/s:
			// the prompt part is the reciprocal of the rate, scaled.
			k := (c.InputEUR + c.CachedInputEUR) * 1e6 / window
			ci := rateCI.Reciprocal(k)
			c.CPMEUR1MCI = interval(stats.Interval{Lo: ci.Lo + p.Output, Hi: ci.Hi + p.Output})
		}
	}
	if in+out > 0 {
		c.BlendedEUR1M = num(c.WindowEUR * 1e6 / (in + out))
		if rateCI != nil && window > 0 && out > 0 {
			// (prompt cost + O × output price) / (I + O) with O over its
			// interval, the prompt tokens held at their count: monotone in O.
			f := func(rate float64) float64 {
				o := rate * window
				if !(o >= 0) || math.IsInf(o, 0) {
					return p.Output
				}
				return ((c.InputEUR+c.CachedInputEUR)*1e6 + o*p.Output) / (in + o)
			}
			a, b := f(rateCI.Lo), f(rateCI.Hi)
			c.BlendedEUR1MCI = interval(stats.Interval{Lo: min(a, b), Hi: max(a, b)})
		}
	}
	if t.MeanPrompt > 0 || t.MeanOutput > 0 {
		share := 0.0
		if in > 0 {
			share = cached / in
		}
		promptPrice := ((1-share)*p.Input + share*p.cached()) / 1e6
		outPrice := p.Output / 1e6
		c.CostPerRequestEUR = num(promptPrice*t.MeanPrompt + outPrice*t.MeanOutput)
		if !t.MeanPromptCI.IsZero() || !t.MeanOutputCI.IsZero() {
			// Both prices are >= 0: the bounds combine as if the two
			// means erred the same way (conservative).
			lo := func(ci stats.Interval, mean float64) float64 {
				if ci.IsZero() {
					return mean
				}
				return ci.Lo
			}
			hi := func(ci stats.Interval, mean float64) float64 {
				if ci.IsZero() {
					return mean
				}
				return ci.Hi
			}
			c.CostPerRequestEURCI = interval(stats.Interval{
				Lo: promptPrice*lo(t.MeanPromptCI, t.MeanPrompt) + outPrice*lo(t.MeanOutputCI, t.MeanOutput),
				Hi: promptPrice*hi(t.MeanPromptCI, t.MeanPrompt) + outPrice*hi(t.MeanOutputCI, t.MeanOutput),
			})
		}
	}
	return c
}

// LiteLLMReading is what a LiteLLM proxy accounted over the knee window
// (see package litellm): counter deltas, nil where LiteLLM had none.
type LiteLLMReading struct {
	Valid        bool
	Via, Filter  string
	InputTokens  *float64
	OutputTokens *float64
	Spend        *float64
}

// LiteLLMCost is LiteLLM's accounting of the knee window. Spend and CPM1M
// are in the currency of LiteLLM's prices (its built-in price map is in US
// dollars), not converted. They are counter deltas over the window, exact
// as measured: no interval.
type LiteLLMCost struct {
	Via          string   `json:"via,omitempty"`
	Filter       string   `json:"filter,omitempty"`
	InputTokens  *float64 `json:"input_tokens,omitempty"`
	OutputTokens *float64 `json:"output_tokens,omitempty"`
	Spend        *float64 `json:"spend,omitempty"`
	// CPM1M is Spend × 1e6 / LiteLLM's output tokens: spend per 1M output
	// tokens, beside the GPU-hour cpm_eur_1m.
	CPM1M *float64 `json:"cpm_1m,omitempty"`
}

func liteLLMCost(r LiteLLMReading) *LiteLLMCost {
	c := &LiteLLMCost{Via: r.Via, Filter: r.Filter}
	copyp := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		return num(*p)
	}
	c.InputTokens, c.OutputTokens, c.Spend = copyp(r.InputTokens), copyp(r.OutputTokens), copyp(r.Spend)
	if c.Spend != nil && c.OutputTokens != nil && *c.OutputTokens > 0 {
		c.CPM1M = num(*c.Spend * 1e6 / *c.OutputTokens)
	}
	return c
}

// PodReading is Kepler's pod energy over the knee window (see
// energy.PodReading and energy.ComparePod).
type PodReading struct {
	Source, Via, Generation, Scope, Selector string
	Valid                                    bool
	// EnergyJ = CPUJ + GPUJ (Kepler 0.9-: its container total), J.
	EnergyJ, CPUJ, GPUJ float64
	// Gap compares the pod's GPU energy with the GPU counters; nil when
	// they could not be compared.
	Gap *PodGap
}

// PodGap is the gap between the GPUs' energy counters and the GPU energy
// Kepler attributed to the pod, J, and why.
type PodGap struct {
	GPUJ, GapJ, GapFraction float64
	KeplerIdleJ             *float64
	Reason                  string
}

// PodEnergy is the energy Kepler attributed to the benchmarked pod over the
// knee window. Kepler's counters are read at the window's edges, so the
// energies are measurements, and Wh/token's interval is the token rate's,
// as for the GPU counters.
type PodEnergy struct {
	Source     string `json:"source"`
	Via        string `json:"via,omitempty"`
	Generation string `json:"generation,omitempty"`
	Scope      string `json:"scope,omitempty"`
	Selector   string `json:"selector,omitempty"`
	Valid      bool   `json:"valid"`
	// EnergyJ is the pod's energy (CPU and GPU), J; CPUJ and GPUJ its parts.
	EnergyJ *float64 `json:"energy_j,omitempty"`
	CPUJ    *float64 `json:"cpu_j,omitempty"`
	GPUJ    *float64 `json:"gpu_j,omitempty"`
	// WhPerToken is EnergyJ / 3600 / output tokens, Wh; JPerToken EnergyJ / output tokens, J.
	WhPerToken   *float64        `json:"wh_per_token,omitempty"`
	WhPerTokenCI *stats.Interval `json:"wh_per_token_ci,omitempty"`
	JPerToken    *float64        `json:"j_per_token,omitempty"`
	// GPUGapJ is the GPUs' counter energy minus the pod's GPU energy, J,
	// GPUGapFraction that over the GPUs' energy, GapReason why they differ
	// and KeplerIdleJ Kepler's node GPU idle energy in the window.
	GPUGapJ        *float64 `json:"gpu_gap_j,omitempty"`
	GPUGapFraction *float64 `json:"gpu_gap_fraction,omitempty"`
	KeplerIdleJ    *float64 `json:"kepler_node_gpu_idle_j,omitempty"`
	GapReason      string   `json:"gap_reason,omitempty"`
}

func podEnergy(r PodReading, tokens, window float64, rateCI *stats.Interval) *PodEnergy {
	p := &PodEnergy{Source: r.Source, Via: r.Via, Generation: r.Generation, Scope: r.Scope, Selector: r.Selector}
	if p.Source == "" {
		p.Source = "kepler"
	}
	if !r.Valid || !finite(r.EnergyJ) || r.EnergyJ < 0 {
		return p
	}
	p.Valid = true
	p.EnergyJ, p.CPUJ, p.GPUJ = num(r.EnergyJ), num(r.CPUJ), num(r.GPUJ)
	if tokens > 0 {
		p.WhPerToken = num(whPerToken(r.EnergyJ, tokens))
		p.JPerToken = num(jPerToken(r.EnergyJ, tokens))
		if rateCI != nil && window > 0 {
			p.WhPerTokenCI = interval(rateCI.Reciprocal(r.EnergyJ / 3600 / window))
		}
	}
	if g := r.Gap; g != nil {
		p.GPUGapJ, p.GPUGapFraction, p.GapReason = num(g.GapJ), num(g.GapFraction), g.Reason
		if g.KeplerIdleJ != nil {
			p.KeplerIdleJ = num(*g.KeplerIdleJ)
		}
	}
	return p
}

// Reference is a published energy per token to check a measurement
// against (--reference), with where it comes from. The code holds no
// reference figures: the user supplies them.
type Reference struct {
	// WhPerToken is the reference energy per output token, Wh.
	WhPerToken float64 `json:"wh_per_token"`
	// Source names the publication, e.g. "MLPerf Inference v5.0, 1-node 8xH100, Llama-2-70B".
	Source string `json:"source"`
}

// ParseReference parses the --reference flag (or the text of a reference
// file; newlines separate terms as commas do):
//
//	wh_per_token=0.00044,source=TEXT
//	tokens_per_j=0.63,source=TEXT    (Wh/token = 1 / (tokens/J × 3600))
//
// source is required and comes last: it takes the rest of the text,
// commas included. Every problem is reported at once (errors.Join), each
// naming the reference.
func ParseReference(s string) (Reference, error) {
	const example = `e.g. "wh_per_token=0.00044,source=MLPerf Inference v5.0 ..." (source last)`
	text := s
	var r Reference
	// source= takes the rest of the text: find it at the start of a term.
	if i := sourceTerm(text); i >= 0 {
		_, src, _ := strings.Cut(text[i:], "=")
		r.Source = strings.Join(strings.Fields(src), " ")
		text = text[:i]
	}
	var errs []error
	figures := 0
	for _, term := range strings.FieldsFunc(text, func(c rune) bool { return c == ',' || c == '\n' }) {
		term = strings.TrimSpace(term)
		if term == "" || strings.HasPrefix(term, "#") {
			continue
		}
		k, v, ok := strings.Cut(term, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !ok {
			errs = append(errs, fmt.Errorf("reference: %q: want KEY=VALUE, %s", term, example))
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			errs = append(errs, fmt.Errorf("reference: %s=%q: want a number > 0", k, v))
			continue
		}
		switch k {
		case "wh_per_token":
			r.WhPerToken = f
		case "tokens_per_j":
			r.WhPerToken = 1 / (f * 3600)
		default:
			errs = append(errs, fmt.Errorf("reference: %q: the figures are wh_per_token and tokens_per_j, then source", k))
			continue
		}
		figures++
	}
	switch {
	case figures == 0 && len(errs) == 0:
		errs = append(errs, fmt.Errorf("reference %q: give wh_per_token= or tokens_per_j=, %s", s, example))
	case figures > 1:
		errs = append(errs, errors.New("reference: give one figure, wh_per_token= or tokens_per_j=, not both"))
	}
	if r.Source == "" {
		errs = append(errs, fmt.Errorf("reference: source= is required (where the figure was published), %s", example))
	}
	if len(errs) > 0 {
		return Reference{}, errors.Join(errs...)
	}
	return r, nil
}

// sourceTerm returns the index of the term "source=..." in a reference
// text (at its start or after a comma or newline), or -1.
func sourceTerm(text string) int {
	start := 0
	for i := 0; i <= len(text); i++ {
		if i < len(text) && text[i] != ',' && text[i] != '\n' {
			continue
		}
		term := text[start:i]
		if t := strings.TrimLeft(term, " \t\r"); len(t) >= 7 && strings.EqualFold(t[:7], "source=") {
			return start + len(term) - len(t)
		}
		start = i + 1
	}
	return -1
}

// Plausibility is the seed's check of Wh/token against a reference: a
// measurement within a factor of 2 of the reference is plausible. The
// verdict reads the ratio's interval: plausible when all of it lies within
// [1/2, 2], implausible when all of it lies outside, inconclusive when it
// straddles a bound.
type Plausibility struct {
	ReferenceWhPerToken float64 `json:"reference_wh_per_token"`
	Source              string  `json:"source"`
	// WhPerToken is the scorecard's Wh/token (basis Energy.WhPerTokenBasis).
	WhPerToken float64 `json:"wh_per_token"`
	// Ratio is WhPerToken / ReferenceWhPerToken, with its interval.
	Ratio   float64         `json:"ratio"`
	RatioCI *stats.Interval `json:"ratio_ci,omitempty"`
	Factor  float64         `json:"factor"`
	Verdict string          `json:"verdict"`
}

func plausibility(ref Reference, wh float64, whCI *stats.Interval) (Plausibility, *metrics.Warning) {
	p := Plausibility{ReferenceWhPerToken: ref.WhPerToken, Source: ref.Source, WhPerToken: wh,
		Ratio: wh / ref.WhPerToken, Factor: PlausibilityFactor}
	lo, hi := p.Ratio, p.Ratio
	if whCI != nil {
		ci := whCI.Scale(1 / ref.WhPerToken)
		p.RatioCI = &ci
		lo, hi = ci.Lo, ci.Hi
	}
	in := func(x float64) bool { return x >= 1/PlausibilityFactor && x <= PlausibilityFactor }
	switch {
	case in(lo) && in(hi):
		p.Verdict = VerdictPlausible
	case hi < 1/PlausibilityFactor || lo > PlausibilityFactor:
		p.Verdict = VerdictImplausible
	default:
		p.Verdict = VerdictInconclusive
	}
	desc := fmt.Sprintf("measured %.3g Wh/token is %.2f× the reference %.3g Wh/token (%s)", wh, p.Ratio, ref.WhPerToken, ref.Source)
	switch p.Verdict {
	case VerdictImplausible:
		return p, &metrics.Warning{Code: WarnImplausibleEnergy, Level: runWide,
			Message: desc + ": more than a factor of 2 away, so one of them does not measure what the other does (GPU-only against wall power, idle power, an energy source watching other GPUs, a different model or batch size)"}
	case VerdictInconclusive:
		return p, &metrics.Warning{Code: WarnPlausibilityOpen, Level: runWide,
			Message: desc + fmt.Sprintf(": its interval (ratio [%.2f, %.2f]) straddles the factor-2 bound; measure longer to decide", p.RatioCI.Lo, p.RatioCI.Hi)}
	}
	return p, nil
}
