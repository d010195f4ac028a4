package loadgen

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// Roles of chat messages (Message.Role).
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one message of a chat conversation: its role (RoleUser,
// RoleAssistant or RoleSystem) and its text.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Chat is a chat conversation: its messages, in order.
type Chat struct {
	Messages []Message
}

// SessionWorkload is a Workload whose arrivals are multi-turn chat
// sessions. A Generator whose workload implements it runs each arrival as
// a session: Session(seq) plans it, then its turns are sent one after the
// other, each turn's request carrying the conversation so far (the user
// messages and the server's actual replies) and a new user message, so
// that the prompt grows turn by turn as in a real chat.
//
// Timing is open loop within a session: turn t > 0 is due at the end
// (Record.DoneAt) of turn t−1 plus the think time Next returned for it,
// whatever the server does; that is its ScheduledAt, and its scheduling
// lag (SentAt − ScheduledAt) is measured from it. The arrival of a session
// is paced like any request (Profile): a session counts as one arrival,
// so Profile.Rate is sessions/s, Profile.Concurrency and MaxConcurrency
// count sessions (a session holds its slot through its think times), and
// Limits.MaxRequests, WarmupRequests and CooldownRequests count sessions.
// Every turn is a request with its own Record (Record.Turn,
// Record.SessionTurns); the turns of a session share its Seq.
//
// A session ends after its last planned turn, at the first turn that does
// not succeed (no reply to carry on with), or when the level stops
// scheduling (MaxDuration, Stop, a limit): a turn due at or after the
// level's MaxDuration, or still waiting out its think time when the level
// stops, is not scheduled and has no record. A turn already sent finishes
// as any request does (drain timeout, cancellation).
//
// Request(seq), the Workload method, is not used by the Generator for
// such a workload; implementations should return the session's first
// turn.
type SessionWorkload interface {
	Workload
	// Session returns the plan of the session that arrival seq starts. It
	// must be deterministic in seq and safe for concurrent use; the
	// Session it returns is used by one goroutine.
	Session(seq int64) (Session, error)
}

// Session builds the requests of one multi-turn session, turn after turn.
// Its methods are called from one goroutine, in order: Turns, then
// Next(0, ""), Next(1, reply of turn 0), ... Deterministic given the
// replies, so that a seeded run is reproducible up to what the server
// said.
type Session interface {
	// Turns is the number of turns planned, at least 1.
	Turns() int
	// Next returns the request of turn t (0-based) given reply, the
	// content the server generated in turn t−1 ("" for t = 0), and the
	// think time between the end of turn t−1 and turn t's intended send
	// time (ignored for t = 0). The request's Chat holds the whole
	// conversation, ending with the new user message, and PromptTokens
	// counts them all when known.
	Next(t int, reply string) (req Request, think time.Duration, err error)
}

// sessionCounters are a multi-turn level's counts beyond one request per
// arrival.
type sessionCounters struct {
	turns atomic.Int64 // turns after the first that were scheduled (each has a record)
	late  atomic.Int64 // ... that fired more than the late tolerance after their intended time
}

// sessionResult completes res for a multi-turn level: Scheduled counted
// arrivals (sessions) and becomes the requests (turns) scheduled, one
// record each; Sessions keeps the arrivals; Late adds the late turns.
func (l *level) sessionResult(res *LevelResult) {
	if _, ok := l.g.workload.(SessionWorkload); !ok {
		return
	}
	res.Sessions = res.Scheduled
	res.Scheduled += l.sess.turns.Load()
	res.Late += l.sess.late.Load()
}

// session runs the session that arrival s starts (SessionWorkload): turn
// 0 at s.at, then each next turn at the end of the previous one plus its
// think time. Every turn scheduled gets exactly one record.
func (l *level) session(s slot, sw SessionWorkload) {
	seq := l.firstSeq + s.k
	var sess Session
	var req Request
	n := 0
	rec := &Record{Seq: seq, Level: l.num, ScheduledAt: s.at, SessionTurns: 1}
	status, done := l.sendTurn(rec, func(sent *bool) {
		var err error
		if sess, err = sw.Session(seq); err == nil {
			if n = sess.Turns(); n < 1 {
				err = fmt.Errorf("session %d plans %d turns, want at least 1", seq, n)
			}
		}
		if err == nil {
			req, _, err = sess.Next(0, "")
		}
		if err != nil {
			l.workloadFailed(rec, err)
			return
		}
		rec.SessionTurns = n
		req.KeepReply = n > 1
		l.send(s, &req, rec, sent)
	})
	var wake *waker
	defer func() {
		if wake != nil {
			wake.close()
		}
	}()
	for t := 1; t < n && status == StatusOK; t++ {
		var think time.Duration
		var err error
		req, think, err = nextTurn(sess, t, req.Reply)
		at := done + think
		if err != nil {
			at = done
		} else {
			if d := l.lim.MaxDuration; d > 0 && at >= l.start+d {
				return // due after the level: not scheduled
			}
			if wake == nil {
				wake = newWaker(l.g.clock, l.g.fineTimer)
			}
			if !l.waitTurn(wake, at) {
				return // the level stopped during the think time
			}
			if l.g.clock.Now()-at > l.g.lateTolerance {
				l.sess.late.Add(1)
			}
		}
		l.sess.turns.Add(1)
		l.g.progress.scheduled.Add(1)
		rec = &Record{Seq: seq, Level: l.num, Turn: t, SessionTurns: n, ScheduledAt: at}
		status, done = l.sendTurn(rec, func(sent *bool) {
			if err != nil {
				l.workloadFailed(rec, err)
				return
			}
			req.KeepReply = t < n-1
			l.send(slot{k: s.k, at: s.at}, &req, rec, sent) // a later turn: its session was not queued
		})
	}
}

// waitTurn waits until at, a turn's intended time, and reports whether
// the turn is to be sent: false when the level stopped scheduling first.
// A level bounded by MaxRequests stops taking arrivals, not the sessions
// it started: their turns go on (as requests in flight finish), unless a
// later stop cancels the requests in flight.
func (l *level) waitTurn(wake *waker, at time.Duration) bool {
	if wake.until(l.schedCtx, at) {
		return true
	}
	l.mu.Lock()
	reason := l.reason
	l.mu.Unlock()
	return reason == StopMaxRequests && wake.until(l.reqCtx, at)
}

// nextTurn is sess.Next with a panic turned into an error.
func nextTurn(sess Session, t int, reply string) (req Request, think time.Duration, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic in Session.Next(%d): %v", t, v)
		}
	}()
	req, think, err = sess.Next(t, reply)
	if err == nil && think < 0 {
		err = fmt.Errorf("turn %d: negative think time %v", t, think)
	}
	return req, think, err
}

