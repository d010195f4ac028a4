package loadgen

import (
	"testing"
	"time"
)

// TestLatencyStart checks where TTFT, TTFOT and E2E start: at wire_at
// with the kernel clock, at sent_at otherwise; the scheduling lag and
// TTFT corrected do not move.
func TestLatencyStart(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	base := Record{ScheduledAt: ms(5), SentAt: ms(10), WireAt: ms(12), HeadersAt: ms(40), FirstTokenAt: ms(50), FirstContentAt: ms(60), LastTokenAt: ms(90), DoneAt: ms(95)}
	for _, tc := range []struct {
		name  string
		clock ReceiveClock
		wire  time.Duration
		start time.Duration
	}{
		{"kernel", ReceiveClockKernel, ms(12), ms(12)},
		{"kernel without a transmit stamp", ReceiveClockKernel, 0, ms(10)},
		{"user", ReceiveClockUser, ms(12), ms(10)},
	} {
		r := base
		r.ReceiveClock, r.WireAt = tc.clock, tc.wire
		ttft, _ := r.TTFT()
		ttfot, _ := r.TTFOT()
		if r.LatencyStart() != tc.start || ttft != ms(50)-tc.start || ttfot != ms(60)-tc.start || r.E2E() != ms(90)-tc.start {
			t.Errorf("%s: start %v, TTFT %v, TTFOT %v, E2E %v; want them from %v", tc.name, r.LatencyStart(), ttft, ttfot, r.E2E(), tc.start)
		}
	}
	none := Record{SentAt: ms(10), WireAt: ms(12), ReceiveClock: ReceiveClockKernel, DoneAt: ms(30)}
	if _, ok := none.TTFOT(); ok || none.E2E() != ms(18) {
		t.Errorf("no tokens: TTFOT ok %v, E2E %v; want none, done_at − wire_at", ok, none.E2E())
	}
}
