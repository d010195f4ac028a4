package scorecard

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gollm-bench/gollm-bench/slo"
)

// SLOCheck judges a scorecard against a service-level objective: ok, or a
// reason such as "SLO violated: ttft_p99_ms 812 > 500". The slo package's
// Objective can be adapted to it (see CheckTerms); nil means OwnVerdict.
type SLOCheck func(sc Scorecard) (ok bool, reason string)

// OwnVerdict is the default SLOCheck: the scorecard's own slo_pass, decided
// by the sweep under the SLO recorded in its metadata. A scorecard without a
// verdict (no SLO at run time) fails, since nothing says it meets one; so
// does an inconclusive one (slo_outcome "inconclusive"), as "SLO
// undecided", not "violated".
func OwnVerdict(sc Scorecard) (bool, string) {
	switch {
	case sc.Performance.SLOPass == nil:
		return false, "no SLO verdict (run without an SLO): give an SLOCheck to judge its figures"
	case !*sc.Performance.SLOPass && sc.Performance.SLOOutcome == string(slo.OutcomeInconclusive):
		// Undecided is not violated: no level was shown to fail either.
		what := "the SLO"
		if sc.Metadata.SLO != "" {
			what = strconv.Quote(sc.Metadata.SLO)
		}
		return false, "SLO undecided: no level decided " + what + " (inconclusive: its intervals straddle a limit; longer levels would decide it)"
	case !*sc.Performance.SLOPass:
		if sc.Metadata.SLO != "" {
			return false, fmt.Sprintf("SLO violated: no level passed %q", sc.Metadata.SLO)
		}
		return false, "SLO violated: no level passed"
	}
	return true, ""
}

// Term is one threshold on a scorecard figure, for CheckTerms: Key is a
// Figure key (e.g. "ttft_p99_ms"), Op one of <=, <, >=, >, and Limit is in
// the key's unit (error_rate is a fraction: 0.5 % is 0.005).
type Term struct {
	Key   string
	Op    string
	Limit float64
}

// CheckTerms returns an SLOCheck that holds when every term holds on the
// scorecard's figures. A figure the scorecard lacks fails the check with
// "cannot judge <key>: not in the scorecard" — a scorecard keeps only the
// knee level's TTFT P99, ITL P95, E2E P99, error rate and throughputs, so an
// SLO term on another percentile cannot be judged from it. Reasons of all
// failing terms are joined with "; ".
func CheckTerms(terms ...Term) SLOCheck {
	terms = slices.Clone(terms)
	return func(sc Scorecard) (bool, string) {
		var reasons, violated []string
		for _, t := range terms {
			v, ok := Figure(sc, t.Key)
			if !ok {
				reasons = append(reasons, fmt.Sprintf("cannot judge %s: not in the scorecard", t.Key))
				continue
			}
			var pass bool
			switch t.Op {
			case "<=":
				pass = v <= t.Limit
			case "<":
				pass = v < t.Limit
			case ">=":
				pass = v >= t.Limit
			case ">":
				pass = v > t.Limit
			default:
				reasons = append(reasons, fmt.Sprintf("cannot judge %s: unknown operator %q (want <=, <, >=, >)", t.Key, t.Op))
				continue
			}
			if !pass {
				violated = append(violated, fmt.Sprintf("%s %s %s %s", t.Key, fmtFloat(v), negate(t.Op), fmtFloat(t.Limit)))
			}
		}
		if len(violated) > 0 {
			// Said once, before the terms it applies to.
			reasons = append([]string{"SLO violated: " + strings.Join(violated, ", ")}, reasons...)
		}
		return len(reasons) == 0, strings.Join(reasons, "; ")
	}
}

// negate names the relation that holds when op fails.
func negate(op string) string {
	switch op {
	case "<=":
		return ">"
	case "<":
		return ">="
	case ">=":
		return "<"
	}
	return "<="
}

