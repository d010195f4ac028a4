package loadgen

import "sync/atomic"

// Progress is a snapshot of the level in progress, for a live progress
// line. Counts are requests unless stated; they start from zero at each
// Run.
type Progress struct {
	Level        int   `json:"level"`
	Scheduled    int64 `json:"scheduled"`     // requests scheduled so far
	Sent         int64 `json:"sent"`          // handed to the Requester
	Done         int64 `json:"done"`          // sent and finished (any status)
	Failed       int64 `json:"failed"`        // StatusError or StatusTimeout
	Cancelled    int64 `json:"cancelled"`     // StatusCancelled (sent or not)
	OutputTokens int64 `json:"output_tokens"` // tokens, summed over finished requests
	InFlight     int64 `json:"in_flight"`     // Sent − Done
	Queued       int64 `json:"queued"`        // waiting for a MaxConcurrency slot now
}

// progressCounters are the atomics behind Progress; the level's goroutines
// update them, Progress reads them.
type progressCounters struct {
	scheduled, sent, done, failed, cancelled, outputToks atomic.Int64
	queued                                               atomic.Int64
	levelA                                               atomic.Int64
}

func (p *progressCounters) reset(level int) {
	p.levelA.Store(int64(level))
	for _, c := range []*atomic.Int64{&p.scheduled, &p.sent, &p.done, &p.failed, &p.cancelled, &p.outputToks, &p.queued} {
		c.Store(0)
	}
}

// Progress returns a snapshot of the current (or last) level's counters.
// It is cheap (a few atomic loads) and safe for concurrent use; the
// counters are read one by one, so a snapshot taken mid-level may be off by
// the requests that finished while it was taken.
func (g *Generator) Progress() Progress {
	p := &g.progress
	done := p.done.Load()
	s := Progress{
		Level:        int(p.levelA.Load()),
		Scheduled:    p.scheduled.Load(),
		Sent:         p.sent.Load(),
		Done:         done,
		Failed:       p.failed.Load(),
		Cancelled:    p.cancelled.Load(),
		OutputTokens: p.outputToks.Load(),
		Queued:       p.queued.Load(),
	}
	s.InFlight = max(s.Sent-done, 0)
	return s
}
