package loadgen

import "time"

// afterSchedule is what SchedulePacer answers for an arrival past its
// last: about 146 years, later than any level ends, yet far enough from
// the largest Duration that adding a level's start cannot overflow.
const afterSchedule = time.Duration(1 << 62)

// SchedulePacer replays a fixed schedule: arrival i is at Offsets[i], as
// written (a trace's arrival times, say), whatever the server does.
// Offsets must not decrease. The plan has len(Offsets) arrivals: run the
// level with Limits.MaxRequests = len(Offsets) (or fewer) so that it ends
// after the last; arrivals past the end are placed about 146 years out,
// so a level bounded only by MaxDuration sends the schedule and then
// waits for MaxDuration. A SchedulePacer is safe for concurrent use as
// long as Offsets is not modified.
type SchedulePacer struct {
	Offsets []time.Duration // from the level's start; non-decreasing
}

// Arrival returns Offsets[i] (prev is ignored).
func (p SchedulePacer) Arrival(i int64, _ time.Duration) time.Duration {
	if i < 0 || i >= int64(len(p.Offsets)) {
		return afterSchedule
	}
	return p.Offsets[i]
}
