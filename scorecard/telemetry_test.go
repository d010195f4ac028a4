package scorecard

import (
	"math"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
)

func close(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// windowInputs: a 100 s window with 25,000 output tokens (250 tok/s,
// interval [200, 300]) and 100,000 prompt tokens of which 40,000 cached;
// 400 requests of mean ISL 250 and OSL 62.5.
func windowInputs() Inputs {
	return Inputs{
		Metadata: completeMetadata("run-tokens"),
		Performance: Performance{
			OutputTokS:   ptr(250.0),
			OutputTokSCI: &stats.Interval{Lo: 200, Hi: 300},
			WindowS:      ptr(100.0),
			OutputTokens: ptr(int64(25000)),
		},
		Tokens: TokenCounts{Input: 100000, CachedInput: 40000, MeanPrompt: 250, MeanOutput: 62.5,
			MeanPromptCI: stats.Interval{Lo: 240, Hi: 260}, MeanOutputCI: stats.Interval{Lo: 60, Hi: 65}},
	}
}

// --price input=0.50,output=1.50,cached_input=0.10 over that window, by hand:
//
//	uncached input 60,000 × 0.50 / 1e6 = 0.030 EUR
//	cached input   40,000 × 0.10 / 1e6 = 0.004 EUR
//	output         25,000 × 1.50 / 1e6 = 0.0375 EUR
//	window                               0.0715 EUR
//	CPM     = 0.0715 × 1e6 / 25,000      = 2.86 EUR per 1M output tokens
//	          (input 1.2 + cached 0.16 + output 1.5)
//	blended = 0.0715 × 1e6 / 125,000     = 0.572 EUR per 1M tokens
//	per request: cached share 0.4, prompt price (0.6 × 0.5 + 0.4 × 0.1) / 1e6
//	          = 0.34e-6 EUR/token; 250 × 0.34e-6 + 62.5 × 1.5e-6 = 0.00017875 EUR
func TestTokenCost(t *testing.T) {
	in := windowInputs()
	in.Prices = &TokenPrices{Input: 0.5, Output: 1.5, CachedInput: ptr(0.1)}
	sc := Build(in)
	c := sc.Cost.Tokens
	if c == nil {
		t.Fatalf("no token cost; warnings %v", sc.Warnings)
	}
	if c.InputTokens != 100000 || c.CachedInputTokens != 40000 || c.OutputTokens != 25000 {
		t.Errorf("counts %+v", c)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"input EUR", c.InputEUR, 0.030}, {"cached EUR", c.CachedInputEUR, 0.004}, {"output EUR", c.OutputEUR, 0.0375},
		{"window EUR", c.WindowEUR, 0.0715}, {"CPM", *c.CPMEUR1M, 2.86},
		{"CPM input", c.CPMByType.Input, 1.2}, {"CPM cached", c.CPMByType.CachedInput, 0.16}, {"CPM output", c.CPMByType.Output, 1.5},
		{"blended", *c.BlendedEUR1M, 0.572}, {"per request", *c.CostPerRequestEUR, 0.00017875},
		// Intervals: output tok/s [200, 300] → CPM 1.5 + 0.034 × 1e6 / 100 / [300, 200]
		{"CPM lo", c.CPMEUR1MCI.Lo, 1.5 + 340.0/300}, {"CPM hi", c.CPMEUR1MCI.Hi, 1.5 + 340.0/200},
		// blended with 30,000 and 20,000 output tokens
		{"blended lo", c.BlendedEUR1MCI.Lo, (34000 + 20000*1.5) / 120000.0}, {"blended hi", c.BlendedEUR1MCI.Hi, (34000 + 30000*1.5) / 130000.0},
		{"per request lo", c.CostPerRequestEURCI.Lo, 240*0.34e-6 + 60*1.5e-6}, {"per request hi", c.CostPerRequestEURCI.Hi, 260*0.34e-6 + 65*1.5e-6},
	} {
		if !close(f.got, f.want) {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	if c.CPMEUR1MCI.Contains(*c.CPMEUR1M) == false || c.BlendedEUR1MCI.Contains(*c.BlendedEUR1M) == false {
		t.Errorf("intervals do not hold their estimates: %v %v", c.CPMEUR1MCI, c.BlendedEUR1MCI)
	}
	// Without a cached price, cached tokens cost as input: 100,000 × 0.5.
	in.Prices = &TokenPrices{Input: 0.5, Output: 1.5}
	if c := Build(in).Cost.Tokens; !close(c.WindowEUR, 0.05+0.0375) {
		t.Errorf("no cached price: window %v", c.WindowEUR)
	}
	// No output tokens: no figure, a warning.
	in.Performance.OutputTokens = ptr(int64(0))
	sc = Build(in)
	if sc.Cost.Tokens != nil || !hasCode(sc.Warnings, WarnNoTokenCost) {
		t.Errorf("no tokens: %+v, %v", sc.Cost.Tokens, sc.Warnings)
	}
}

func hasCode(ws []metrics.Warning, code metrics.WarningCode) bool {
	for _, w := range ws {
		if w.Code == code {
			return true
		}
	}
	return false
}

func TestLiteLLMCost(t *testing.T) {
	in := windowInputs()
	in.LiteLLM = &LiteLLMReading{Valid: true, Via: "scrape", Filter: `requested_model="llama-70b"`,
		InputTokens: ptr(1104512.0), OutputTokens: ptr(421308.0), Spend: ptr(1.184218)}
	c := Build(in).Cost.LiteLLM
	if c == nil || c.CPM1M == nil || math.Abs(*c.CPM1M-2.810813) > 5e-7 || *c.Spend != 1.184218 {
		t.Errorf("litellm cost %+v", c)
	}
	in.LiteLLM.Valid = false
	if c := Build(in).Cost.LiteLLM; c != nil {
		t.Errorf("an invalid reading gave %+v", c)
	}
}

// The fixtures' pod: 325,147.666 J of Kepler pod energy over 421,308
// output tokens; GPU counters 333,637.666 J.
func TestPodEnergy(t *testing.T) {
	in := Inputs{
		Metadata:    completeMetadata("run-pod"),
		Performance: Performance{OutputTokS: ptr(3510.9), WindowS: ptr(120.0), OutputTokens: ptr(int64(421308)), OutputTokSCI: &stats.Interval{Lo: 3400, Hi: 3600}},
		Energy:      EnergyReading{Source: "dcgm", Valid: true, EnergyJ: 333637.666, GPUCount: 4},
		Pod: &PodReading{Source: "kepler", Via: "prometheus", Generation: "0.10+", Scope: "pod", Selector: "namespace=inference", Valid: true,
			EnergyJ: 325147.666, CPUJ: 24480, GPUJ: 300667.666,
			Gap: &PodGap{GPUJ: 333637.666, GapJ: 32970, GapFraction: 32970 / 333637.666, KeplerIdleJ: ptr(32970.0), Reason: "idle"}},
	}
	sc := Build(in)
	e := sc.Energy
	if e.WhPerTokenBasis != BasisGPU || e.Source != "dcgm" || !close(*e.EnergyJ, 333637.666) {
		t.Errorf("GPU basis: %s %s %v", e.WhPerTokenBasis, e.Source, *e.EnergyJ)
	}
	p := e.Pod
	if p == nil || !p.Valid || !close(*p.EnergyJ, 325147.666) || !close(*p.WhPerToken, 325147.666/3600/421308) ||
		!close(*p.GPUGapJ, 32970) || !close(*p.KeplerIdleJ, 32970) || p.GapReason != "idle" {
		t.Fatalf("pod = %+v", p)
	}
	if !close(p.WhPerTokenCI.Lo, 325147.666/3600/120/3600) || !close(p.WhPerTokenCI.Hi, 325147.666/3600/120/3400) {
		t.Errorf("pod Wh/token interval %v", p.WhPerTokenCI)
	}
	// No GPU counter: Wh/token falls back to the pod's energy, and says so.
	in.Energy = EnergyReading{Source: "none"}
	in.IdleBaselineW = 60
	sc = Build(in)
	e = sc.Energy
	if !e.Valid || e.WhPerTokenBasis != BasisPod || e.Source != "kepler" || !close(*e.WhPerToken, 325147.666/3600/421308) ||
		e.IdleBaselineW != nil || !hasCode(sc.Warnings, WarnEnergyFromPod) {
		t.Errorf("pod basis: %+v, warnings %v", e, sc.Warnings)
	}
	// An invalid pod reading is shown as such, without figures.
	in.Pod.Valid = false
	sc = Build(in)
	if sc.Energy.Valid || sc.Energy.Pod == nil || sc.Energy.Pod.Valid || sc.Energy.Pod.EnergyJ != nil {
		t.Errorf("invalid pod: %+v", sc.Energy.Pod)
	}
}

func TestPlausibility(t *testing.T) {
	base := func() Inputs {
		return Inputs{
			Metadata:    completeMetadata("run-ref"),
			Performance: Performance{OutputTokS: ptr(3510.9), WindowS: ptr(120.0), OutputTokens: ptr(int64(421308)), OutputTokSCI: &stats.Interval{Lo: 3400, Hi: 3600}},
			Energy:      EnergyReading{Source: "dcgm", Valid: true, EnergyJ: 333637.666},
		}
	}
	const wh = 333637.666 / 3600 / 421308 // 2.19975e-4 Wh/token
	src := "MLPerf Inference v5.0, Llama-2-70B, 8xH100, server scenario"
	for _, tc := range []struct {
		name    string
		ref     float64
		ci      *stats.Interval
		verdict string
		warning metrics.WarningCode
	}{
		{"same", 0.00022, nil, VerdictPlausible, ""},
		{"1.9 times", wh / 1.9, nil, VerdictPlausible, ""},
		{"a third", wh * 3, nil, VerdictImplausible, WarnImplausibleEnergy},
		{"5 times", wh / 5, nil, VerdictImplausible, WarnImplausibleEnergy},
		{"straddles 2", wh / 1.98, &stats.Interval{Lo: 3000, Hi: 4000}, VerdictInconclusive, WarnPlausibilityOpen},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			if tc.ci != nil {
				in.Performance.OutputTokSCI = tc.ci
			}
			in.Reference = &Reference{WhPerToken: tc.ref, Source: src}
			sc := Build(in)
			p := sc.Energy.Plausibility
			if p == nil || p.Verdict != tc.verdict || !close(p.Ratio, wh/tc.ref) || p.Factor != 2 || p.Source != src {
				t.Fatalf("plausibility %+v", p)
			}
			if tc.warning == "" {
				if hasCode(sc.Warnings, WarnImplausibleEnergy) || hasCode(sc.Warnings, WarnPlausibilityOpen) {
					t.Errorf("warnings %v", sc.Warnings)
				}
				return
			}
			var msg string
			for _, w := range sc.Warnings {
				if w.Code == tc.warning {
					msg = w.Message
				}
			}
			// Both figures and the source are in the warning.
			if !strings.Contains(msg, "0.00022") || !strings.Contains(msg, src) {
				t.Errorf("warning %q", msg)
			}
		})
	}
	// No Wh/token: the reference cannot be checked, and the scorecard says so.
	in := base()
	in.Energy.Valid = false
	in.Reference = &Reference{WhPerToken: 0.00044, Source: src}
	if sc := Build(in); sc.Energy.Plausibility != nil || !hasCode(sc.Warnings, WarnReferenceUnchecked) {
		t.Errorf("unchecked: %+v %v", sc.Energy.Plausibility, sc.Warnings)
	}
}

