package scorecard

import (
	"math"
	"slices"
	"testing"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
)

// near reports whether got equals want to the given number of significant
// digits (the precision the worked example of
// docs/metrics.md#a-worked-example is quoted at).
func near(got, want float64, digits int) bool {
	if want == 0 {
		return got == 0
	}
	return math.Abs(got-want) <= 0.5*math.Pow(10, math.Floor(math.Log10(math.Abs(want)))-float64(digits-1))
}

func TestFormulas(t *testing.T) {
	// The worked example of docs/metrics.md#a-worked-example: 3,120 tok/s at
	// 10.8 EUR/h on a 4,924 W deployment, PUE 1.4, grid 40 gCO2/kWh. A 100 s
	// window: E = 492,400 J, 312,000 tokens.
	const window, tokS, watts = 100.0, 3120.0, 4924.0
	energy, tokens := watts*window, tokS*window
	wh := whPerToken(energy, tokens)
	tests := []struct {
		name   string
		got    float64
		want   float64
		digits int
	}{
		{"CPM EUR/1M", cpmPer1M(10.8, tokS), 0.96, 2},
		{"Wh/token", wh, 0.000438, 3},
		{"J/token", jPerToken(energy, tokens), 1.58, 3},
		{"Wh/token x PUE", wh * 1.4, 0.000614, 3},
		{"gCO2/1M tokens at PUE 1.4", gco2Per1M(wh*1.4, 40), 24.55, 4},
		{"mean W", meanW(energy, window), 4924, 4},
		{"cost of a 100 s window", costWindow(10.8, window), 0.3, 4},
		{"cost per request at 12 req/s", costPerRequest(10.8, 12), 0.00025, 4},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want, tt.digits) {
			t.Errorf("%s = %g, want %g (%d significant digits)", tt.name, tt.got, tt.want, tt.digits)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// specInputs is the worked example of docs/metrics.md#a-worked-example as
// Build inputs.
func specInputs() Inputs {
	return Inputs{
		Metadata: completeMetadata("run-spec"),
		Performance: Performance{
			GoodputTokS:  ptr(3120.0),
			GoodputReqS:  ptr(12.0),
			OutputTokS:   ptr(3200.0),
			TTFTP99Ms:    ptr(312.5),
			WindowS:      ptr(100.0),
			OutputTokens: ptr(int64(312000)),
			SLOPass:      ptr(true),
		},
		Energy:      EnergyReading{Source: "nvml", Valid: true, EnergyJ: 492400, GPUName: "NVIDIA H100 80GB HBM3", GPUCount: 4},
		Cost:        CostRate{EURPerHour: 10.8, Source: "flag"},
		PUE:         1.4,
		GridGCO2KWh: 40,
	}
}

func completeMetadata(runID string) Metadata {
	return Metadata{
		Engine: "vllm-0.9.1", ModelRevision: "a1b2c3d", Precision: "fp8",
		Tokenizer: "Qwen/Qwen3-8B", TokenizerSHA256: "9c1e0f5a1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccd",
		ISLTokens: 1024, OSLTokens: 256, Hardware: "4xH100-SXM-80GB", MaxConcurrencyTested: 128,
		ToolVersion: "v0.1.0", ToolCommit: "511bc54", SLO: "ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%",
		Warmup: "30s", RunID: runID,
	}
}

func TestBuildSpecExample(t *testing.T) {
	sc := Build(specInputs())
	checks := []struct {
		name   string
		got    *float64
		want   float64
		digits int
	}{
		{"cpm_eur_1m", sc.Cost.CPMEUR1M, 0.96, 2},
		{"cost_window_eur", sc.Cost.CostWindowEUR, 0.3, 4},
		{"cost_per_request_eur", sc.Cost.CostPerRequestEUR, 0.00025, 4},
		{"energy_j", sc.Energy.EnergyJ, 492400, 6},
		{"mean_w", sc.Energy.MeanW, 4924, 4},
		{"wh_per_token", sc.Energy.WhPerToken, 0.000438, 3},
		{"j_per_token", sc.Energy.JPerToken, 1.58, 3},
		{"wh_per_token_pue", sc.Energy.WhPerTokenPUE, 0.000614, 3},
		{"gco2_per_1m_tokens", sc.Carbon.GCO2Per1MTokens, 24.55, 4},
	}
	for _, c := range checks {
		if c.got == nil {
			t.Errorf("%s missing", c.name)
			continue
		}
		if !near(*c.got, c.want, c.digits) {
			t.Errorf("%s = %g, want %g", c.name, *c.got, c.want)
		}
	}
	if sc.Status != StatusAuditable || len(sc.Missing) != 0 {
		t.Errorf("status %q missing %v, want auditable", sc.Status, sc.Missing)
	}
	if !sc.Energy.Valid || !sc.Carbon.PUEAdjusted || sc.Cost.Currency != "EUR" || sc.SchemaVersion != SchemaVersion {
		t.Errorf("energy valid %v, pue adjusted %v, currency %q, schema %q", sc.Energy.Valid, sc.Carbon.PUEAdjusted, sc.Cost.Currency, sc.SchemaVersion)
	}
	if len(sc.Warnings) != 0 {
		t.Errorf("warnings %v, want none", sc.Warnings)
	}
}

func codes(ws []metrics.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, string(w.Code))
	}
	return out
}

