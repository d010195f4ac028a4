package report

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// levelsTable is report.html's table of levels: the console's figures,
// each interval on a second line under its estimate so the table fits a
// 1280 px window without scrolling, the verdict next to the load, and the
// knee row marked.
type levelsTable struct {
	Groups []groupSpan
	Heads  []string
	Rows   []htmlLevelRow
}

type htmlLevelRow struct {
	Swatch string // the level's colour on the time plots
	Class  string // "knee", "partial" or ""
	Cells  []htmlCell
}

// htmlCell is a table cell: its figure, an optional second line (the
// interval), and a CSS class.
type htmlCell struct {
	Main, Sub, Class string
	Left             bool
}

// htmlLevels builds the levels table.
func htmlLevels(res sweep.Result) levelsTable {
	errAdj := false
	for _, l := range res.Levels {
		errAdj = errAdj || l.Summary.Requests.Failed > 0
	}
	withSLO := !res.Objective.IsZero()
	t := levelsTable{}
	group := func(label string, heads ...string) {
		t.Groups = append(t.Groups, groupSpan{label, len(heads)})
		t.Heads = append(t.Heads, heads...)
	}
	group("level", "lvl", "phase", "load")
	if withSLO {
		group("", "verdict")
	}
	group("requests", "ok", "fail", "censored")
	ttft := []string{"p50", "p99"}
	if errAdj {
		ttft = append(ttft, "p99 err-adj")
	}
	group("TTFT ms", ttft...)
	group("ITL ms", "p50", "p95")
	group("E2E ms", "p99")
	out := []string{"tok/s", "req/s", "tok/chunk"}
	if withSLO {
		out = append([]string{"tok/s", "goodput tok/s"}, out[1:]...)
	}
	group("output", out...)
	withCost := res.Cost.Seconds > 0
	if withCost {
		group("cost", "requests", "s")
	}
	group("client", "lag p99 ms", "flags")
	for _, l := range res.Levels {
		s := l.Summary
		r := htmlLevelRow{Swatch: levelColorHex(l.Index)}
		switch {
		case kneeReached(res) && l.Index == res.Knee.Level:
			r.Class = "knee"
		case l.Partial:
			r.Class = "partialrow"
		}
		lvl := fmt.Sprint(l.Index)
		if r.Class == "knee" {
			lvl += " knee"
		}
		r.Cells = append(r.Cells,
			htmlCell{Main: lvl},
			htmlCell{Main: string(l.Phase), Left: true},
			htmlCell{Main: fmtLoad(l.OfferedLoad, l.Unit), Sub: profileMode(l.Profile), Left: true},
		)
		if withSLO {
			v := verdictText(res, l)
			word, why, _ := strings.Cut(v, " ")
			r.Cells = append(r.Cells, htmlCell{Main: word, Sub: strings.ReplaceAll(why, ",", ", "), Class: string(l.Verdict.Outcome), Left: true})
		}
		r.Cells = append(r.Cells,
			htmlCell{Main: thousands(float64(s.Requests.OK), 0)},
			failCell(s.Requests.Failed),
			htmlCell{Main: thousands(float64(s.Requests.Incomplete), 0)},
			htmlCell{Main: fmtDistRounded(s.TTFT, s.TTFT.P50, s.TTFT.P50CI)},
			ciCell(s.TTFT, s.TTFT.P99, s.TTFT.P99CI),
		)
		if errAdj {
			c := htmlCell{}
			if s.Requests.Failed > 0 {
				c.Main = fmtDistRounded(s.TTFTErrorAdjusted, s.TTFTErrorAdjusted.P99, s.TTFTErrorAdjusted.P99CI)
			}
			r.Cells = append(r.Cells, c)
		}
		r.Cells = append(r.Cells,
			htmlCell{Main: fmtDistRounded(s.ITL, s.ITL.P50, s.ITL.P50CI)},
			ciCell(s.ITL, s.ITL.P95, s.ITL.P95CI),
			htmlCell{Main: fmtDistRounded(s.E2E, s.E2E.P99, s.E2E.P99CI)},
			rateCell(s.OutputTokensPerSecond, s.OutputTokensPerSecondCI),
		)
		if withSLO {
			r.Cells = append(r.Cells, rateCell(s.Goodput.OutputTokensPerSecond, s.Goodput.OutputTokensPerSecondCI))
		}
		r.Cells = append(r.Cells,
			htmlCell{Main: fmtRate(s.RequestsPerSecond)},
			htmlCell{Main: fmtTokens(s.TokensPerChunk, s.TokensPerChunk.Mean)},
		)
		if withCost {
			r.Cells = append(r.Cells, htmlCell{Main: thousands(float64(l.Cost.Requests), 0)}, htmlCell{Main: fmtCostSeconds(l.Cost.Seconds)})
		}
		r.Cells = append(r.Cells,
			htmlCell{Main: fmtDist(s.Lag, s.Lag.P99)},
			htmlCell{Main: levelFlags(l), Left: true},
		)
		t.Rows = append(t.Rows, r)
	}
	return t
}

// profileMode names a level's load mode under its load: "synchronous",
// "constant", "throughput (max 512)".
func profileMode(p loadgen.Profile) string {
	s := string(p.Mode)
	if p.MaxConcurrency > 0 {
		s += fmt.Sprintf(" (max %d)", p.MaxConcurrency)
	}
	return s
}

// ciCell is a distribution statistic with its interval below.
func ciCell(d metrics.Distribution, v float64, ci stats.Interval) htmlCell {
	if d.Count == 0 {
		return htmlCell{Main: "-"}
	}
	m, sub := splitEstimate(fmtEstimate(v, ci))
	return htmlCell{Main: m, Sub: sub}
}

// rateCell is a rate with its interval below.
func rateCell(v float64, ci stats.Interval) htmlCell {
	m, sub := splitEstimate(fmtEstimate(v, ci))
	return htmlCell{Main: m, Sub: sub}
}

func failCell(n int64) htmlCell {
	c := htmlCell{Main: thousands(float64(n), 0)}
	if n > 0 {
		c.Class = "fail"
	}
	return c
}
