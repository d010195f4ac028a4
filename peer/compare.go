package peer

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// RateTolerance is the relative tolerance within which two offered rates
// match (±5 %, relative to side A's rate).
const RateTolerance = 0.05

// Match pairs level A (index into Result A's Levels) with level B.
type Match struct {
	A, B int
	// Key says why they match: "concurrency 4", "rate 10 req/s", "throughput".
	Key string
}

// Row is one metric of one level, in a plain data form for renderers: of a
// matched level pair (Rows), or of a level only one result has (AllRows).
// Ratio is B/A, missing when either side is missing or A is 0.
type Row struct {
	Level  string // the match key, e.g. "concurrency 4"; for a level only in one result, its Label
	Metric string // e.g. "TTFT p99 (ms)", "output tok/s"; "" for a lone level with none of the metrics
	Unit   string // the unit of A and B: "ms", "tok/s" or "req/s"
	A, B   Value
	Ratio  Value
	// Like is false when the two sides measure the metric differently (their
	// Definition kinds differ); a Note explains how.
	Like bool
	// LevelA and LevelB index A.Levels and B.Levels; -1 on the side that
	// lacks the level (whose Value is then missing).
	LevelA, LevelB int
}

// Note explains a difference between how the two tools define one metric.
type Note struct {
	Metric string     // "TTFT", "ITL", "ICL", "TPOT", "E2E", "output tok/s", "req/s"
	A, B   Definition // each side's source and kind
	Text   string     // for people
}

// Comparison is the result of Compare: matched levels with their rows,
// unmatched levels of each side (listed, never dropped), and definition
// notes. It is plain data, safe for concurrent reads.
type Comparison struct {
	A, B       Result
	Matches    []Match
	UnmatchedA []int // indices into A.Levels with no partner in B
	UnmatchedB []int // indices into B.Levels with no partner in A
	Notes      []Note
}

// Compare matches the levels of a and b by load and lines up their metrics.
// Closed-loop levels match on exact concurrency (synchronous is concurrency
// 1); open-loop levels match when B's offered rate is within RateTolerance of
// A's (the closest wins) and their concurrency caps, where both are known,
// agree; throughput levels match throughput levels whose caps agree or are
// unknown. Each level is used at most once, in A's order.
func Compare(a, b Result) Comparison {
	c := Comparison{A: a, B: b}
	used := make([]bool, len(b.Levels))
	for i, la := range a.Levels {
		best, bestKey, bestDist := -1, "", math.Inf(1)
		for j, lb := range b.Levels {
			if used[j] {
				continue
			}
			key, dist, ok := matchLevels(la, lb)
			if ok && dist < bestDist {
				best, bestKey, bestDist = j, key, dist
			}
		}
		if best < 0 {
			c.UnmatchedA = append(c.UnmatchedA, i)
			continue
		}
		used[best] = true
		c.Matches = append(c.Matches, Match{A: i, B: best, Key: bestKey})
	}
	// A file that states no load (a CSV or per-request export) has one
	// level: pair it with the other side's only level, and say so.
	if len(c.Matches) == 0 && len(a.Levels) == 1 && len(b.Levels) == 1 &&
		(noLoad(a.Levels[0]) || noLoad(b.Levels[0])) {
		c.Matches = []Match{{A: 0, B: 0, Key: OnlyLevelKey}}
		c.UnmatchedA, used[0] = nil, true
	}
	for j := range b.Levels {
		if !used[j] {
			c.UnmatchedB = append(c.UnmatchedB, j)
		}
	}
	c.Notes = notes(c)
	return c
}

// OnlyLevelKey is the Match.Key of two results' only levels paired
// although one side states no load: the comparison cannot check that
// they ran the same load.
const OnlyLevelKey = "the only level (load not stated)"

// noLoad reports whether a level states no load at all: no discipline,
// no rate, no concurrency (a CSV export, inference-perf's summary of every
// stage). A level with a rate but no discipline (inference-perf's stage,
// vLLM's gamma arrivals) states its load.
func noLoad(l Level) bool {
	return l.Mode == ModeUnknown && !l.Rate.OK && l.Concurrency == 0
}

func closedLoopN(l Level) int {
	switch l.Mode {
	case loadgen.ModeSynchronous:
		return 1
	case loadgen.ModeConcurrent:
		return l.Concurrency
	}
	return 0
}

