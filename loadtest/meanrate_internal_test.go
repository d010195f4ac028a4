package loadtest

import (
	"math"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// A pacer of more than 10 million arrivals in the level is named by the
// rate of those it plans, not by 10 million over the level. Seen (issue
// 26, second review): 10,000 req/s over a 30-minute level was reported
// as 5,556 req/s.
func TestMeanRateOfALongPlan(t *testing.T) {
	every := loadgen.PacerFunc(func(n int64, _ time.Duration) time.Duration { return time.Duration(n) * 100 * time.Microsecond })
	for _, tc := range []struct {
		level time.Duration
		want  float64
	}{
		{2 * time.Second, 10000},
		{30 * time.Minute, 10000},
	} {
		got, err := meanRate(every, tc.level)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("level %v: mean rate %.1f req/s, want %.0f", tc.level, got, tc.want)
		}
	}
}