// Figure returns a numeric scorecard figure by its JSON key (performance,
// cost, energy and carbon keys such as "ttft_p99_ms", "cpm_eur_1m",
// "wh_per_token", "gco2_per_1m_tokens"; and "token_cpm_eur_1m",
// "blended_eur_1m", "litellm_cpm_1m", "pod_wh_per_token" for the nested
// token, LiteLLM and pod figures), and false when the key is unknown or the
// figure absent.
func Figure(sc Scorecard, key string) (float64, bool) {
	var p *float64
	switch key {
	case "goodput_tok_s":
		p = sc.Performance.GoodputTokS
	case "goodput_req_s":
		p = sc.Performance.GoodputReqS
	case "output_tok_s":
		p = sc.Performance.OutputTokS
	case "ttft_p99_ms":
		p = sc.Performance.TTFTP99Ms
	case "itl_p95_ms":
		p = sc.Performance.ITLP95Ms
	case "e2e_p99_ms":
		p = sc.Performance.E2EP99Ms
	case "peak_output_tok_s":
		p = sc.Performance.PeakOutputTokS
	case "knee_rate_req_s":
		p = sc.Performance.KneeRateReqS
	case "error_rate":
		p = sc.Performance.ErrorRate
	case "cpm_eur_1m":
		p = sc.Cost.CPMEUR1M
	case "token_cpm_eur_1m":
		if t := sc.Cost.Tokens; t != nil {
			p = t.CPMEUR1M
		}
	case "blended_eur_1m":
		if t := sc.Cost.Tokens; t != nil {
			p = t.BlendedEUR1M
		}
	case "litellm_cpm_1m":
		if l := sc.Cost.LiteLLM; l != nil {
			p = l.CPM1M
		}
	case "pod_wh_per_token":
		if e := sc.Energy.Pod; e != nil {
			p = e.WhPerToken
		}
	case "cost_per_request_eur":
		p = sc.Cost.CostPerRequestEUR
	case "wh_per_token":
		p = sc.Energy.WhPerToken
	case "j_per_token":
		p = sc.Energy.JPerToken
	case "wh_per_token_pue":
		p = sc.Energy.WhPerTokenPUE
	case "mean_w":
		p = sc.Energy.MeanW
	case "gco2_per_1m_tokens":
		p = sc.Carbon.GCO2Per1MTokens
	}
	if p == nil {
		return 0, false
	}
	return *p, true
}

// Dropped is a scorecard left off the Pareto frontier, and why.
type Dropped struct {
	Scorecard Scorecard
	// Reason is e.g. "SLO violated: ttft_p99_ms 812 > 500", "no energy
	// figure (wh_per_token)" or "dominated by <run id>".
	Reason string
	// DominatedBy is the run id of a frontier row that dominates this one
	// (Reason names every run that does, this one first);
	// "" when dropped for another reason.
	DominatedBy string
	// Rejected is true when the row failed the SLO check; Missing lists
	// the objectives' keys it holds no figure for (e.g. "wh_per_token").
	// Both are empty for a dominated row.
	Rejected bool
	Missing  []string
}

// Pareto returns the scorecards on the Pareto frontier minimising (CPM,
// Wh/token, TTFT P99) — cpm_eur_1m, wh_per_token (GPU energy, not
// PUE-adjusted) and ttft_p99_ms — and the others with the reason each was
// dropped (docs/outputs.md#the-pareto-frontier). WithCostBasis replaces
// cpm_eur_1m with the CPM of another basis (token prices, LiteLLM's spend).
// In order: a row that fails check (nil: OwnVerdict) is dropped with the
// check's reason; a row missing one of the three figures is dropped ("no
// energy figure (wh_per_token)"); of the rest, a row is dropped when another
// dominates it: <= on all three and < on at least one. Rows equal on all
// three both stay.
//
// The frontier is sorted by CPM, then Wh/token, then TTFT P99, then run id;
// dropped rows keep their input order. A dominated row names a frontier row
// that dominates it (the first in frontier order). Pareto does not modify
// cards. It is O(n²), fine for the hundreds of configurations a study has.
func Pareto(cards []Scorecard, check SLOCheck, opts ...Option) (frontier []Scorecard, dropped []Dropped) {
	if check == nil {
		check = OwnVerdict
	}
	cfg := newConfig(opts)
	// The objectives, all minimised (docs/outputs.md#the-pareto-frontier),
	// and the words used when one is missing.
	objectives := [...]struct{ key, what string }{
		{cfg.basis.Key(), "no cost figure"},
		{"wh_per_token", "no energy figure"},
		{"ttft_p99_ms", "no latency figure"},
	}
	type cand struct {
		idx int
		obj [3]float64
	}
	var cands []cand
	reasons := make([]Dropped, len(cards))
	for i, sc := range cards {
		if ok, why := check(sc); !ok {
			if why == "" {
				why = "SLO violated"
			}
			reasons[i] = Dropped{Scorecard: sc, Reason: why, Rejected: true}
			continue
		}
		c := cand{idx: i}
		var lack, keys []string
		for k, o := range objectives {
			v, ok := Figure(sc, o.key)
			if !ok {
				lack = append(lack, fmt.Sprintf("%s (%s)", o.what, o.key))
				keys = append(keys, o.key)
				continue
			}
			c.obj[k] = v
		}
		if len(lack) > 0 {
			reasons[i] = Dropped{Scorecard: sc, Reason: strings.Join(lack, "; "), Missing: keys}
			continue
		}
		cands = append(cands, c)
	}
	dominates := func(a, b cand) bool {
		strict := false
		for k := range a.obj {
			if a.obj[k] > b.obj[k] {
				return false
			}
			if a.obj[k] < b.obj[k] {
				strict = true
			}
		}
		return strict
	}
	var front, beaten []cand
	for _, c := range cands {
		if slices.ContainsFunc(cands, func(o cand) bool { return dominates(o, c) }) {
			beaten = append(beaten, c)
		} else {
			front = append(front, c)
		}
	}
	slices.SortStableFunc(front, func(a, b cand) int {
		for k := range a.obj {
			if c := cmp.Compare(a.obj[k], b.obj[k]); c != 0 {
				return c
			}
		}
		return cmp.Compare(cards[a.idx].Metadata.RunID, cards[b.idx].Metadata.RunID)
	})
	for _, c := range beaten {
		// A finite set's dominated point is dominated by some frontier point.
		by := front[slices.IndexFunc(front, func(f cand) bool { return dominates(f, c) })]
		id := runLabel(cards[by.idx])
		// Every run that dominates it is named, the frontier's first.
		var others []string
		for _, o := range cands {
			if o.idx != by.idx && dominates(o, c) {
				others = append(others, runLabel(cards[o.idx]))
			}
		}
		slices.Sort(others)
		reasons[c.idx] = Dropped{Scorecard: cards[c.idx], Reason: "dominated by " + strings.Join(append([]string{id}, others...), ", "), DominatedBy: id}
	}
	for _, c := range front {
		frontier = append(frontier, cards[c.idx])
	}
	for i := range cards {
		if reasons[i].Reason != "" {
			dropped = append(dropped, reasons[i])
		}
	}
	return frontier, dropped
}