// matchLevels reports whether two levels ran the same load, with a key and a
// distance (smaller is closer).
func matchLevels(a, b Level) (key string, dist float64, ok bool) {
	if na, nb := closedLoopN(a), closedLoopN(b); na > 0 || nb > 0 {
		if na == nb {
			return fmt.Sprintf("concurrency %d", na), 0, true
		}
		return "", 0, false
	}
	if a.Mode == loadgen.ModeThroughput || b.Mode == loadgen.ModeThroughput {
		if a.Mode == b.Mode && (a.MaxConcurrency == b.MaxConcurrency || a.MaxConcurrency == 0 || b.MaxConcurrency == 0) {
			return "throughput", 0, true
		}
		return "", 0, false
	}
	if !a.Rate.OK || !b.Rate.OK || a.Rate.V <= 0 {
		return "", 0, false
	}
	if a.MaxConcurrency > 0 && b.MaxConcurrency > 0 && a.MaxConcurrency != b.MaxConcurrency {
		return "", 0, false
	}
	d := math.Abs(b.Rate.V-a.Rate.V) / a.Rate.V
	if d > RateTolerance {
		return "", 0, false
	}
	return fmt.Sprintf("rate %s req/s", a.Rate), d, true
}

type metricSpec struct {
	name string
	unit string
	note string // the Note.Metric this row belongs to
	get  func(Level) (Value, Definition)
}

// rowSpecs lists the compared metrics in row order.
func rowSpecs() []metricSpec {
	return []metricSpec{
		{"TTFT p50 (ms)", "ms", "TTFT", func(l Level) (Value, Definition) { return l.TTFT.P50, l.Definitions.TTFT }},
		{"TTFT p99 (ms)", "ms", "TTFT", func(l Level) (Value, Definition) { return l.TTFT.P99, l.Definitions.TTFT }},
		{"ITL mean (ms)", "ms", "ITL", func(l Level) (Value, Definition) { return l.ITL.Mean, l.Definitions.ITL }},
		{"ITL p95 (ms)", "ms", "ITL", func(l Level) (Value, Definition) { return l.ITL.P95, l.Definitions.ITL }},
		{"ICL mean (ms)", "ms", "ICL", func(l Level) (Value, Definition) { return l.ICL.Mean, l.Definitions.ICL }},
		{"ICL p95 (ms)", "ms", "ICL", func(l Level) (Value, Definition) { return l.ICL.P95, l.Definitions.ICL }},
		{"E2E p50 (ms)", "ms", "E2E", func(l Level) (Value, Definition) { return l.E2E.P50, l.Definitions.E2E }},
		{"E2E p99 (ms)", "ms", "E2E", func(l Level) (Value, Definition) { return l.E2E.P99, l.Definitions.E2E }},
		{"output tok/s", "tok/s", "output tok/s", func(l Level) (Value, Definition) { return l.OutputTokPerSec, l.Definitions.OutputTokPerSec }},
		{"req/s", "req/s", "req/s", func(l Level) (Value, Definition) { return l.ReqPerSec, l.Definitions.ReqPerSec }},
	}
}

