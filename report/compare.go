package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/peer"
)

// WriteComparison writes c, two results side by side (`gollm-bench
// compare`, SPEC §10), as one aligned text table: a line naming A and B,
// then a row per metric per level with A, B and B/A. Matched levels come
// first, named by their load ("concurrency 4", "7.4 req/s"); then each
// level only one result has, in rows labelled "only in A" or "only in B"
// with the level's load and its own name, and "-" on the missing side.
// Latencies are in ms and rates in tokens/s or req/s, rounded as in the
// console report; "-" is a figure the file does not hold, and "*" after a
// ratio marks a metric the two tools define differently, explained in the
// notes under the table. It only formats: every figure comes from
// c.AllRows and c.Notes. Safe for concurrent use (it only reads c).
func WriteComparison(w io.Writer, c peer.Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n\n", resultName(c.A), resultName(c.B))
	rows := c.AllRows()
	if len(rows) == 0 {
		b.WriteString("no levels in either result\n")
	} else {
		t := &table{cols: []column{
			{name: "level"}, {name: "metric"}, {name: "A", right: true}, {name: "B", right: true}, {name: "B/A", right: true},
		}}
		unlike := false
		last := [2]int{-2, -2}
		for _, r := range rows {
			level := ""
			if at := [2]int{r.LevelA, r.LevelB}; at != last {
				level, last = comparedLevel(c, r), at
			}
			metric := r.Metric
			if metric == "" {
				metric = "(none of the compared metrics)"
			}
			ratio := "-"
			if r.Ratio.OK {
				ratio = fmtRatio(r.Ratio.V)
			}
			if !r.Like {
				ratio += " *"
				unlike = true
			}
			t.add(level, metric, fmtCompared(r.A, r.Unit), fmtCompared(r.B, r.Unit), ratio)
		}
		if err := t.write(&b); err != nil {
			return err
		}
		if unlike && len(c.Notes) == 0 {
			b.WriteString("\n* = defined differently by the two tools\n")
		}
	}
	if len(c.Notes) > 0 {
		b.WriteString("\nnotes (* = defined differently):\n")
		for _, n := range c.Notes {
			b.WriteString("  - " + n.Text + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// comparedLevel names the level of a row: its load for a matched pair,
// "only in A: LOAD (NAME)" for a level one result lacks.
func comparedLevel(c peer.Comparison, r peer.Row) string {
	switch {
	case r.LevelA >= 0 && r.LevelB >= 0:
		return peerLoad(c.A.Levels[r.LevelA])
	case r.LevelA >= 0:
		return loneLevel("A", c.A.Levels[r.LevelA])
	case r.LevelB >= 0:
		return loneLevel("B", c.B.Levels[r.LevelB])
	}
	return r.Level
}

func loneLevel(side string, l peer.Level) string {
	s := "only in " + side + ": " + peerLoad(l)
	if l.Label != "" && l.Label != peerLoad(l) {
		s += " (" + l.Label + ")"
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

// fmtCompared formats a compared figure in its unit (the unit is in the
// metric's name), or "-" when the file does not hold it.
func fmtCompared(v peer.Value, unit string) string {
	if !v.OK {
		return "-"
	}
	if unit == "ms" {
		return fmtMs(v.V)
	}
	return fmtRate(v.V)
}

// fmtRatio formats a ratio B/A: as fmtRate from 1 up, with two
// significant figures below, so that a small ratio never reads 0.
func fmtRatio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 0.995 || v == 0 {
		return fmtRate(v)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
