package report

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// TestTicks: the issue saw a concurrency axis ticked "25.00 / 75.00" and a
// log TTFT axis with a single label.
func TestTicks(t *testing.T) {
	for _, tt := range []struct {
		name   string
		ticker plot.Ticker
		lo, hi float64
		want   string
	}{
		{"concurrency", linearTicks{integer: true}, 1, 100, "20 40 60 80 100"},
		{"small concurrency", linearTicks{integer: true}, 1, 4, "1 2 3 4"},
		{"rates", linearTicks{}, 1.9, 9.8, "2 4 6 8"},
		{"fractions", linearTicks{}, 0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"}, // one number of decimals per axis
		{"thousands", linearTicks{}, 0, 2600, "0 500 1,000 1,500 2,000 2,500"},
		{"log TTFT narrow", logTicks{}, 90, 600, "100 200 500"},
		{"log TTFT", logTicks{}, 20, 9000, "20 50 100 200 500 1,000 2,000 5,000"},
		{"log wide", logTicks{}, 0.5, 2e6, "1 10 100 1,000 10,000 100,000 1,000,000"},
		{"log within a decade", logTicks{}, 120, 180, "120 130 140 150 160 170 180"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var labels []string
			for _, tk := range tt.ticker.Ticks(tt.lo, tt.hi) {
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if got := strings.Join(labels, " "); got != tt.want {
				t.Errorf("labels %q, want %q", got, tt.want)
			}
		})
	}
}