func TestBuildMissingFigures(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Inputs)
		check func(t *testing.T, sc Scorecard)
		warn  []string
	}{
		{
			name: "no cost rate: no cost figures",
			edit: func(in *Inputs) { in.Cost = CostRate{} },
			check: func(t *testing.T, sc Scorecard) {
				if sc.Cost != (Cost{}) {
					t.Errorf("cost = %+v, want empty", sc.Cost)
				}
			},
		},
		{
			name: "zero goodput: CPM absent, warned",
			edit: func(in *Inputs) { in.Performance.GoodputTokS, in.Performance.GoodputReqS = ptr(0.0), ptr(0.0) },
			check: func(t *testing.T, sc Scorecard) {
				if sc.Cost.CPMEUR1M != nil || sc.Cost.CostPerRequestEUR != nil || sc.Cost.CostWindowEUR == nil {
					t.Errorf("cost = %+v, want only the window cost", sc.Cost)
				}
				if sc.Performance.GoodputTokS == nil || *sc.Performance.GoodputTokS != 0 {
					t.Errorf("a measured zero goodput must stay present as 0")
				}
			},
			warn: []string{string(WarnNoGoodput)},
		},
		{
			name: "energy source none: no energy, no carbon figure, no warning",
			edit: func(in *Inputs) { in.Energy = EnergyReading{} },
			check: func(t *testing.T, sc Scorecard) {
				e := sc.Energy
				if e.Valid || e.EnergyJ != nil || e.WhPerToken != nil || e.Source != "none" || sc.Carbon.GCO2Per1MTokens != nil {
					t.Errorf("energy = %+v carbon = %+v, want none", e, sc.Carbon)
				}
				if sc.Carbon.GridGCO2KWh == nil {
					t.Errorf("declared grid intensity lost")
				}
			},
		},
		{
			name: "invalid reading from a real source is warned",
			edit: func(in *Inputs) { in.Energy.Valid = false },
			check: func(t *testing.T, sc Scorecard) {
				if sc.Energy.WhPerToken != nil || sc.Energy.Source != "nvml" {
					t.Errorf("energy = %+v", sc.Energy)
				}
			},
			warn: []string{string(WarnEnergyInvalid)},
		},
		{
			name: "idle baseline subtracted and declared",
			edit: func(in *Inputs) { in.IdleBaselineW = 924 },
			check: func(t *testing.T, sc Scorecard) {
				e := sc.Energy
				if e.EnergyGrossJ == nil || *e.EnergyGrossJ != 492400 || e.EnergyJ == nil || *e.EnergyJ != 400000 || *e.MeanW != 4000 || *e.IdleBaselineW != 924 {
					t.Errorf("energy = %+v", e)
				}
			},
		},
		{
			name: "idle baseline above the reading",
			edit: func(in *Inputs) { in.IdleBaselineW = 6000 },
			check: func(t *testing.T, sc Scorecard) {
				if sc.Energy.Valid || sc.Energy.EnergyJ != nil {
					t.Errorf("energy = %+v, want invalid", sc.Energy)
				}
			},
			warn: []string{string(WarnBaselineTooHigh)},
		},
		{
			name: "no PUE: carbon from GPU energy",
			edit: func(in *Inputs) { in.PUE = 0 },
			check: func(t *testing.T, sc Scorecard) {
				if sc.Energy.WhPerTokenPUE != nil || sc.Carbon.PUEAdjusted || !near(*sc.Carbon.GCO2Per1MTokens, 17.54, 4) {
					t.Errorf("energy = %+v carbon = %+v", sc.Energy, sc.Carbon)
				}
			},
		},
		{
			name: "PUE below 1 ignored",
			edit: func(in *Inputs) { in.PUE = 0.9 },
			check: func(t *testing.T, sc Scorecard) {
				if sc.Energy.PUE != nil {
					t.Errorf("pue = %v", *sc.Energy.PUE)
				}
			},
			warn: []string{string(WarnPUEOutOfRange)},
		},
		{
			name: "no tokens: per-token energy absent",
			edit: func(in *Inputs) { in.Performance.OutputTokens = ptr(int64(0)) },
			check: func(t *testing.T, sc Scorecard) {
				if sc.Energy.WhPerToken != nil || sc.Energy.MeanW == nil {
					t.Errorf("energy = %+v", sc.Energy)
				}
			},
			warn: []string{string(WarnNoOutputTokens)},
		},
		{
			name: "NaN figures become absent",
			edit: func(in *Inputs) { in.Performance.TTFTP99Ms = ptr(math.NaN()); in.Cost.EURPerHour = math.Inf(1) },
			check: func(t *testing.T, sc Scorecard) {
				if sc.Performance.TTFTP99Ms != nil || sc.Cost.EURPerHour != nil {
					t.Errorf("NaN/Inf kept")
				}
			},
		},
		{
			name: "missing metadata: anecdote",
			edit: func(in *Inputs) { in.Metadata.SLO, in.Metadata.TokenizerSHA256 = "", "" },
			check: func(t *testing.T, sc Scorecard) {
				if sc.Status != StatusAnecdote || !slices.Equal(sc.Missing, []string{"tokenizer_sha256", "slo"}) {
					t.Errorf("status %q missing %v", sc.Status, sc.Missing)
				}
			},
			warn: []string{string(WarnAnecdote)},
		},
		{
			name: "counter reset warned",
			edit: func(in *Inputs) { in.Energy.ResetDetected = true },
			check: func(t *testing.T, sc Scorecard) {
				if !sc.Energy.ResetDetected || sc.Energy.WhPerToken == nil {
					t.Errorf("energy = %+v", sc.Energy)
				}
			},
			warn: []string{string(WarnEnergyReset)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := specInputs()
			tt.edit(&in)
			sc := Build(in)
			tt.check(t, sc)
			if got := codes(sc.Warnings); !slices.Equal(got, tt.warn) {
				t.Errorf("warnings %v, want %v", got, tt.warn)
			}
		})
	}
}

