package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/stats"
)

// Threshold is one --fail-on term: a metric and how far it may move the
// wrong way. Rel is a relative limit (0.05 for +5 %) unless Abs is set,
// then Limit is in the metric's unit (ms for latencies; for the error
// rate, a fraction: "+0.5%" is 0.005 of the requests). A metric whose
// higher value is better regresses downwards, so its term is written with
// a minus sign ("goodput:-3%").
type Threshold struct {
	Metric Metric
	Limit  float64 // ≥ 0, in Rel or the metric's unit
	Abs    bool
	Text   string // as written
}

// String is the term as written.
func (t Threshold) String() string { return t.Text }

// FailOnError is a problem in a --fail-on expression: the term and its
// 1-based byte column, and what is wrong.
type FailOnError struct {
	Term   string
	Column int
	Msg    string
}

// Error implements error.
func (e *FailOnError) Error() string {
	return fmt.Sprintf("column %d, term %q: %s", e.Column, e.Term, e.Msg)
}

// ParseFailOn reads a --fail-on expression: comma-separated terms
// METRIC:±LIMIT, e.g. "ttft_p99:+5%,itl_p95:+5%,goodput:-3%,cpm:+5%". The
// sign is the direction of a regression: + for metrics that are better
// lower (latencies, the error rate, CPM, Wh/token), − for those better
// higher (throughput, goodput, knee); it may be left out, and a sign that
// contradicts the metric is an error. A limit is a percentage of A's
// value, or for latencies a duration in ms or s ("ttft_p99:+20ms"); the
// error rate's percentage is in percentage points of the requests. Every
// problem is reported at once.
func ParseFailOn(s string) ([]Threshold, error) {
	if strings.TrimSpace(s) == "" {
		return nil, &FailOnError{Term: s, Column: 1, Msg: "empty: want comma-separated METRIC:LIMIT terms, e.g. ttft_p99:+5%, or leave the flag out"}
	}
	var out []Threshold
	var errs []error
	firstAt := map[string]int{} // metric key → column of its first term
	col := 1
	for _, raw := range strings.Split(s, ",") {
		term := strings.TrimSpace(raw)
		at := col + (len(raw) - len(strings.TrimLeft(raw, " \t")))
		col += len(raw) + 1
		if term == "" {
			errs = append(errs, &FailOnError{Term: term, Column: at, Msg: "empty term: remove the extra comma"})
			continue
		}
		t, err := parseThreshold(term)
		if err != nil {
			errs = append(errs, &FailOnError{Term: term, Column: at, Msg: err.Error()})
			continue
		}
		if c, dup := firstAt[t.Metric.Key]; dup {
			errs = append(errs, &FailOnError{Term: term, Column: at, Msg: fmt.Sprintf("%s has a limit already (column %d): give each metric one limit", t.Metric.Key, c)})
			continue
		}
		firstAt[t.Metric.Key] = at
		out = append(out, t)
	}
	return out, errors.Join(errs...)
}

func parseThreshold(term string) (Threshold, error) {
	name, limit, ok := strings.Cut(term, ":")
	if !ok {
		return Threshold{}, errors.New("want METRIC:LIMIT, e.g. ttft_p99:+5%")
	}
	m, ok := LookupMetric(name)
	if !ok {
		return Threshold{}, fmt.Errorf("unknown metric %q (known: %s)", strings.TrimSpace(name), MetricKeys())
	}
	limit = strings.TrimSpace(limit)
	sign := 0
	switch {
	case strings.HasPrefix(limit, "+"):
		sign, limit = 1, limit[1:]
	case strings.HasPrefix(limit, "-"), strings.HasPrefix(limit, "−"):
		sign, limit = -1, strings.TrimLeft(limit, "-−")
	}
	want := 1
	if m.HigherIsBetter {
		want = -1
	}
	if sign != 0 && sign != want {
		dir, fix := "lower is better: it regresses upwards", "+"
		if m.HigherIsBetter {
			dir, fix = "higher is better: it regresses downwards", "-"
		}
		return Threshold{}, fmt.Errorf("%s: %s, so write %s:%s%s", m.Key, dir, m.Key, fix, limit)
	}
	t := Threshold{Metric: m, Text: term}
	num, unit := splitUnit(limit)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !plainDecimal(num) || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return Threshold{}, fmt.Errorf("limit %q: want a non-negative number with %% (or ms/s for a latency), e.g. %s:%s5%%", limit, m.Key, signOf(want))
	}
	switch {
	case unit == "%" && m.kind == kindErrorRate:
		t.Limit, t.Abs = v/100, true
	case unit == "%":
		t.Limit = v / 100
	case (unit == "ms" || unit == "s") && m.kind == kindLatency:
		t.Limit, t.Abs = v, true
		if unit == "s" {
			t.Limit = v * 1000
		}
	default:
		return Threshold{}, fmt.Errorf("limit %q: want a percentage, e.g. %s:%s5%%%s", limit, m.Key, signOf(want), latencyHint(m))
	}
	return t, nil
}

