package energy

import (
	"math"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestFormulas(t *testing.T) {
	tests := []struct {
		name                  string
		energyJ               float64
		windowS               float64
		tokens                int64
		pue, grid             float64
		jPerTok, whPerTok     float64
		whPUE, gPerM, meanW   float64
		tolWh, tolJ, tolGrams float64
	}{
		{
			// The vector: 4,924 W at 3,120 tok/s, PUE 1.4, 40 g/kWh.
			name: "issue 4924 W at 3120 tok/s", energyJ: 4924 * 100, windowS: 100, tokens: 3120 * 100,
			pue: 1.4, grid: 40, jPerTok: 1.58, whPerTok: 0.000438, whPUE: 0.000614, gPerM: 24.55, meanW: 4924,
			tolWh: 5e-7, tolJ: 5e-3, tolGrams: 5e-3,
		},
		{
			// testdata/telemetry/FIXTURES.md, section 3: 333,637.666 J over 120 s, 421,308 tokens, 21.7 g/kWh.
			name: "fixture window PUE 1", energyJ: 333637.666, windowS: 120, tokens: 421308,
			pue: 1, grid: 21.7, jPerTok: 0.791909, whPerTok: 2.199748e-4, whPUE: 2.199748e-4, gPerM: 4.7735, meanW: 2780.31388,
			tolWh: 5e-10, tolJ: 5e-7, tolGrams: 5e-5,
		},
		{
			name: "fixture window PUE 1.56", energyJ: 333637.666, windowS: 120, tokens: 421308,
			pue: 1.56, grid: 21.7, jPerTok: 0.791909, whPerTok: 2.199748e-4, whPUE: 2.199748e-4 * 1.56, gPerM: 7.4466, meanW: 2780.31388,
			tolWh: 5e-10, tolJ: 5e-7, tolGrams: 5e-5,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := JoulesPerToken(tc.energyJ, tc.tokens); !near(got, tc.jPerTok, tc.tolJ) {
				t.Errorf("J/token = %v, want %v", got, tc.jPerTok)
			}
			wh := WhPerToken(tc.energyJ, tc.tokens)
			if !near(wh, tc.whPerTok, tc.tolWh) {
				t.Errorf("Wh/token = %v, want %v", wh, tc.whPerTok)
			}
			whp := PUEAdjusted(wh, tc.pue)
			if !near(whp, tc.whPUE, tc.tolWh*2) {
				t.Errorf("PUE-adjusted Wh/token = %v, want %v", whp, tc.whPUE)
			}
			if got := GramsCO2PerMillionTokens(whp, tc.grid); !near(got, tc.gPerM, tc.tolGrams) {
				t.Errorf("gCO2/1M tokens = %v, want %v", got, tc.gPerM)
			}
			if got := MeanWatts(tc.energyJ, tc.windowS); !near(got, tc.meanW, 1e-5) {
				t.Errorf("mean W = %v, want %v", got, tc.meanW)
			}
		})
	}
}

func TestFormulaEdges(t *testing.T) {
	if j, reset := CounterDeltaJ(887431096214, 41237519); !reset || j != 0 {
		t.Errorf("CounterDeltaJ backwards = %v, %v; want 0, reset", j, reset)
	}
	if j, reset := CounterDeltaJ(902884513377, 902967818794); reset || !near(j, 83305.417, 1e-9) {
		t.Errorf("CounterDeltaJ = %v, %v; want 83305.417", j, reset)
	}
	if got := JoulesPerToken(100, 0); got != 0 {
		t.Errorf("J/token with 0 tokens = %v, want 0", got)
	}
	if got := MeanWatts(100, 0); got != 0 {
		t.Errorf("mean W over 0 s = %v, want 0", got)
	}
	if got := PUEAdjusted(2, 0); got != 2 {
		t.Errorf("PUE 0 must mean 1, got %v", got)
	}
}

func TestReadingFigures(t *testing.T) {
	r := Reading{Source: "dcgm", WindowSeconds: 120, GrossEnergyJ: 333637.666, EnergyJ: 333637.666, MeanW: 2780.31388, Valid: true}
	f := r.Figures(421308, 0, 21.7)
	if !f.Valid || f.PUE != 1 {
		t.Fatalf("Figures = %+v", f)
	}
	// README §3: the 120 s window itself is 2.0111 g at PUE 1.
	if !near(f.GCO2Window, 2.0111, 5e-5) {
		t.Errorf("window carbon = %v g, want 2.0111", f.GCO2Window)
	}
	if !near(f.GCO2PerMTokens, 4.7735, 5e-5) {
		t.Errorf("g per 1M = %v, want 4.7735", f.GCO2PerMTokens)
	}
	r.Valid = false
	if r.Figures(421308, 1.2, 0).Valid {
		t.Error("an invalid Reading gave valid Figures")
	}
	if f := r.Figures(421308, 1.2, 0); f.GCO2PerMTokens != 0 || f.GCO2Window != 0 {
		t.Errorf("no grid intensity must give no carbon, got %+v", f)
	}
}
