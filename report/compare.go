package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/compare"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/internal/termtext"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/stats"
)

// Comparison formats of WriteComparison.
const (
	CompareConsole  = "console"
	CompareMarkdown = "markdown"
	CompareJSON     = "json"
	CompareCSV      = "csv"
)

// CompareFormats lists the formats WriteComparison writes.
func CompareFormats() []string {
	return []string{CompareConsole, CompareMarkdown, CompareJSON, CompareCSV}
}

// Comparison is what `gollm-bench compare` prints: each input compared
// with the baseline, and, with --fail-on, the thresholds and the rows
// that failed them. Plain data for WriteComparison.
type Comparison struct {
	Results []compare.Result
	// FailOn is the fail-on thresholds' expression (compare.ParseFailOn),
	// "" without one.
	FailOn string
	// Regressions[i] are Results[i]'s rows whose change lies wholly
	// beyond a threshold; Undecided[i] those whose interval holds it
	// (compare.Checks).
	Regressions [][]compare.Check
	Undecided   [][]compare.Check
	// Checks[i] are every row of Results[i] a threshold judged, with its
	// outcome.
	Checks [][]compare.Check
	// WithinRunOnly[i] is set when a check of Results[i] was judged on an
	// interval of single runs, which covers within-run noise only.
	WithinRunOnly []bool
	// Unchecked[i] are the thresholds no row of Results[i] could judge
	// (compare.UncheckedGates): a gate on a metric neither input holds.
	Unchecked [][]compare.Unchecked
}

// NewComparison judges each result against the --fail-on thresholds ths
// (text is the expression, for the output) and says whether any result
// regressed.
func NewComparison(res []compare.Result, text string, ths []compare.Threshold) (Comparison, bool) {
	c := Comparison{Results: res, FailOn: text}
	regressed := false
	for _, r := range res {
		checks := compare.Checks(r, ths)
		regs := compare.Regressions(r, ths)
		c.Regressions = append(c.Regressions, regs)
		c.Undecided = append(c.Undecided, compare.Undecided(r, ths))
		c.WithinRunOnly = append(c.WithinRunOnly, compare.WithinRunOnly(checks))
		c.Checks = append(c.Checks, checks)
		c.Unchecked = append(c.Unchecked, compare.UncheckedGates(r, ths))
		regressed = regressed || len(regs) > 0
	}
	return c, regressed
}

// Exit is the exit code of `gollm-bench compare` for c and its error:
// exitcode.SLOFailed (3) when a --fail-on metric regressed (its change's
// whole interval lies beyond the limit); else exitcode.Usage (2) when a
// --fail-on term could not be checked on any row (its metric is in
// neither input, in one only, or has no interval), since a gate that
// cannot be checked must not pass; else exitcode.Undecided (5) when a
// change's interval holds its limit; else exitcode.OK and nil.
func (c Comparison) Exit() (int, error) {
	var unchecked []string
	undecided := false
	for i, regs := range c.Regressions {
		if len(regs) > 0 {
			return exitcode.SLOFailed, errors.New("a fail-on metric regressed: its change lies wholly beyond the limit (see the regression lines)")
		}
		if i < len(c.Undecided) && len(c.Undecided[i]) > 0 {
			undecided = true
		}
		if i < len(c.Unchecked) {
			for _, u := range c.Unchecked[i] {
				unchecked = append(unchecked, u.String())
			}
		}
	}
	if len(unchecked) > 0 {
		return exitcode.Usage, fmt.Errorf("%s; give inputs that hold the metric, or drop the term", strings.Join(unchecked, "; "))
	}
	if undecided {
		return exitcode.Undecided, errors.New("a fail-on metric is undecided: its change's interval holds the limit (see the undecided lines for what would decide it)")
	}
	return exitcode.OK, nil
}

// MismatchLines lists every workload mismatch of res, one line each: "A vs
// B: workload mismatch: FIELD a vs b".
func MismatchLines(res []compare.Result) []string {
	var out []string
	for _, r := range res {
		for _, m := range r.Mismatches {
			out = append(out, fmt.Sprintf("%s vs %s: workload mismatch: %s %s vs %s", r.A.File, r.B.File, m.Field, m.A, m.B))
		}
	}
	return out
}

