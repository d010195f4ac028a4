package metrics

import (
	"testing"

	"github.com/gollm-bench/gollm-bench/stats"
)

// TestRepeatBetweenNotNegative: two runs of a level whose TTFT p99 was 2
// and 5 ms printed "between-run [-15, 22]": a latency no run could
// measure. The interval stops at 0 when every run's figure is >= 0.
func TestRepeatBetweenNotNegative(t *testing.T) {
	f := NewRepeatFigure("ttft_p99", "ms", []float64{2, 5}, stats.Interval{Lo: 1, Hi: 6})
	if f.Between.Lo != 0 || f.Between.Hi < 5 {
		t.Errorf("between %v, want [0, >= 5]", f.Between)
	}
	g := NewRepeatFigure("delta", "ms", []float64{-2, 5}, stats.Interval{Lo: -3, Hi: 6})
	if g.Between.Lo >= 0 {
		t.Errorf("a figure that can be negative: between %v, want below 0", g.Between)
	}
}