func TestBuildSharesNoMemory(t *testing.T) {
	in := specInputs()
	in.Metadata.Labels = map[string]string{"team": "a"}
	sc := Build(in)
	*in.Performance.TTFTP99Ms = 1
	in.Metadata.Labels["team"] = "b"
	if *sc.Performance.TTFTP99Ms != 312.5 || sc.Metadata.Labels["team"] != "a" {
		t.Errorf("Build kept references into its input")
	}
}

func TestKneePerformance(t *testing.T) {
	s := metrics.Summary{
		WindowSeconds:         60,
		OutputTokensPerSecond: 3120,
		ErrorRate:             0.002,
		Requests:              metrics.RequestCounts{OK: 998, Failed: 2},
		TTFT:                  metrics.Distribution{Count: 1000, P99: 312.5},
		ITL:                   metrics.Distribution{Count: 1000, P95: 21.5},
		Goodput:               metrics.Goodput{RequestsPerSecond: 11.5, OutputTokensPerSecond: 2990},
	}
	p := KneePerformance(s, true)
	if *p.OutputTokS != 3120 || *p.TTFTP99Ms != 312.5 || *p.ITLP95Ms != 21.5 || *p.ErrorRate != 0.002 ||
		*p.OutputTokens != 187200 || *p.GoodputTokS != 2990 || *p.GoodputReqS != 11.5 || *p.WindowS != 60 {
		t.Errorf("KneePerformance = %+v", p)
	}
	if p.E2EP99Ms != nil {
		t.Errorf("E2E P99 without samples = %v, want absent", *p.E2EP99Ms)
	}
	if p := KneePerformance(s, false); p.GoodputTokS != nil || p.GoodputReqS != nil {
		t.Errorf("goodput without an SLO must be absent")
	}
}