// WriteComparison writes c in format (console, markdown, json or csv).
// Console and markdown give, per comparison: the two inputs, every
// workload mismatch on a line of its own before any figure, the summary
// block, one table row per metric of each matched level (A and B with
// their 95 % intervals, the delta relative to A with its interval, the
// verdict — "~" for no significant difference — and the method), the
// levels only one side has, notes on definitions, the inputs' warnings
// and the regressions. JSON holds every figure unrounded; CSV one line
// per row. It only formats: every figure comes from c.
func WriteComparison(w io.Writer, format string, c Comparison) error {
	switch format {
	case CompareConsole, "":
		return writeCompareText(w, c, false)
	case CompareMarkdown:
		return writeCompareText(w, c, true)
	case CompareJSON:
		return writeCompareJSON(w, c)
	case CompareCSV:
		return writeCompareCSV(w, c)
	}
	return fmt.Errorf("report: comparison format %q: want %s", format, strings.Join(CompareFormats(), ", "))
}

// resultName is "GuideLLM 0.5.0 (file.json)", leaving out what is unknown.
func resultName(r peer.Result) string {
	s := r.Tool
	if r.ToolVersion != "" {
		s += " " + r.ToolVersion
	}
	if r.File != "" {
		s += " (" + r.File + ")"
	}
	return s
}

// peerLoad describes a peer level's load as the console report does:
// "concurrency 4", "7.4 req/s (max 64)", "throughput"; its label when the
// load is unknown.
func peerLoad(l peer.Level) string {
	var s string
	switch {
	case l.Mode == loadgen.ModeSynchronous:
		s = "concurrency 1"
	case l.Mode == loadgen.ModeConcurrent && l.Concurrency > 0:
		s = fmt.Sprintf("concurrency %d", l.Concurrency)
	case l.Mode == loadgen.ModeThroughput:
		s = "throughput"
	case l.Rate.OK:
		s = fmtRate(l.Rate.V) + " req/s"
	default:
		if l.Label != "" {
			return l.Label
		}
		return "-"
	}
	if l.MaxConcurrency > 0 {
		s += fmt.Sprintf(" (max %d)", l.MaxConcurrency)
	}
	return s
}

// rowLevel names a row's level: the pair's load as A states it.
func rowLevel(res compare.Result, r compare.Row) string {
	if r.Level == peer.OnlyLevelKey || r.LevelA < 0 || r.LevelA >= len(res.A.Levels) {
		return r.Level
	}
	return peerLoad(res.A.Levels[r.LevelA])
}

// fmtFigure formats a side's figure with its interval in the metric's unit.
func fmtFigure(v peer.Value, ci stats.Interval, m compare.Metric) string {
	if !v.OK {
		return "-"
	}
	if m.Key == "error_rate" {
		if ci.IsZero() {
			return fmtPercent(v.V)
		}
		return scaleEstimate(100*v.V, ci.Scale(100), "%")
	}
	return scaleEstimate(v.V, ci, "")
}

// scaleEstimate is fmtEstimate with a suffix on each number, and a lone
// "[unbounded]" when no side of the interval is bounded.
func scaleEstimate(v float64, ci stats.Interval, suffix string) string {
	switch {
	case ci.IsZero():
		return fmtRate(v) + suffix
	case !ci.LoBounded() && !ci.HiBounded() && !math.IsInf(ci.Lo, 1):
		return fmtRate(v) + suffix + " [unbounded]"
	case !ci.Bounded() && !math.IsInf(ci.Lo, 1):
		// One side open: no precision to round to; three figures.
		side := func(x float64) string {
			if math.IsInf(x, 0) {
				return "unbounded"
			}
			return fmtRate(x) + suffix
		}
		return fmtRate(v) + suffix + " [" + side(ci.Lo) + ", " + side(ci.Hi) + "]"
	}
	s := fmtEstimate(v, ci)
	if suffix == "" {
		return s
	}
	num, rest, _ := strings.Cut(s, " [")
	if rest == "" {
		return num + suffix
	}
	parts := strings.Split(strings.TrimSuffix(rest, "]"), ", ")
	for i, p := range parts {
		if p != "unbounded" {
			parts[i] = p + suffix
		}
	}
	return num + suffix + " [" + strings.Join(parts, ", ") + "]"
}