// plainDecimal reports whether s is written with decimal digits and at
// most one point ("5", "2.5", ".5"): strconv also takes "NaN", "Inf",
// "1_0", "0x1p3" and exponents, none of which is a limit a person means.
func plainDecimal(s string) bool {
	digits, points := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}

func latencyHint(m Metric) string {
	if m.kind == kindLatency {
		return ", or a latency in ms or s, e.g. +20ms"
	}
	return ""
}

func signOf(dir int) string {
	if dir < 0 {
		return "-"
	}
	return "+"
}

func splitUnit(s string) (num, unit string) {
	s = strings.TrimSpace(s)
	for _, u := range []string{"%", "ms", "s"} {
		if strings.HasSuffix(s, u) {
			return strings.TrimSpace(strings.TrimSuffix(s, u)), u
		}
	}
	return s, ""
}

// Outcome is a --fail-on term's decision on one row, three-valued as the
// SLO verdicts are: the interval of the change, not its point estimate,
// is set against the limit.
type Outcome string

// Outcomes.
const (
	// OutcomeRegressed: the change's whole interval lies beyond the limit,
	// on the side the metric regresses.
	OutcomeRegressed Outcome = "regressed"
	// OutcomeWithin: the change's whole interval lies inside the limit
	// (an improvement is within).
	OutcomeWithin Outcome = "within"
	// OutcomeUndecided: the interval holds the limit: more requests (or
	// runs) would decide it.
	OutcomeUndecided Outcome = "undecided"
)

// Check is one --fail-on term judged on one row.
type Check struct {
	Threshold Threshold
	Row       Row
	// Where names the level or "the summary".
	Where   string
	Outcome Outcome
	// Factor, for an undecided check, is about how many times the
	// samples behind each side (requests, runs, or the level's length for
	// a rate) the interval needs to lie wholly on one side of the limit,
	// from its half-width shrinking as 1/√n; 0 when the change equals the
	// limit (no amount decides it) or the check is decided.
	Factor float64
}

// String is "ttft_p99 at concurrency 4: +46.0% [+38.0%, +55.0%]:
// regressed beyond +5% (bootstrap)" or, for an undecided check, the same
// with what would decide it.
func (c Check) String() string {
	var by string
	r := c.Row
	switch {
	case c.Threshold.Abs && r.Metric.kind == kindErrorRate:
		by = fmt.Sprintf("%+.2f points [%+.2f, %+.2f]", 100*r.Diff.V, 100*r.DiffCI.Lo, 100*r.DiffCI.Hi)
	case c.Threshold.Abs:
		by = fmt.Sprintf("%+.3g %s [%+.3g, %+.3g]", r.Diff.V, r.Metric.Unit, r.DiffCI.Lo, r.DiffCI.Hi)
	default:
		by = fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", 100*r.Rel.V, 100*r.RelCI.Lo, 100*r.RelCI.Hi)
	}
	return fmt.Sprintf("%s at %s: %s: %s", r.Metric.Key, c.Where, by, c.Verdict())
}

