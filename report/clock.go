package report

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/sweep"
)

// clockLines says which receive clock timed the levels' latencies
// (metrics.Summary.ReceiveClock) and, with the kernel clock, the largest
// receive-queueing p99: the client's own delay, which no latency
// includes. None for results without a receive clock (older runs).
func clockLines(res sweep.Result) []string {
	var clocks []string // one per level with a clock, "N clock"
	same, first, note := true, "", ""
	worst, worstLevel := -1.0, 0
	for _, l := range res.Levels {
		s := l.Summary
		if s.ReceiveClock == "" {
			continue
		}
		if first == "" {
			first = s.ReceiveClock
		}
		same = same && s.ReceiveClock == first
		if note == "" {
			note = s.ReceiveClockNote
		}
		clocks = append(clocks, fmt.Sprintf("%d %s", l.Index, s.ReceiveClock))
		if q := s.ReceiveQueue; q.Count > 0 && q.P99 > worst {
			worst, worstLevel = q.P99, l.Index
		}
	}
	if len(clocks) == 0 {
		return nil
	}
	line := "receive clock: " + first
	if !same {
		line = "receive clock by level: " + strings.Join(clocks, ", ")
	}
	if note != "" {
		line += " (" + note + ")"
	}
	lines := []string{line}
	if worst >= 0 {
		lines = append(lines, fmt.Sprintf("client receive queueing p99 (kernel stamp to parsed chunk; in no latency): up to %s ms, level %d", fmtMs(worst), worstLevel))
	}
	return lines
}