func TestParseReference(t *testing.T) {
	for _, tc := range []struct {
		in     string
		wh     float64
		source string
	}{
		{"wh_per_token=0.00044,source=MLPerf Inference v5.0, 8xH100, Llama-2-70B", 0.00044, "MLPerf Inference v5.0, 8xH100, Llama-2-70B"},
		{" source = my lab,  wh_per_token=0.001", 0, ""}, // source first: the figure is part of the source text
		{"tokens_per_j=2.5,source=x", 1 / (2.5 * 3600), "x"},
		{"# a reference file\nwh_per_token=0.0003\nsource=MLPerf Inference v4.1\n  closed division\n", 0.0003, "MLPerf Inference v4.1 closed division"},
	} {
		r, err := ParseReference(tc.in)
		if tc.source == "" {
			if err == nil {
				t.Errorf("%q: want an error (no figure before source), got %+v", tc.in, r)
			}
			continue
		}
		if err != nil || !close(r.WhPerToken, tc.wh) || r.Source != tc.source {
			t.Errorf("%q: %+v, %v; want %v, %q", tc.in, r, err, tc.wh, tc.source)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "give wh_per_token= or tokens_per_j="},
		{"wh_per_token=0.00044", "source= is required"},
		{"wh_per_token=-1,source=x", "want a number > 0"},
		{"wh_per_token=abc,source=x", "want a number > 0"},
		{"joules=3,source=x", "the figures are wh_per_token and tokens_per_j"},
		{"wh_per_token=1,tokens_per_j=2,source=x", "not both"},
		{"0.00044,source=x", "want KEY=VALUE"},
	} {
		_, err := ParseReference(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "reference") {
			t.Errorf("%q: %v, want an error naming the reference with %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseReference(f *testing.F) {
	f.Add("wh_per_token=0.00044,source=MLPerf Inference v5.0, 8xH100")
	f.Add("tokens_per_j=2.5\nsource=x\n")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReference(s)
		if err != nil {
			if !strings.Contains(err.Error(), "reference") {
				t.Fatalf("error without the reference: %v", err)
			}
			return
		}
		if !(r.WhPerToken > 0) || math.IsInf(r.WhPerToken, 0) || r.Source == "" {
			t.Fatalf("%q accepted as %+v", s, r)
		}
	})
}

// --cost-basis: pareto and the aggregate CSV compare on the chosen CPM.
func TestCostBasis(t *testing.T) {
	card := func(id string, gpuCPM, tokCPM float64) Scorecard {
		pass := true
		return Scorecard{Metadata: Metadata{RunID: id},
			Performance: Performance{TTFTP99Ms: ptr(100.0), SLOPass: &pass},
			Energy:      Energy{WhPerToken: ptr(0.0002)},
			Cost:        Cost{CPMEUR1M: ptr(gpuCPM), Tokens: &TokenCost{CPMEUR1M: ptr(tokCPM)}}}
	}
	cards := []Scorecard{card("a", 1, 3), card("b", 2, 2)}
	front, _ := Pareto(cards, nil)
	if len(front) != 1 || front[0].Metadata.RunID != "a" {
		t.Errorf("gpu_hour frontier %v", front)
	}
	front, dropped := Pareto(cards, nil, WithCostBasis(CostTokens))
	if len(front) != 1 || front[0].Metadata.RunID != "b" || dropped[0].DominatedBy != "b" {
		t.Errorf("tokens frontier %v, dropped %v", front, dropped)
	}
	var b strings.Builder
	if err := WriteParetoText(&b, front, dropped, WithCostBasis(CostTokens)); err != nil || !strings.Contains(b.String(), "token_cpm_eur_1m") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
	// A row without the basis's figure is dropped, saying which.
	_, dropped = Pareto(cards, nil, WithCostBasis(CostLiteLLM))
	if len(dropped) != 2 || !strings.Contains(dropped[0].Reason, "litellm_cpm_1m") {
		t.Errorf("litellm basis: %v", dropped)
	}
	b.Reset()
	if err := WriteCSV(&b, cards, WithCostBasis(CostTokens)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasSuffix(lines[0], ",cost_basis,cpm_1m") || !strings.HasSuffix(lines[1], ",tokens,3") || !strings.HasSuffix(lines[2], ",tokens,2") {
		t.Errorf("csv:\n%s", b.String())
	}
	for _, s := range []string{"", "gpu_hour", "tokens", "litellm"} {
		if _, err := ParseCostBasis(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseCostBasis("usd"); err == nil || !strings.Contains(err.Error(), `cost basis "usd"`) {
		t.Errorf("bad basis: %v", err)
	}
}