// Verdict is the check's decision in words: "regressed beyond
// ttft_p99:+5% (bootstrap)", "within ttft_p99:+5%", or "undecided against
// ttft_p99:+5% (the interval holds the limit): about 320 more requests a
// side would decide it".
func (c Check) Verdict() string {
	switch c.Outcome {
	case OutcomeRegressed:
		return fmt.Sprintf("regressed beyond %s (%s)", c.Threshold.Text, c.Row.Method)
	case OutcomeWithin:
		return fmt.Sprintf("within %s (%s)", c.Threshold.Text, c.Row.Method)
	}
	return fmt.Sprintf("undecided against %s (%s: the interval holds the limit): %s", c.Threshold.Text, c.Row.Method, c.Decider())
}

// Decider says what would decide an undecided check: "about 320 more
// requests a side", "about 4 more runs a side", "levels about
// 3.2 times as long"; or that no amount would, the change being the
// limit itself.
func (c Check) Decider() string {
	if c.Factor <= 1 || math.IsInf(c.Factor, 0) || math.IsNaN(c.Factor) {
		return "the change equals the limit, so no amount of requests decides it"
	}
	var n int64
	if c.Row.NA.OK && c.Row.NB.OK {
		n = min(c.Row.NA.N, c.Row.NB.N)
	}
	switch {
	case c.Row.Method == MethodBetweenRuns && n > 0:
		return fmt.Sprintf("about %d more runs a side would decide it", int64(math.Ceil(float64(n)*(c.Factor-1))))
	case c.Row.Method != MethodBatchMeans && c.Row.Method != MethodIntervals && n > 0:
		return fmt.Sprintf("about %d more requests a side would decide it", int64(math.Ceil(float64(n)*(c.Factor-1))))
	}
	return fmt.Sprintf("levels about %.2g times as long would decide it", c.Factor)
}

// Checks judges each threshold of ths on every row of res that can
// judge it: each level row and the summary's knee, goodput, CPM and
// Wh/token rows (the summary's latencies describe two knees at different
// loads, so they are judged at matched levels only), where both sides
// hold the figure, its change has an interval, the two tools define it
// alike, and neither side has too few requests to bound it. A row is
// OutcomeRegressed when the interval of its move (relative to A, or in
// the metric's unit for an absolute limit) lies wholly beyond the limit,
// OutcomeWithin when it lies wholly inside, OutcomeUndecided otherwise.
func Checks(res Result, ths []Threshold) []Check {
	var out []Check
	for _, th := range ths {
		check := func(r Row, where string) {
			if r.Metric.Key != th.Metric.Key || r.Verdict == VerdictUnknown || r.Unlike || r.TooFew {
				return
			}
			move, ci := r.Rel, r.RelCI
			if th.Abs {
				move, ci = r.Diff, r.DiffCI
			}
			if !move.OK {
				return
			}
			out = append(out, judge(th, r, where, move.V, ci))
		}
		for _, r := range res.Summary {
			if r.Metric.kind != kindLatency {
				check(r, "the summary")
			}
		}
		for _, r := range res.Rows {
			check(r, r.Level)
		}
	}
	return out
}

// judge decides one row: the move and its interval are turned so that a
// regression is positive, then set against the limit.
func judge(th Threshold, r Row, where string, move float64, ci stats.Interval) Check {
	c := Check{Threshold: th, Row: r, Where: where}
	w, lo, hi := move, ci.Lo, ci.Hi
	if th.Metric.HigherIsBetter {
		w, lo, hi = -move, -ci.Hi, -ci.Lo
	}
	switch {
	case lo > th.Limit:
		c.Outcome = OutcomeRegressed
	case hi <= th.Limit:
		c.Outcome = OutcomeWithin
	default:
		c.Outcome = OutcomeUndecided
		// The half-width on the limit's side must shrink below the
		// distance from the change to the limit.
		half, gap := hi-w, th.Limit-w
		if w > th.Limit {
			half, gap = w-lo, w-th.Limit
		}
		if gap > 0 && half > gap {
			c.Factor = (half / gap) * (half / gap)
		}
	}
	return c
}