// fmtDelta formats a row's change: relative to A in % with its interval
// ("+46% [+38%, +55%]"), in percentage points for the error rate, in the
// unit for a change from 0; "-" when a side is missing. A row with too
// few requests on a side to bound its percentile (Row.TooFew) shows its
// point change with "[unbounded]": a bare figure would read as decided.
func fmtDelta(r compare.Row) string {
	diffCI, relCI := r.DiffCI, r.RelCI
	if r.TooFew {
		open := stats.Interval{Lo: math.Inf(-1), Hi: math.Inf(1)}
		diffCI, relCI = open, open
	}
	switch {
	case !r.Diff.OK:
		return "-"
	case r.Metric.Key == "error_rate":
		return signed(scaleEstimate(100*r.Diff.V, diffCI.Scale(100), " pts"))
	case r.Rel.OK:
		return signed(scaleEstimate(100*r.Rel.V, relCI.Scale(100), "%"))
	}
	return signed(scaleEstimate(r.Diff.V, diffCI, ""))
}

// signed puts a + before every positive number of an estimate (not
// before a zero).
func signed(s string) string {
	var b strings.Builder
	start := true
	for i, ch := range s {
		if start && ch >= '1' && ch <= '9' || start && ch == '0' && nonZero(s[i:]) {
			b.WriteByte('+')
		}
		start = ch == ' ' || ch == '['
		b.WriteRune(ch)
	}
	return b.String()
}

// nonZero reports whether the number s starts with has a digit other
// than 0.
func nonZero(s string) bool {
	for _, ch := range s {
		switch {
		case ch >= '1' && ch <= '9':
			return true
		case ch == '0' || ch == '.' || ch == ',':
		default:
			return false
		}
	}
	return false
}

// regressionText is a regression or undecided line, its change rounded
// as the table rounds it (never more precise than its interval):
// "ttft_p99 at concurrency 4: +100% [+30%, +110%], regressed beyond
// ttft_p99:+5% (bootstrap)".
func regressionText(r compare.Check) string {
	row := r.Row
	by := fmtDelta(row)
	if r.Threshold.Abs && row.Metric.Key != "error_rate" {
		by = signed(scaleEstimate(row.Diff.V, row.DiffCI, " "+row.Metric.Unit))
	}
	return fmt.Sprintf("%s at %s: %s, %s", row.Metric.Key, r.Where, by, r.Verdict())
}

// withinRunNote is said under a gate judged on single runs.
const withinRunNote = "note: the gate's intervals come from single runs and cover within-run noise only, not the run-to-run variance a CI gate meets; with each side's levels run 3 or more times (repeats) they come from the spread between runs"

// fmtVerdict is "~", "better", "worse" or "?", with "*" when the tools
// define the metric differently.
func fmtVerdict(r compare.Row) string {
	v := string(r.Verdict)
	if r.Unlike {
		v += " *"
	}
	return v
}

// fmtMethod is the method, with the Mann–Whitney p-value where computed.
func fmtMethod(r compare.Row) string {
	s := string(r.Method)
	if r.P.OK {
		s += ", U p" + fmtP(r.P.V)
	}
	return s
}

// fmtP is "=0.042" or "<0.001".
func fmtP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return "=" + strconv.FormatFloat(p, 'f', 3, 64)
}

// metricName is a row's metric with its unit: "TTFT p99 (ms)".
func metricName(m compare.Metric) string {
	switch m.Unit {
	case "", "%", "load":
		return m.Label
	case "ms":
		return m.Label + " (ms)"
	case "req/s", "concurrency":
		if m.Key == "knee" {
			return m.Label + " (" + m.Unit + ")"
		}
	}
	return m.Label
}

