package scorecard

import (
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
)

// SchemaVersion is the scorecard.json schema this package writes. Decode
// accepts any "scorecard/1.x" (unknown keys of a newer minor are ignored)
// and refuses other majors.
const SchemaVersion = "scorecard/1.0"

// Scorecard is one configuration's row (docs/outputs.md#scorecardjson): what
// scorecard.json holds. Figures come from the knee level's window, energy and
// cost included, so that they describe the same seconds.
//
// Missing numbers are nil pointers, omitted from JSON, never zeros: a 0
// that is present is a measured zero (for example an error rate of 0). Key
// names carry their units. A Scorecard is a plain value: safe for concurrent
// reads.
type Scorecard struct {
	SchemaVersion string `json:"schema_version"`
	// Status is StatusAuditable when Metadata has all mandatory fields.
	Status Status `json:"status"`
	// Missing lists the JSON keys of the absent mandatory metadata.
	Missing []string `json:"missing,omitempty"`

	Metadata    Metadata    `json:"metadata"`
	Performance Performance `json:"performance"`
	Cost        Cost        `json:"cost"`
	Energy      Energy      `json:"energy"`
	Carbon      Carbon      `json:"carbon"`

	// Warnings are the run's caveats plus those Build adds ("no_goodput",
	// "energy_invalid", ...). Warnings are data: every report shows them.
	Warnings []metrics.Warning `json:"warnings,omitempty"`
}

// Performance holds the knee level's figures (defined in docs/metrics.md),
// plus the peak.
type Performance struct {
	// KneeLevel is the index of the knee level in the sweep.
	KneeLevel *int `json:"knee_level,omitempty"`
	// GoodputTokS is the output throughput, tokens/s, of the requests that
	// succeeded and met every per-request SLO threshold at the knee level
	// (request-level goodput as DistServe, vLLM and AIPerf define it).
	GoodputTokS *float64 `json:"goodput_tok_s,omitempty"`
	// GoodputReqS is the same goodput in requests/s.
	GoodputReqS *float64 `json:"goodput_req_s,omitempty"`
	// OutputTokS is the knee level's output throughput, tokens/s: output
	// tokens arriving in the window / window (docs/metrics.md#throughputs).
	OutputTokS *float64 `json:"output_tok_s,omitempty"`
	// TTFTP99Ms is the knee level's TTFT P99, ms (first token − sent; the
	// coordinated-omission-corrected value when the level is open loop and
	// the SLO uses it — the integrator decides and says so in a warning).
	TTFTP99Ms *float64 `json:"ttft_p99_ms,omitempty"`
	// ITLP95Ms is the knee level's ITL P95, ms: per request
	// (E2E − TTFT)/(OSL − 1), as AIPerf defines it.
	ITLP95Ms *float64 `json:"itl_p95_ms,omitempty"`
	// E2EP99Ms is the knee level's end-to-end latency P99, ms.
	E2EP99Ms *float64 `json:"e2e_p99_ms,omitempty"`
	// PeakOutputTokS is the highest output throughput over all levels, tokens/s.
	PeakOutputTokS *float64 `json:"peak_output_tok_s,omitempty"`
	// KneeRateReqS is the knee of an open-loop sweep: the highest passing rate, req/s.
	KneeRateReqS *float64 `json:"knee_rate_req_s,omitempty"`
	// KneeConcurrency is the knee of a closed-loop sweep: the highest passing N.
	KneeConcurrency *int `json:"knee_concurrency,omitempty"`
	// KneeBracket is [last passing, first failing] load
	// (docs/metrics.md#the-knee).
	KneeBracket *Bracket `json:"knee_bracket,omitempty"`
	// KneeReached is true when a failing level bounds the knee from above:
	// the sweep found the knee. False means every level it could judge
	// passed, so the knee figures are a lower bound ("knee not reached:
	// safe capacity unknown"); nil when no knee search ran.
	KneeReached *bool `json:"knee_reached,omitempty"`
	// SLOPass is true when the knee level met every SLO term and was not
	// client-limited; nil when the run had no SLO.
	SLOPass *bool `json:"slo_pass,omitempty"`
	// ErrorRate is failed / (failed + ok) at the knee level, 0..1.
	ErrorRate *float64 `json:"error_rate,omitempty"`
	// WindowS is the knee level's measured window, s.
	WindowS *float64 `json:"window_s,omitempty"`
	// OutputTokens is the number of output tokens that arrived in that window.
	OutputTokens *int64 `json:"output_tokens,omitempty"`

	// The 95 % confidence intervals of the headline figures, in their
	// units: order statistics for the percentiles, batch means for the
	// rates, Wilson for the error rate (docs/statistics.md). For a level
	// run several times (--repeat) each is the wider of the pooled
	// within-run interval and the between-run one. An unbounded side is
	// null.
	TTFTP99MsCI   *stats.Interval `json:"ttft_p99_ms_ci,omitempty"`
	ITLP95MsCI    *stats.Interval `json:"itl_p95_ms_ci,omitempty"`
	GoodputTokSCI *stats.Interval `json:"goodput_tok_s_ci,omitempty"`
	OutputTokSCI  *stats.Interval `json:"output_tok_s_ci,omitempty"`
	ErrorRateCI   *stats.Interval `json:"error_rate_ci,omitempty"`
	// SLOOutcome is the knee level's three-valued verdict: "pass", "fail"
	// or "inconclusive"; SLOPass is SLOOutcome == "pass".
	SLOOutcome string `json:"slo_outcome,omitempty"`
	// ReceiveClock is the clock that timed the knee level's latencies:
	// "kernel" (the kernel's receive time of each chunk), "user" (when
	// the client read it) or "mixed" (metrics.Summary.ReceiveClock).
	ReceiveClock string `json:"receive_clock,omitempty"`
}

