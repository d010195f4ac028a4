package energy

// The energy and carbon formulas of docs/metrics.md#energy-per-token and
// docs/metrics.md#carbon, each a pure function. Units are in the names: J
// (joules), Wh (watt-hours), W (watts), mJ, s, tokens, gCO2/kWh.

// CounterDeltaJ returns one GPU's energy over a window from its total-energy
// counter: E_J = (end − start) mJ / 1000 (docs/metrics.md#energy; NVML
// nvmlDeviceGetTotalEnergyConsumption and DCGM field 156 count mJ). reset is
// true when the counter went backwards (driver reload, GPU reset); joules is
// then 0 and the caller must estimate or mark the window invalid.
func CounterDeltaJ(startMJ, endMJ float64) (joules float64, reset bool) {
	if endMJ < startMJ {
		return 0, true
	}
	return (endMJ - startMJ) / 1000, false
}

// JoulesPerToken = E_J / output_tokens (docs/metrics.md#energy-per-token). 0
// when tokens <= 0.
func JoulesPerToken(energyJ float64, outputTokens int64) float64 {
	if outputTokens <= 0 {
		return 0
	}
	return energyJ / float64(outputTokens)
}

// WhPerToken = E_J / 3600 / output_tokens_in_window
// (docs/metrics.md#energy-per-token). 0 when tokens <= 0.
func WhPerToken(energyJ float64, outputTokens int64) float64 {
	return JoulesPerToken(energyJ, outputTokens) / 3600
}

// MeanWatts = E_J / window_s (docs/metrics.md#energy). 0 when the window is
// empty.
func MeanWatts(energyJ, windowS float64) float64 {
	if windowS <= 0 {
		return 0
	}
	return energyJ / windowS
}

// PUEAdjusted = Wh/token × PUE (docs/metrics.md#energy-per-token): facility
// energy (cooling, power conversion) per token. A PUE of 0 means "not
// declared" and is taken as 1.
func PUEAdjusted(whPerToken, pue float64) float64 {
	if pue == 0 {
		pue = 1
	}
	return whPerToken * pue
}

// GramsCO2PerMillionTokens = Wh/token × 1e6 / 1000 × gCO2/kWh
// (docs/metrics.md#carbon): grams of CO2(e) per 1M tokens at a grid carbon
// intensity. Pass the PUE-adjusted Wh/token for facility-level carbon.
func GramsCO2PerMillionTokens(whPerToken, gramsPerKWh float64) float64 {
	return whPerToken * 1e6 / 1000 * gramsPerKWh
}

// Figures are the per-token energy and carbon figures of one window, ready
// for the scorecard (keys carry units).
type Figures struct {
	// Valid is copied from the Reading: false after a counter reset, a
	// stale counter or a missing GPU. Never report invalid figures as valid.
	Valid         bool    `json:"valid"`
	Source        string  `json:"source"`
	WindowSeconds float64 `json:"window_s"`
	OutputTokens  int64   `json:"output_tokens"`
	EnergyJ       float64 `json:"energy_j"` // after the idle baseline, if any
	IdleBaselineW float64 `json:"idle_baseline_w"`
	MeanW         float64 `json:"mean_w"`
	JPerToken     float64 `json:"j_per_token"`
	WhPerToken    float64 `json:"wh_per_token"`
	PUE           float64 `json:"pue"`
	WhPerTokenPUE float64 `json:"wh_per_token_pue"`
	// GridGCO2PerKWh is the declared grid intensity; 0: not declared, and
	// the carbon figures are 0.
	GridGCO2PerKWh float64 `json:"grid_gco2_kwh"`
	// GCO2PerMTokens uses the PUE-adjusted Wh/token.
	GCO2PerMTokens float64 `json:"gco2_per_1m_tokens"`
	// GCO2Window is the window's carbon, g: E_J / 3.6e6 kWh × PUE × g/kWh.
	GCO2Window float64 `json:"gco2_window"`
}

// Figures computes the per-token figures of r for the output tokens that
// arrived in the same window, at PUE pue (0: 1) and grid intensity
// gramsPerKWh (0: no carbon figures).
func (r Reading) Figures(outputTokens int64, pue, gramsPerKWh float64) Figures {
	if pue == 0 {
		pue = 1
	}
	wh := WhPerToken(r.EnergyJ, outputTokens)
	f := Figures{
		Valid: r.Valid, Source: r.Source, WindowSeconds: r.WindowSeconds,
		OutputTokens: outputTokens, EnergyJ: r.EnergyJ, IdleBaselineW: r.IdleBaselineW,
		MeanW: r.MeanW, JPerToken: JoulesPerToken(r.EnergyJ, outputTokens),
		WhPerToken: wh, PUE: pue, WhPerTokenPUE: PUEAdjusted(wh, pue),
		GridGCO2PerKWh: gramsPerKWh,
	}
	if gramsPerKWh > 0 {
		f.GCO2PerMTokens = GramsCO2PerMillionTokens(f.WhPerTokenPUE, gramsPerKWh)
		f.GCO2Window = r.EnergyJ / 3.6e6 * pue * gramsPerKWh
	}
	return f
}