// Rows returns one Row per metric per matched level pair, in match order,
// leaving out metrics that neither side has. TPOT is not compared row by row
// (tools disagree on what it is); Notes say how.
func (c Comparison) Rows() []Row {
	var rows []Row
	for _, m := range c.Matches {
		la, lb := c.A.Levels[m.A], c.B.Levels[m.B]
		for _, s := range rowSpecs() {
			va, da := s.get(la)
			vb, db := s.get(lb)
			if !va.OK && !vb.OK {
				continue
			}
			r := Row{Level: m.Key, Metric: s.name, Unit: s.unit, A: va, B: vb, Like: da.Kind == db.Kind || !va.OK || !vb.OK, LevelA: m.A, LevelB: m.B}
			if va.OK && vb.OK && va.V != 0 {
				r.Ratio = Some(vb.V / va.V)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// AllRows returns Rows, then the rows of each level only A has (in A's
// order), then of each level only B has: the metrics that side reports,
// the other side and the ratio missing. A lone level with none of the
// metrics still gets one row, with an empty Metric, so no level is left
// out.
func (c Comparison) AllRows() []Row {
	rows := c.Rows()
	lone := func(l Level, ia, ib int) {
		n := 0
		for _, s := range rowSpecs() {
			v, _ := s.get(l)
			if !v.OK {
				continue
			}
			r := Row{Level: l.Label, Metric: s.name, Unit: s.unit, Like: true, LevelA: ia, LevelB: ib}
			if ia >= 0 {
				r.A = v
			} else {
				r.B = v
			}
			rows = append(rows, r)
			n++
		}
		if n == 0 {
			rows = append(rows, Row{Level: l.Label, Like: true, LevelA: ia, LevelB: ib})
		}
	}
	for _, i := range c.UnmatchedA {
		lone(c.A.Levels[i], i, -1)
	}
	for _, j := range c.UnmatchedB {
		lone(c.B.Levels[j], -1, j)
	}
	return rows
}

// notes lists, once per metric and pair of kinds, where the two sides'
// definitions differ among matched levels, and where a tool's own name for a
// metric means something else here (vLLM's "ITL" is our ICL).
func notes(c Comparison) []Note {
	native := definitionList(Native())
	var out []Note
	seen := map[string]bool{}
	for _, m := range c.Matches {
		da := definitionList(c.A.Levels[m.A].Definitions)
		db := definitionList(c.B.Levels[m.B].Definitions)
		for k := range da {
			a, b := da[k], db[k]
			if a.def.Kind == b.def.Kind {
				continue
			}
			// One side lacks the metric: worth a note only when the other
			// side's figure is not what gollm-bench means by the name.
			if (a.def.Kind == "" && b.def.Kind == native[k].def.Kind) || (b.def.Kind == "" && a.def.Kind == native[k].def.Kind) {
				continue
			}
			key := a.name + "|" + string(a.def.Kind) + "|" + string(b.def.Kind)
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, Note{Metric: a.name, A: a.def, B: b.def, Text: noteText(a.name, c.A.Tool, a.def, c.B.Tool, b.def)})
		}
		for _, side := range []struct {
			tool string
			defs []namedDef
		}{{c.A.Tool, da}, {c.B.Tool, db}} {
			for _, d := range side.defs {
				if d.def.Name == "" || d.def.Name == d.name {
					continue
				}
				key := "name|" + side.tool + "|" + d.name
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, Note{Metric: d.name, A: d.def, B: d.def, Text: fmt.Sprintf(
					"%s's %q (%s) is %s: compared as %s", side.tool, d.def.Name, d.def.Source, d.def.Kind.Describe(), d.name)})
			}
		}
	}
	return out
}

type namedDef struct {
	name string
	def  Definition
}

func definitionList(d Definitions) []namedDef {
	return []namedDef{
		{"TTFT", d.TTFT}, {"ITL", d.ITL}, {"ICL", d.ICL}, {"TPOT", d.TPOT}, {"E2E", d.E2E},
		{"output tok/s", d.OutputTokPerSec}, {"req/s", d.ReqPerSec},
	}
}

func noteText(metric, toolA string, a Definition, toolB string, b Definition) string {
	side := func(tool string, d Definition) string {
		if d.Kind == "" {
			return tool + ": not reported"
		}
		return fmt.Sprintf("%s %s = %s", tool, d.Source, d.Kind.Describe())
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s differs: %s; %s", metric, side(toolA, a), side(toolB, b))
	switch {
	case metric == "TPOT":
		sb.WriteString(" (TPOT is not compared row by row)")
	case a.Kind == KindITLTokenWeighted || b.Kind == KindITLTokenWeighted:
		sb.WriteString(" (same per-request value, different weighting: the means agree only when every request has the same OSL)")
	}
	return sb.String()
}

// WriteText writes c as a plain-text table: one block per matched level with
// each metric for A, B and B/A, then unmatched levels and notes. It only
// formats; all figures come from Rows, unrounded. `gollm-bench compare`
// prints report.WriteComparison of package compare's decisions instead.
func WriteText(w io.Writer, c Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "A: %s %s (%s)\nB: %s %s (%s)\n", c.A.Tool, c.A.ToolVersion, c.A.File, c.B.Tool, c.B.ToolVersion, c.B.File)
	last := ""
	for _, r := range c.Rows() {
		if r.Level != last {
			fmt.Fprintf(tw, "\n%s\tA\tB\tB/A\n", r.Level)
			last = r.Level
		}
		ratio := r.Ratio.String()
		if r.Ratio.OK {
			ratio = strconv.FormatFloat(r.Ratio.V, 'g', 4, 64)
		}
		if !r.Like {
			ratio += " *"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Metric, r.A, r.B, ratio)
	}
	for _, i := range c.UnmatchedA {
		fmt.Fprintf(tw, "\nunmatched in A: %s\n", c.A.Levels[i].Label)
	}
	for _, i := range c.UnmatchedB {
		fmt.Fprintf(tw, "\nunmatched in B: %s\n", c.B.Levels[i].Label)
	}
	if len(c.Notes) > 0 {
		fmt.Fprintln(tw, "\nnotes (* = defined differently):")
		for _, n := range c.Notes {
			fmt.Fprintf(tw, "  - %s\n", n.Text)
		}
	}
	return tw.Flush()
}