// runLabel names a scorecard in messages: its run id, or "(no run id)".
func runLabel(sc Scorecard) string {
	if sc.Metadata.RunID == "" {
		return "(no run id)"
	}
	return sc.Metadata.RunID
}

// WriteParetoText writes the frontier as an aligned table (run id, engine,
// precision, hardware, CPM per 1M of the cost basis (WithCostBasis; default
// cpm_eur_1m), Wh/token, TTFT P99 ms, status), then one line per dropped
// row with its reason. Missing figures print as "-".
func WriteParetoText(w io.Writer, frontier []Scorecard, dropped []Dropped, opts ...Option) error {
	cfg := newConfig(opts)
	key := cfg.basis.Key()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Pareto frontier (minimise CPM, Wh/token, TTFT P99): %d of %d\n", len(frontier), len(frontier)+len(dropped))
	fmt.Fprintf(tw, "run_id\tengine\tprecision\thardware\t%s\twh_per_token\tttft_p99_ms\tstatus\n", key)
	for _, sc := range frontier {
		m := sc.Metadata
		var cpm *float64
		if v, ok := Figure(sc, key); ok {
			cpm = &v
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", runLabel(sc), dash(m.Engine), dash(m.Precision), dash(m.Hardware),
			short(cpm), short(sc.Energy.WhPerToken), short(sc.Performance.TTFTP99Ms), dash(string(sc.Status)))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("scorecard: pareto: %w", err)
	}
	if len(dropped) > 0 {
		if _, err := fmt.Fprintln(w, "\nDropped:"); err != nil {
			return fmt.Errorf("scorecard: pareto: %w", err)
		}
		for _, d := range dropped {
			if _, err := fmt.Fprintf(w, "  %s: %s\n", runLabel(d.Scorecard), d.Reason); err != nil {
				return fmt.Errorf("scorecard: pareto: %w", err)
			}
		}
	}
	return nil
}

// short formats a figure with 4 significant digits for the text table.
func short(v *float64) string {
	if v == nil {
		return "-"
	}
	if math.Abs(*v) >= 1e4 {
		return strconv.FormatFloat(*v, 'f', 0, 64)
	}
	return strconv.FormatFloat(*v, 'g', 4, 64)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ParseSLOCheck is CheckTerms of the SLO s (slo.Parse's grammar) mapped
// onto the scorecard's figures by TermsOf. Errors say what s lacks.
func ParseSLOCheck(s string) (SLOCheck, error) {
	obj, err := slo.Parse(s)
	if err != nil {
		return nil, err
	}
	terms, err := TermsOf(obj)
	if err != nil {
		return nil, err
	}
	return CheckTerms(terms...), nil
}

// TermsOf maps an SLO's terms onto the figures a scorecard holds, for
// CheckTerms. A scorecard keeps only TTFT P99, ITL P95, E2E P99, the error
// rate and output throughput: a term on another figure is an error naming
// it.
func TermsOf(obj slo.Objective) ([]Term, error) {
	var out []Term
	var errs []error
	for _, t := range obj.Terms {
		key := ""
		switch {
		case t.Metric == slo.MetricErrorRate:
			key = "error_rate"
		case t.Metric == slo.MetricOutputTPS:
			key = "output_tok_s"
		case t.Metric == slo.MetricTTFT && t.Percentile == 99:
			key = "ttft_p99_ms"
		case t.Metric == slo.MetricITL && t.Percentile == 95:
			key = "itl_p95_ms"
		case t.Metric == slo.MetricE2E && t.Percentile == 99:
			key = "e2e_p99_ms"
		default:
			errs = append(errs, fmt.Errorf("SLO term %q: a scorecard holds only ttft_p99, itl_p95, e2e_p99, error_rate and output_tps", t.Text))
			continue
		}
		out = append(out, Term{Key: key, Op: string(t.Op), Limit: t.Threshold})
	}
	return out, errors.Join(errs...)
}
