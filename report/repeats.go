package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// repeatLines describes the between-run spread of each repeated level
// (run several times), one line per level and figure, for the console and the HTML
// page: "level 2, 3 runs: ttft_p99 ms: runs 790, 812, 834; mean 812, sd 22;
// between-run [757, 867], within-run [800, 825]". A figure whose runs
// differ more than its within-run interval accounts for is marked. Every
// number is rounded to the precision the between-run interval supports.
// run.json's repeats keep the full values.
func repeatLines(res sweep.Result) []string {
	var lines []string
	for _, l := range res.Levels {
		r := l.Summary.Repeats
		if r == nil || r.Runs < 2 {
			continue
		}
		for _, f := range r.Figures {
			step := roundingStep(f.Mean, f.Between)
			vals := make([]string, len(f.Values))
			for i, v := range f.Values {
				vals[i] = fmtStep(v, step)
			}
			unit := f.Unit
			if unit == "tokens/s" {
				unit = "tok/s"
			}
			line := fmt.Sprintf("level %d, %d runs: %s %s: runs %s; mean %s, sd %s; between-run %s, within-run %s",
				l.Index, r.Runs, f.Name, unit, strings.Join(vals, ", "), fmtStep(f.Mean, step), fmtStep(f.SD, step),
				fmtBounds(f.Between, step), fmtBounds(f.Within, step))
			if f.RunToRun {
				line += " (runs differ more than the within-run interval accounts for: the between-run one is used)"
			}
			lines = append(lines, line)
		}
	}
	if len(lines) > 0 {
		lines = append([]string{"between-run spread of the repeated levels (95 % intervals):"}, lines...)
	}
	return lines
}

// fmtBounds formats an interval alone, "[757, 867]", its bounds rounded to
// step; an open side is "unbounded"; "-" for no interval.
func fmtBounds(ci stats.Interval, step float64) string {
	if ci.IsZero() {
		return "-"
	}
	lo, hi := fmtStep(ci.Lo, step), fmtStep(ci.Hi, step)
	if math.IsInf(ci.Lo, -1) {
		lo = "unbounded"
	}
	if math.IsInf(ci.Hi, 1) {
		hi = "unbounded"
	}
	return "[" + lo + ", " + hi + "]"
}