// Bracket is the knee bracket: the last passing and the first failing load,
// in Unit ("req_s" or "concurrency"). High is nil when no level failed
// ("knee not reached").
type Bracket struct {
	Low  float64  `json:"low"`
	High *float64 `json:"high,omitempty"`
	Unit string   `json:"unit"`
}

// Cost holds cost figures (docs/metrics.md#cost-cpm). Amounts are in Currency
// even though the keys say eur (named for the common case); Currency is "EUR"
// unless OpenCost said otherwise.
type Cost struct {
	// EURPerHour is the deployment's cost rate, currency/h.
	EURPerHour *float64 `json:"eur_per_hour,omitempty"`
	Currency   string   `json:"currency,omitempty"`
	// CPMEUR1M is the cost per 1M output tokens at goodput:
	// EUR/h × 1e6 / (goodput_tok_s × 3600).
	CPMEUR1M *float64 `json:"cpm_eur_1m,omitempty"`
	// CostPerRequestEUR is the cost of one good request: EUR/h / 3600 / goodput_req_s.
	CostPerRequestEUR *float64 `json:"cost_per_request_eur,omitempty"`
	// CostWindowEUR is the cost of the knee level's window: EUR/h × window_s / 3600.
	CostWindowEUR *float64 `json:"cost_window_eur,omitempty"`
	// Source is "flag" (--gpu-cost-eur-h) or "opencost".
	Source string `json:"source,omitempty"`
	// CPMEUR1MCI is the interval of CPMEUR1M, from goodput tok/s's:
	// [EUR/h × 1e6 / (hi × 3600), EUR/h × 1e6 / (lo × 3600)].
	CPMEUR1MCI *stats.Interval `json:"cpm_eur_1m_ci,omitempty"`
	// Tokens prices the knee window's tokens by type (--price): its
	// cpm_eur_1m stands beside the GPU-hour one above. Nil without prices.
	Tokens *TokenCost `json:"tokens,omitempty"`
	// LiteLLM is a LiteLLM proxy's spend over the knee window
	// (--litellm-metrics), in its own price currency. Nil without it.
	LiteLLM *LiteLLMCost `json:"litellm,omitempty"`
}

