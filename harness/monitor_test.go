package harness

import (
	"runtime"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/slo"
)

// TestMonitorMemoryBounded: the precision monitor (every level with an
// SLO has one, to cut a failing level off) kept 64 bytes for every
// finished request, so a soak with --slo grew without bound (issue 25
// item 13). Past maxMonitorRows it keeps a systematic sample: the heap it
// holds does not grow between 2×maxMonitorRows and 8×maxMonitorRows
// records (heap in use after a GC, a deterministic measure with a loose
// bound), and it still judges the level.
func TestMonitorMemoryBounded(t *testing.T) {
	obj, err := slo.Parse("ttft_p99<=100ms,error_rate<=1%")
	if err != nil {
		t.Fatal(err)
	}
	prof := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 1000}
	m := newPrecisionMonitor(slo.Precision{}, obj, prof, loadgen.Limits{MaxDuration: time.Hour}, 0)
	add := func(from, to int) {
		for i := from; i < to; i++ {
			sent := time.Duration(i) * time.Millisecond
			rec := loadgen.Record{Seq: int64(i), SentAt: sent, ScheduledAt: sent, Status: loadgen.StatusOK,
				FirstTokenAt: sent + 20*time.Millisecond + time.Duration(i%7)*time.Millisecond,
				OutputTokens: 16, DoneAt: sent + 100*time.Millisecond}
			rec.LastTokenAt = rec.DoneAt
			m.Add(&rec)
		}
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	n := 2 * maxMonitorRows
	add(0, n)
	before := heap()
	add(n, 4*n)
	after := heap()
	per := (float64(after) - float64(before)) / float64(3*n)
	t.Logf("retained %.2f bytes/record between %d and %d records; %d rows kept, stride %d", per, n, 4*n, len(m.rows), m.stride)
	if per > 4 {
		t.Errorf("the monitor retains %.1f bytes per record, want none (< 4)", per)
	}
	if len(m.rows) > maxMonitorRows || len(m.rows) < maxMonitorRows/2 {
		t.Errorf("%d rows kept, want between %d and %d", len(m.rows), maxMonitorRows/2, maxMonitorRows)
	}
	// The sample spans the whole level, and judges it: every request met
	// the SLO, so it passes (Met, not Failing).
	if first, last := m.rows[0].sentAt, m.rows[len(m.rows)-1].sentAt; first != 0 || last < time.Duration(4*n-int(m.stride))*time.Millisecond {
		t.Errorf("rows span [%v, %v], want the whole level [0, %v]", first, last, time.Duration(4*n)*time.Millisecond)
	}
	p := m.check(time.Duration(4*n)*time.Millisecond, nil)
	if p.Failing || !p.Met || len(p.Undecided) != 0 {
		t.Errorf("check on the sample: %+v, want the level decided, passing", p)
	}
	// Requests in flight are thinned alike: 2×stride censored requests far
	// over the TTFT bound weigh as two sampled ones, not enough to fail a
	// p99 over tens of thousands.
	var in []loadgen.InFlightRequest
	for i := range 2 * m.stride {
		in = append(in, loadgen.InFlightRequest{SentAt: time.Duration(4*n-1000+int(i)) * time.Millisecond})
	}
	if p := m.check(time.Duration(4*n)*time.Millisecond+time.Minute, in); p.Failing {
		t.Errorf("%d requests in flight among %d finished made the level fail: %+v", len(in), 4*n, p)
	}
	if !m.sampled() {
		t.Error("sampled() is false with a stride above 1")
	}
}