// TestIntervalsPropagate: CPM's interval comes from goodput's, Wh/token's
// from output tok/s's, carbon's from Wh/token's; each is the reciprocal
// map, so a higher rate bounds the cost from below.
func TestIntervalsPropagate(t *testing.T) {
	s := metrics.Summary{
		WindowSeconds:         100,
		Requests:              metrics.RequestCounts{Sent: 1000, OK: 1000},
		OutputTokensPerSecond: 1000, OutputTokensPerSecondCI: stats.Interval{Lo: 900, Hi: 1100},
		Goodput: metrics.Goodput{OutputTokensPerSecond: 800, OutputTokensPerSecondCI: stats.Interval{Lo: 700, Hi: 900}, RequestsPerSecond: 4},
	}
	p := KneePerformance(s, true)
	sc := Build(Inputs{Performance: p, Cost: CostRate{EURPerHour: 3.6}, Energy: EnergyReading{Source: "nvml", Valid: true, EnergyJ: 36000},
		PUE: 1.5, GridGCO2KWh: 100})
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	cpm := sc.Cost.CPMEUR1MCI
	// CPM = 3.6 × 1e6 / (g × 3600) = 1000 / g.
	if cpm == nil || !near(cpm.Lo, 1000.0/900) || !near(cpm.Hi, 1000.0/700) || !cpm.Contains(*sc.Cost.CPMEUR1M) {
		t.Errorf("CPM %v, interval %v; want [1.111, 1.429]", *sc.Cost.CPMEUR1M, cpm)
	}
	// Wh/token = 36000 J / 3600 / (tok/s × 100 s) = 0.1 / tok/s.
	wh := sc.Energy.WhPerTokenCI
	if wh == nil || !near(wh.Lo, 0.1/1100) || !near(wh.Hi, 0.1/900) || !wh.Contains(*sc.Energy.WhPerToken) {
		t.Errorf("Wh/token %v, interval %v", *sc.Energy.WhPerToken, wh)
	}
	if pue := sc.Energy.WhPerTokenPUECI; pue == nil || !near(pue.Hi, 1.5*wh.Hi) {
		t.Errorf("PUE-adjusted interval %v", pue)
	}
	if c := sc.Carbon.GCO2Per1MTokensCI; c == nil || !c.Contains(*sc.Carbon.GCO2Per1MTokens) {
		t.Errorf("carbon %v, interval %v", *sc.Carbon.GCO2Per1MTokens, c)
	}
	// A repeated level: the wider of within and between.
	s.Repeats = &metrics.Repeats{Runs: 3, Figures: []metrics.RepeatFigure{
		{Name: metrics.FigureGoodputTokS, Between: stats.Interval{Lo: 500, Hi: 1100}, Within: s.Goodput.OutputTokensPerSecondCI},
	}}
	if g := KneePerformance(s, true).GoodputTokSCI; g == nil || g.Lo != 500 {
		t.Errorf("repeated goodput interval %v, want the between-run [500, 1100]", g)
	}
}