// Energy holds GPU energy over the knee level's window
// (docs/metrics.md#energy).
type Energy struct {
	// Source is "nvml", "dcgm", "prometheus", "none", or "kepler" when the
	// per-token figures come from Kepler's pod energy (WhPerTokenBasis "pod").
	Source string `json:"source,omitempty"`
	// EnergyJ is Σ_gpu (end − start) / 1000 over the window, J, after
	// subtracting IdleBaselineW × window when a baseline was declared.
	EnergyJ *float64 `json:"energy_j,omitempty"`
	// EnergyGrossJ is the energy before the idle baseline was subtracted, J;
	// present only when a baseline was subtracted.
	EnergyGrossJ *float64 `json:"energy_gross_j,omitempty"`
	// MeanW is EnergyJ / window_s, W.
	MeanW *float64 `json:"mean_w,omitempty"`
	// WhPerToken is EnergyJ / 3600 / output tokens in the window, Wh.
	WhPerToken *float64 `json:"wh_per_token,omitempty"`
	// JPerToken is EnergyJ / output tokens, J.
	JPerToken *float64 `json:"j_per_token,omitempty"`
	// PUE is the declared data-centre power usage effectiveness (≥ 1).
	PUE *float64 `json:"pue,omitempty"`
	// WhPerTokenPUE is WhPerToken × PUE, Wh.
	WhPerTokenPUE *float64 `json:"wh_per_token_pue,omitempty"`
	// IdleBaselineW is the declared idle power subtracted over the window, W.
	IdleBaselineW *float64 `json:"idle_baseline_w,omitempty"`
	// Valid is false when there is no usable reading; the derived figures
	// are then absent.
	Valid bool `json:"valid"`
	// ResetDetected is true when a counter reset was seen and its share of
	// the window estimated from power samples.
	ResetDetected bool `json:"reset_detected,omitempty"`
	// GPUName is the GPU model as NVML or DCGM reports it.
	GPUName string `json:"gpu_name,omitempty"`
	// GPUCount is the number of GPUs whose energy was counted (after any
	// --energy-filter), which may differ from Metadata.GPUCount.
	GPUCount int `json:"gpu_count,omitempty"`
	// WhPerTokenCI and WhPerTokenPUECI are the intervals of WhPerToken and
	// WhPerTokenPUE, from output tok/s's: the energy over the window is
	// read from a counter, so the uncertainty is the token rate's,
	// [E / 3600 / (hi × window), E / 3600 / (lo × window)].
	WhPerTokenCI    *stats.Interval `json:"wh_per_token_ci,omitempty"`
	WhPerTokenPUECI *stats.Interval `json:"wh_per_token_pue_ci,omitempty"`
	// WhPerTokenBasis says which energy the per-token figures divide:
	// "gpu" (the GPUs' counters of Source) or "pod" (Kepler's pod energy,
	// CPU and GPU, used only when no GPU counter gave a usable reading;
	// Source is then "kepler").
	WhPerTokenBasis string `json:"wh_per_token_basis,omitempty"`
	// Pod is Kepler's energy of the benchmarked pod over the same window
	// (--pod-energy), beside the GPUs' own; nil without it.
	Pod *PodEnergy `json:"pod,omitempty"`
	// Plausibility checks WhPerToken against a published reference
	// (--reference); nil without one.
	Plausibility *Plausibility `json:"plausibility,omitempty"`
}

// Carbon holds the emissions estimate (docs/metrics.md#carbon).
type Carbon struct {
	// GridGCO2KWh is the declared grid carbon intensity, gCO2/kWh.
	GridGCO2KWh *float64 `json:"grid_gco2_kwh,omitempty"`
	// GCO2Per1MTokens is Wh/token × 1e6 / 1000 × gCO2/kWh, using the
	// PUE-adjusted Wh/token when a PUE was declared (PUEAdjusted says so).
	GCO2Per1MTokens *float64 `json:"gco2_per_1m_tokens,omitempty"`
	PUEAdjusted     bool     `json:"pue_adjusted,omitempty"`
	// GCO2Per1MTokensCI is its interval, from Wh/token's.
	GCO2Per1MTokensCI *stats.Interval `json:"gco2_per_1m_tokens_ci,omitempty"`
}
