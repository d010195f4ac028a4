package loadgen

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// LiveRequest is a request in flight, as the level that sent it sees it
// while it runs: when it was due and sent, and whether its first token has
// come. A Requester reaches it with LiveRequestOf and reports the first
// token with NoteFirstToken, so that a level can judge what its requests
// in flight already show (a request waiting 30 s without a first token has
// a TTFT of at least 30 s) and cut off a level already known to fail
// (Generator.InFlight, Generator.CutOff).
type LiveRequest struct {
	scheduledAt, sentAt time.Duration
	firstToken          atomic.Int64 // offset of the first token, ns; 0: none yet
}

type liveRequestKey struct{}

// LiveRequestOf returns the LiveRequest that ctx carries: the one the
// Generator gives the Requester of each request it sends. Nil when ctx
// carries none (a request sent outside a Generator).
func LiveRequestOf(ctx context.Context) *LiveRequest {
	lr, _ := ctx.Value(liveRequestKey{}).(*LiveRequest)
	return lr
}

// NoteFirstToken records at, the request's first token time (the same
// clock offset as Record.FirstTokenAt). Only the first call counts. Safe
// on a nil LiveRequest and for concurrent use.
func (lr *LiveRequest) NoteFirstToken(at time.Duration) {
	if lr == nil {
		return
	}
	lr.firstToken.CompareAndSwap(0, max(int64(at), 1))
}

// InFlightRequest is a snapshot of one request in flight
// (Generator.InFlight). Times are offsets on the run's Clock.
type InFlightRequest struct {
	ScheduledAt, SentAt time.Duration
	// FirstTokenAt is when its first token came, as its Requester reported
	// it (NoteFirstToken); 0 when none has come, or the Requester does not
	// report it (FirstTokenKnown false).
	FirstTokenAt time.Duration
}

// liveSet holds a level's requests in flight.
type liveSet struct {
	mu sync.Mutex
	m  map[*LiveRequest]struct{}
}

func (s *liveSet) add(lr *LiveRequest) {
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[*LiveRequest]struct{})
	}
	s.m[lr] = struct{}{}
	s.mu.Unlock()
}

func (s *liveSet) remove(lr *LiveRequest) {
	s.mu.Lock()
	delete(s.m, lr)
	s.mu.Unlock()
}

func (s *liveSet) snapshot() []InFlightRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]InFlightRequest, 0, len(s.m))
	for lr := range s.m {
		out = append(out, InFlightRequest{ScheduledAt: lr.scheduledAt, SentAt: lr.sentAt, FirstTokenAt: time.Duration(lr.firstToken.Load())})
	}
	return out
}

// InFlight returns the requests of the level in progress that have been
// sent and have not finished, in no particular order; nil when no level
// is running. Safe for concurrent use.
func (g *Generator) InFlight() []InFlightRequest {
	l := g.current.Load()
	if l == nil {
		return nil
	}
	return l.live.snapshot()
}

// CutOff ends the level in progress now, as Stop does, and cancels every
// request still in flight at once, without the drain timeout: they are
// recorded as StatusCancelled (incomplete), and a level's metrics count
// each as a censored observation. A caller uses it once a level is known
// to fail, so that it does not wait for requests that can only confirm
// it. It reports false when no level is running.
func (g *Generator) CutOff() bool {
	l := g.current.Load()
	if l == nil {
		return false
	}
	l.requestStop()
	l.stop(StopRequested, true)
	return true
}