func writeCompareText(w io.Writer, c Comparison, md bool) error {
	var b strings.Builder
	for i, res := range c.Results {
		if i > 0 {
			b.WriteString("\n")
			if md {
				b.WriteString("---\n\n")
			}
		}
		writeOneText(&b, res, md)
		if c.FailOn != "" {
			regs := c.Regressions[i]
			var unchecked []compare.Unchecked
			if i < len(c.Unchecked) {
				unchecked = c.Unchecked[i]
			}
			if len(unchecked) > 0 {
				b.WriteString("\n")
			}
			for _, u := range unchecked {
				fmt.Fprintf(&b, "not checked: %s\n", u)
			}
			var undecided []compare.Check
			if i < len(c.Undecided) {
				undecided = c.Undecided[i]
			}
			switch {
			case len(regs) == 0 && len(unchecked) == 0 && len(undecided) == 0:
				fmt.Fprintf(&b, "\nno regression: every change lies within the fail-on thresholds %q\n", c.FailOn)
			case len(regs) == 0 && len(undecided) == 0:
				b.WriteString("no regression: every change that could be checked lies within its threshold\n")
			}
			for j, r := range regs {
				if j == 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "regression: %s\n", regressionText(r))
			}
			for j, r := range undecided {
				if j == 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "undecided: %s\n", regressionText(r))
			}
			if i < len(c.WithinRunOnly) && c.WithinRunOnly[i] {
				b.WriteString(withinRunNote + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeOneText(b *strings.Builder, res compare.Result, md bool) {
	if md {
		fmt.Fprintf(b, "**A** (baseline): %s  \n**B**: %s\n\n", mdCell(resultName(res.A)), mdCell(resultName(res.B)))
	} else {
		fmt.Fprintf(b, "A: %s\nB: %s\n\n", resultName(res.A), resultName(res.B))
	}
	// The workload check comes first: every mismatch, one line each.
	for _, m := range res.Mismatches {
		line := fmt.Sprintf("workload mismatch: %s %s vs %s", m.Field, m.A, m.B)
		if md {
			line = "- " + mdCell(line)
		}
		b.WriteString(line + "\n")
	}
	if len(res.Unstated) > 0 {
		line := "not comparable: " + strings.Join(res.Unstated, ", ")
		if md {
			line = "- " + mdCell(line)
		}
		b.WriteString(line + "\n")
	}
	if len(res.Mismatches) > 0 {
		b.WriteString("(rows marked ! compare different workloads)\n")
	}
	if len(res.Mismatches) > 0 || len(res.Unstated) > 0 {
		b.WriteString("\n")
	}
	mark := func(r compare.Row) string {
		if r.Mismatch {
			return " !"
		}
		return ""
	}
	if len(res.Summary) > 0 {
		t := &table{cols: []column{{name: "summary"}, {name: "A", right: true}, {name: "B", right: true}, {name: "delta", right: true}, {name: "verdict"}, {name: "method"}}}
		for _, r := range res.Summary {
			name := metricName(r.Metric)
			if r.Level != "" {
				name += " " + r.Level
			}
			t.add(name+mark(r), fmtFigure(r.A, r.ACI, r.Metric), fmtFigure(r.B, r.BCI, r.Metric), fmtDelta(r), fmtVerdict(r), fmtMethod(r))
		}
		writeTable(b, t, md)
		b.WriteString("\n")
	}
	if len(res.Rows) > 0 {
		t := &table{cols: []column{{name: "level"}, {name: "metric"}, {name: "A", right: true}, {name: "B", right: true}, {name: "delta", right: true}, {name: "verdict"}, {name: "method"}}}
		last := ""
		for _, r := range res.Rows {
			lvl := rowLevel(res, r) + mark(r)
			cell := lvl
			if lvl == last && !md {
				cell = ""
			}
			last = lvl
			t.add(cell, metricName(r.Metric), fmtFigure(r.A, r.ACI, r.Metric), fmtFigure(r.B, r.BCI, r.Metric), fmtDelta(r), fmtVerdict(r), fmtMethod(r))
		}
		writeTable(b, t, md)
	} else {
		b.WriteString("no level of A matches a level of B by load\n")
	}
	lone := func(side string, r peer.Result, idx []int) {
		if len(idx) == 0 {
			return
		}
		var names []string
		for _, i := range idx {
			l := r.Levels[i]
			n := peerLoad(l)
			if l.Label != "" && l.Label != n {
				n += " (" + l.Label + ")"
			}
			names = append(names, n)
		}
		fmt.Fprintf(b, "\nlevels only in %s: %s\n", side, strings.Join(names, ", "))
	}
	lone("A", res.A, res.OnlyA)
	lone("B", res.B, res.OnlyB)
	unlike := false
	for _, r := range append(append([]compare.Row(nil), res.Summary...), res.Rows...) {
		unlike = unlike || r.Unlike
	}
	if len(res.Notes) > 0 || unlike {
		b.WriteString("\nnotes (* = defined differently by the two tools; not judged by the fail-on thresholds):\n")
		for _, n := range res.Notes {
			b.WriteString("  - " + n + "\n")
		}
	}
	first := true
	for _, r := range []peer.Result{res.A, res.B} {
		for _, w := range r.Warnings {
			if first {
				b.WriteString("\n")
				first = false
			}
			fmt.Fprintf(b, "warning (%s): %s\n", r.File, w.Message)
		}
	}
}

// writeTable writes t as aligned text, or as a markdown table.
func writeTable(b *strings.Builder, t *table, md bool) {
	if !md {
		_ = t.write(b)
		return
	}
	names := make([]string, len(t.cols))
	align := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
		align[i] = "---"
		if c.right {
			align[i] = "---:"
		}
	}
	b.WriteString("| " + strings.Join(names, " | ") + " |\n| " + strings.Join(align, " | ") + " |\n")
	for _, r := range t.rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = mdCell(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

// mdCell escapes a markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`).Replace(s)
}

// compareJSON is the JSON layout of a comparison.
type compareJSON struct {
	SchemaVersion string        `json:"schema_version"`
	FailOn        string        `json:"fail_on,omitempty"`
	Regressed     bool          `json:"regressed"`
	Comparisons   []compareItem `json:"comparisons"`
}

type sideJSON struct {
	Tool     string        `json:"tool"`
	Version  string        `json:"version,omitempty"`
	File     string        `json:"file"`
	Workload peer.Workload `json:"workload"`
}

type rowJSON struct {
	compare.Row
	Level string `json:"level,omitempty"`
}

type regressionJSON struct {
	Metric    string `json:"metric"`
	Where     string `json:"where"`
	Threshold string `json:"threshold"`
	Message   string `json:"message"`
}

type compareItem struct {
	A           sideJSON           `json:"a"`
	B           sideJSON           `json:"b"`
	Mismatches  []compare.Mismatch `json:"workload_mismatches"`
	Unstated    []string           `json:"unstated,omitempty"`
	Summary     []rowJSON          `json:"summary"`
	Rows        []rowJSON          `json:"rows"`
	OnlyA       []string           `json:"levels_only_in_a,omitempty"`
	OnlyB       []string           `json:"levels_only_in_b,omitempty"`
	Notes       []string           `json:"notes,omitempty"`
	Regressions []regressionJSON   `json:"regressions,omitempty"`
	Undecided   []regressionJSON   `json:"undecided,omitempty"`
	// WithinRunOnly: a gate was judged on single runs' intervals.
	WithinRunOnly bool            `json:"gate_within_run_only,omitempty"`
	Unchecked     []uncheckedJSON `json:"unchecked_gates,omitempty"`
}

type uncheckedJSON struct {
	Metric    string `json:"metric"`
	Threshold string `json:"threshold"`
	Message   string `json:"message"`
}

func side(r peer.Result) sideJSON {
	return sideJSON{Tool: r.Tool, Version: r.ToolVersion, File: r.File, Workload: r.Workload}
}

func writeCompareJSON(w io.Writer, c Comparison) error {
	out := compareJSON{SchemaVersion: "compare/1", FailOn: c.FailOn, Comparisons: []compareItem{}}
	for i, res := range c.Results {
		it := compareItem{A: side(res.A), B: side(res.B), Mismatches: res.Mismatches, Unstated: res.Unstated, Notes: res.Notes,
			Summary: []rowJSON{}, Rows: []rowJSON{}}
		if it.Mismatches == nil {
			it.Mismatches = []compare.Mismatch{}
		}
		for _, r := range res.Summary {
			it.Summary = append(it.Summary, rowJSON{Row: r, Level: r.Level})
		}
		for _, r := range res.Rows {
			it.Rows = append(it.Rows, rowJSON{Row: r, Level: rowLevel(res, r)})
		}
		for _, j := range res.OnlyA {
			it.OnlyA = append(it.OnlyA, peerLoad(res.A.Levels[j]))
		}
		for _, j := range res.OnlyB {
			it.OnlyB = append(it.OnlyB, peerLoad(res.B.Levels[j]))
		}
		if i < len(c.Regressions) {
			for _, r := range c.Regressions[i] {
				it.Regressions = append(it.Regressions, regressionJSON{Metric: r.Row.Metric.Key, Where: r.Where, Threshold: r.Threshold.Text, Message: regressionText(r)})
				out.Regressed = true
			}
		}
		if i < len(c.Undecided) {
			for _, r := range c.Undecided[i] {
				it.Undecided = append(it.Undecided, regressionJSON{Metric: r.Row.Metric.Key, Where: r.Where, Threshold: r.Threshold.Text, Message: regressionText(r)})
			}
		}
		it.WithinRunOnly = i < len(c.WithinRunOnly) && c.WithinRunOnly[i]
		if i < len(c.Unchecked) {
			for _, u := range c.Unchecked[i] {
				it.Unchecked = append(it.Unchecked, uncheckedJSON{Metric: u.Threshold.Metric.Key, Threshold: u.Threshold.Text, Message: u.String()})
			}
		}
		out.Comparisons = append(out.Comparisons, it)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// CompareCSVColumns are the columns of the comparison CSV.
func CompareCSVColumns() []string {
	return []string{"comparison", "a_file", "b_file", "section", "level", "metric", "unit",
		"a", "a_lo", "a_hi", "b", "b_lo", "b_hi", "diff", "diff_lo", "diff_hi", "rel", "rel_lo", "rel_hi",
		"verdict", "method", "p_location", "n_a", "n_b", "unlike", "workload_mismatch", "regression", "gate"}
}

func writeCompareCSV(w io.Writer, c Comparison) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(CompareCSVColumns())
	val := func(v peer.Value) string {
		if !v.OK {
			return ""
		}
		return num(v.V)
	}
	lo := func(i stats.Interval) string {
		if i.IsZero() || !i.LoBounded() {
			return ""
		}
		return num(i.Lo)
	}
	hi := func(i stats.Interval) string {
		if i.IsZero() || !i.HiBounded() {
			return ""
		}
		return num(i.Hi)
	}
	// A p-value to 3 significant figures: more is noise.
	pval := func(v peer.Value) string {
		if !v.OK {
			return ""
		}
		return strconv.FormatFloat(v.V, 'g', 3, 64)
	}
	cnt := func(n peer.Count) string {
		if !n.OK {
			return ""
		}
		return strconv.FormatInt(n.N, 10)
	}
	for i, res := range c.Results {
		failed := map[string]bool{}
		gate := map[string]string{}
		if i < len(c.Regressions) {
			for _, r := range c.Regressions[i] {
				failed[r.Where+"|"+r.Row.Metric.Key] = true
				gate[r.Where+"|"+r.Row.Metric.Key] = string(compare.OutcomeRegressed)
			}
		}
		// A row two terms judge shows the worse outcome.
		rank := map[string]int{"": 0, string(compare.OutcomeWithin): 1, string(compare.OutcomeUndecided): 2, string(compare.OutcomeRegressed): 3}
		if i < len(c.Checks) {
			for _, r := range c.Checks[i] {
				k := r.Where + "|" + r.Row.Metric.Key
				if rank[string(r.Outcome)] > rank[gate[k]] {
					gate[k] = string(r.Outcome)
				}
			}
		}
		for _, m := range res.Mismatches {
			_ = cw.Write(termtext.CSVRow([]string{strconv.Itoa(i + 1), res.A.File, res.B.File, "workload", "", m.Field, "", m.A, "", "", m.B,
				"", "", "", "", "", "", "", "", "", "", "", "", "", "", "true", "", ""}))
		}
		emit := func(section, level, where string, r compare.Row) {
			_ = cw.Write(termtext.CSVRow([]string{strconv.Itoa(i + 1), res.A.File, res.B.File, section, level, r.Metric.Key, r.Metric.Unit,
				val(r.A), lo(r.ACI), hi(r.ACI), val(r.B), lo(r.BCI), hi(r.BCI),
				val(r.Diff), lo(r.DiffCI), hi(r.DiffCI), val(r.Rel), lo(r.RelCI), hi(r.RelCI),
				string(r.Verdict), string(r.Method), pval(r.P), cnt(r.NA), cnt(r.NB),
				strconv.FormatBool(r.Unlike), strconv.FormatBool(r.Mismatch), strconv.FormatBool(failed[where+"|"+r.Metric.Key]), gate[where+"|"+r.Metric.Key]}))
		}
		for _, r := range res.Summary {
			emit("summary", r.Level, "the summary", r)
		}
		for _, r := range res.Rows {
			emit("level", rowLevel(res, r), r.Level, r)
		}
		if i < len(c.Unchecked) {
			for _, u := range c.Unchecked[i] {
				// The reason stands in the method column; regression is
				// "unchecked".
				_ = cw.Write(termtext.CSVRow([]string{strconv.Itoa(i + 1), res.A.File, res.B.File, "unchecked gate", "", u.Threshold.Metric.Key, u.Threshold.Metric.Unit,
					"", "", "", "", "", "", "", "", "", "", "", "", string(compare.VerdictUnknown), u.String(), "", "", "", "", "", "unchecked", "unchecked"}))
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