// sendTurn runs fn, which builds and sends one turn and fills rec, and
// then emits rec, whatever happens: a panic is recorded as ErrorPanic. It
// returns the turn's status and end (DoneAt), read before rec is handed to
// the sink, which owns it from then on.
func (l *level) sendTurn(rec *Record, fn func(sent *bool)) (status Status, done time.Duration) {
	g := l.g
	sent := false
	defer func() {
		if v := recover(); v != nil {
			g.log.Error("loadgen: panic while handling a request, recovered",
				"seq", rec.Seq, "turn", rec.Turn, "panic", v, "stack", string(debug.Stack()))
			rec.Status, rec.ErrorKind = StatusError, ErrorPanic
			rec.ErrorMessage = fmt.Sprintf("panic: %v", v)
		}
		if rec.DoneAt == 0 {
			rec.DoneAt = g.clock.Now()
		}
		l.finish(rec, sent)
		status, done = rec.Status, rec.DoneAt
		l.emit(rec)
	}()
	fn(&sent)
	return // the deferred function sets the results
}

// workloadFailed records that the workload could not build rec's request,
// and stops the level, as a failing Workload.Request does.
func (l *level) workloadFailed(rec *Record, err error) {
	rec.Status, rec.ErrorKind = StatusError, ErrorWorkload
	rec.ErrorMessage = err.Error()
	l.mu.Lock()
	if l.workloadErr == nil {
		l.workloadErr = fmt.Errorf("workload: session seq %d, turn %d: %w", rec.Seq, rec.Turn, err)
	}
	l.mu.Unlock()
	l.stop(StopWorkloadError, true)
}