// Regressions returns the checks of res against ths that regressed (see
// Checks).
func Regressions(res Result, ths []Threshold) []Check {
	return only(Checks(res, ths), OutcomeRegressed)
}

// Undecided returns the checks of res against ths whose interval holds
// the limit (see Checks).
func Undecided(res Result, ths []Threshold) []Check {
	return only(Checks(res, ths), OutcomeUndecided)
}

func only(cs []Check, o Outcome) []Check {
	var out []Check
	for _, c := range cs {
		if c.Outcome == o {
			out = append(out, c)
		}
	}
	return out
}

// WithinRunOnly reports whether some check of cs was judged on an
// interval that covers the noise within a run only (single runs on both
// sides, not --repeat): such an interval misses the run-to-run variance
// a CI gate meets first.
func WithinRunOnly(cs []Check) bool {
	return slices.ContainsFunc(cs, func(c Check) bool {
		switch c.Row.Method {
		case MethodBetweenRuns, MethodBracket:
			return false
		}
		return true
	})
}

// Unchecked is a --fail-on term that no row could judge: the metric is
// in neither input, in one only, has no interval, or the two tools define
// it differently. CI must not read it as a pass.
type Unchecked struct {
	Threshold Threshold
	// Why says what is missing: "cpm is in neither input".
	Why string
}

// String is "cpm:+5%: cpm is in neither input: the gate cannot be
// checked".
func (u Unchecked) String() string {
	return fmt.Sprintf("%s: %s: the gate cannot be checked", u.Threshold.Text, u.Why)
}

// UncheckedGates returns the thresholds of ths that no row of res could
// judge (Regressions judges a row when both sides hold the figure, its
// change has an interval, and the two tools define it alike), each with
// the reason. A threshold judged on at least one row is checked.
func UncheckedGates(res Result, ths []Threshold) []Unchecked {
	var out []Unchecked
	for _, th := range ths {
		var onlyA, onlyB, noCI, tooFew, unlike, judged bool
		look := func(r Row) {
			if r.Metric.Key != th.Metric.Key {
				return
			}
			switch {
			case r.A.OK && !r.B.OK:
				onlyA = true
			case r.B.OK && !r.A.OK:
				onlyB = true
			case !r.A.OK:
			case r.Unlike:
				unlike = true
			case r.TooFew:
				tooFew = true
			case r.Verdict == VerdictUnknown:
				noCI = true
			default:
				judged = true
			}
		}
		for _, r := range res.Summary {
			if r.Metric.kind != kindLatency {
				look(r)
			}
		}
		for _, r := range res.Rows {
			look(r)
		}
		k := th.Metric.Key
		var why string
		switch {
		case judged:
			continue
		case unlike:
			why = k + " is defined differently by the two tools"
		case tooFew:
			why = k + " has too few requests on a side to bound it (its 95 % interval is unbounded), so its change cannot be judged: run longer levels"
		case noCI:
			why = k + " has no interval on a side (a figure alone), so its change cannot be judged"
		case onlyA && onlyB:
			why = k + " is in each input at different levels only"
		case onlyA:
			why = k + " is only in A (" + res.A.File + ")"
		case onlyB:
			why = k + " is only in B (" + res.B.File + ")"
		case len(res.Matches) == 0 && th.Metric.level:
			why = "no level of A matches a level of B, and " + k + " is not in the summary"
		default:
			why = k + " is in neither input"
		}
		out = append(out, Unchecked{Threshold: th, Why: why})
	}
	return out
}

// MetricsFor returns ms with every per-level metric of ths that ms lacks
// appended, so that a --fail-on term is compared even when --metrics
// leaves it out.
func MetricsFor(ms []Metric, ths []Threshold) []Metric {
	if ms == nil {
		ms = Options{}.withDefaults().Metrics
	}
	out := slices.Clone(ms)
	for _, th := range ths {
		if th.Metric.level && !slices.ContainsFunc(out, func(m Metric) bool { return m.Key == th.Metric.Key }) {
			out = append(out, th.Metric)
		}
	}
	return out
}
