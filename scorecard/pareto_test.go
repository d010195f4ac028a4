package scorecard

import (
	"slices"
	"strings"
	"testing"
)

// card is a hand-made scorecard with the three Pareto figures (a negative
// value means absent) and an SLO verdict.
func card(runID string, cpm, wh, ttft float64, pass bool) Scorecard {
	opt := func(v float64) *float64 {
		if v < 0 {
			return nil
		}
		return ptr(v)
	}
	return Scorecard{
		SchemaVersion: SchemaVersion,
		Metadata:      Metadata{RunID: runID, SLO: "ttft_p99<=500ms"},
		Performance:   Performance{TTFTP99Ms: opt(ttft), SLOPass: ptr(pass), ErrorRate: ptr(0.001)},
		Cost:          Cost{CPMEUR1M: opt(cpm)},
		Energy:        Energy{WhPerToken: opt(wh)},
	}
}

func ids(cards []Scorecard) []string {
	var out []string
	for _, c := range cards {
		out = append(out, c.Metadata.RunID)
	}
	return out
}

func TestPareto(t *testing.T) {
	type drop struct{ id, reason string }
	tests := []struct {
		name     string
		cards    []Scorecard
		check    SLOCheck
		frontier []string
		dropped  []drop
	}{
		{
			name: "one dominated and one SLO-violating row",
			cards: []Scorecard{
				card("fp16", 1.40, 0.00060, 350, true), // dominated by fp8
				card("fp8", 0.96, 0.00044, 312, true),
				card("sglang", 0.70, 0.00030, 812, false),  // best figures, but violates the SLO
				card("batch128", 0.80, 0.00050, 450, true), // a trade-off: cheaper, slower
			},
			frontier: []string{"batch128", "fp8"},
			dropped: []drop{
				{"fp16", "dominated by fp8"},
				{"sglang", `SLO violated: no level passed "ttft_p99<=500ms"`},
			},
		},
		{
			name: "an inconclusive verdict is undecided, not violated",
			cards: []Scorecard{
				card("fp8", 0.96, 0.00044, 312, true),
				func() Scorecard {
					c := card("short", 0.70, 0.00030, 300, false)
					c.Performance.SLOOutcome = "inconclusive"
					return c
				}(),
			},
			frontier: []string{"fp8"},
			dropped:  []drop{{"short", `SLO undecided: no level decided "ttft_p99<=500ms" (inconclusive: its intervals straddle a limit; longer levels would decide it)`}},
		},
		{
			name: "an explicit SLO check overrides the verdict",
			cards: []Scorecard{
				card("fp8", 0.96, 0.00044, 312, true),
				card("sglang", 0.70, 0.00030, 812, true),
			},
			check:    CheckTerms(Term{Key: "ttft_p99_ms", Op: "<=", Limit: 500}),
			frontier: []string{"fp8"},
			dropped:  []drop{{"sglang", "SLO violated: ttft_p99_ms 812 > 500"}},
		},
		{
			name: "rows missing a figure",
			cards: []Scorecard{
				card("no-energy", 0.5, -1, 100, true),
				card("no-cost", -1, 0.0001, 100, true),
				card("ok", 2, 0.001, 400, true),
				card("nothing", -1, -1, -1, true),
			},
			frontier: []string{"ok"},
			dropped: []drop{
				{"no-energy", "no energy figure (wh_per_token)"},
				{"no-cost", "no cost figure (cpm_eur_1m)"},
				{"nothing", "no cost figure (cpm_eur_1m); no energy figure (wh_per_token); no latency figure (ttft_p99_ms)"},
			},
		},
		{
			name: "equal rows both stay; <= on all and < on one dominates",
			cards: []Scorecard{
				card("a", 1, 0.001, 300, true),
				card("b", 1, 0.001, 300, true),
				card("c", 1, 0.001, 301, true),
			},
			frontier: []string{"a", "b"},
			dropped:  []drop{{"c", "dominated by a, b"}},
		},
		{
			name: "no verdict fails the default check",
			cards: []Scorecard{
				func() Scorecard { c := card("nv", 1, 0.001, 300, true); c.Performance.SLOPass = nil; return c }(),
			},
			dropped: []drop{{"nv", "no SLO verdict (run without an SLO): give an SLOCheck to judge its figures"}},
		},
		{
			// Issue 25: "worst: dominated by best" while middle dominates
			// it too.
			name: "dominated row names a frontier row first, then every other row that dominates it",
			cards: []Scorecard{
				card("worst", 3, 0.003, 300, true),
				card("middle", 2, 0.002, 300, true),
				card("best", 1, 0.001, 300, true),
			},
			frontier: []string{"best"},
			dropped:  []drop{{"worst", "dominated by best, middle"}, {"middle", "dominated by best"}},
		},
		{name: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frontier, dropped := Pareto(tt.cards, tt.check)
			if got := ids(frontier); !slices.Equal(got, tt.frontier) {
				t.Errorf("frontier %v, want %v", got, tt.frontier)
			}
			var got []drop
			for _, d := range dropped {
				got = append(got, drop{d.Scorecard.Metadata.RunID, d.Reason})
				if strings.HasPrefix(d.Reason, "dominated by ") != (d.DominatedBy != "") {
					t.Errorf("%s: DominatedBy %q with reason %q", d.Scorecard.Metadata.RunID, d.DominatedBy, d.Reason)
				}
				// The HTML chart tells these cases apart by field, not by text.
				if lacks := strings.Contains(d.Reason, " figure ("); lacks != (len(d.Missing) > 0) {
					t.Errorf("%s: Missing %v with reason %q", d.Scorecard.Metadata.RunID, d.Missing, d.Reason)
				}
				if d.Rejected != (d.DominatedBy == "" && len(d.Missing) == 0) {
					t.Errorf("%s: Rejected %v with reason %q", d.Scorecard.Metadata.RunID, d.Rejected, d.Reason)
				}
			}
			if !slices.Equal(got, tt.dropped) {
				t.Errorf("dropped %q,\nwant %q", got, tt.dropped)
			}
			if len(frontier)+len(dropped) != len(tt.cards) {
				t.Errorf("%d in, %d out", len(tt.cards), len(frontier)+len(dropped))
			}
		})
	}
}

func TestCheckTerms(t *testing.T) {
	c := card("x", 1, 0.001, 300, true)
	c.Performance.ITLP95Ms = ptr(62.0)
	tests := []struct {
		terms  []Term
		ok     bool
		reason string
	}{
		{[]Term{{"ttft_p99_ms", "<=", 500}}, true, ""},
		{[]Term{{"ttft_p99_ms", "<", 300}}, false, "SLO violated: ttft_p99_ms 300 >= 300"},
		{[]Term{{"ttft_p99_ms", "<=", 500}, {"itl_p95_ms", "<=", 50}, {"error_rate", "<=", 0.005}}, false, "SLO violated: itl_p95_ms 62 > 50"},
		{[]Term{{"ttft_p50_ms", "<=", 100}}, false, "cannot judge ttft_p50_ms: not in the scorecard"},
		{[]Term{{"ttft_p99_ms", "==", 100}}, false, `cannot judge ttft_p99_ms: unknown operator "==" (want <=, <, >=, >)`},
		{[]Term{{"error_rate", ">", 0.01}, {"e2e_p99_ms", "<=", 1}}, false,
			"SLO violated: error_rate 0.001 <= 0.01; cannot judge e2e_p99_ms: not in the scorecard"},
		// Issue 25: "SLO violated:" was said once per term, twice on a line.
		{[]Term{{"ttft_p99_ms", "<", 300}, {"itl_p95_ms", "<=", 50}}, false, "SLO violated: ttft_p99_ms 300 >= 300, itl_p95_ms 62 > 50"},
	}
	for _, tt := range tests {
		ok, reason := CheckTerms(tt.terms...)(c)
		if ok != tt.ok || reason != tt.reason {
			t.Errorf("CheckTerms(%v) = %v, %q; want %v, %q", tt.terms, ok, reason, tt.ok, tt.reason)
		}
	}
}

// TestOwnVerdictUndecided: the demo under a strict SLO has no level that
// passed and its described level undecided; pareto said "SLO violated"
// of a level whose intervals only straddle a threshold.
func TestOwnVerdictUndecided(t *testing.T) {
	f := false
	sc := Scorecard{Metadata: Metadata{SLO: "ttft_p99<=500ms"}, Performance: Performance{SLOPass: &f, SLOOutcome: "inconclusive"}}
	ok, why := OwnVerdict(sc)
	if ok || why != `SLO undecided: no level decided "ttft_p99<=500ms" (inconclusive: its intervals straddle a limit; longer levels would decide it)` {
		t.Errorf("OwnVerdict = %v %q", ok, why)
	}
	sc.Performance.SLOOutcome = "fail"
	if ok, why := OwnVerdict(sc); ok || !strings.HasPrefix(why, "SLO violated") {
		t.Errorf("failing level: OwnVerdict = %v %q", ok, why)
	}
}
