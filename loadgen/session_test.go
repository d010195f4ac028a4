package loadgen

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// chatFake answers each turn after latency with the reply
// "reply-SEQ-TURN", and keeps the messages it was sent, by (seq, turn).
type chatFake struct {
	latency time.Duration
	fail    func(seq int64, turn int) bool

	mu   sync.Mutex
	sent map[[2]int64][]Message
}

func (f *chatFake) Do(ctx context.Context, clock Clock, req *Request, rec *Record) {
	turn := (len(req.Chat.Messages) - 1) / 2
	f.mu.Lock()
	if f.sent == nil {
		f.sent = map[[2]int64][]Message{}
	}
	f.sent[[2]int64{req.Seq, int64(turn)}] = append([]Message(nil), req.Chat.Messages...)
	f.mu.Unlock()
	t := time.NewTimer(f.latency)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		rec.Status, rec.ErrorKind, rec.DoneAt = StatusCancelled, ErrorCancelled, clock.Now()
		return
	}
	rec.DoneAt = clock.Now()
	if f.fail != nil && f.fail(req.Seq, turn) {
		rec.Status, rec.ErrorKind, rec.HTTPStatus = StatusError, ErrorHTTP, 500
		return
	}
	rec.Status = StatusOK
	rec.FirstTokenAt, rec.LastTokenAt = rec.DoneAt, rec.DoneAt
	rec.OutputTokens = req.MaxTokens
	if req.KeepReply {
		req.Reply = fmt.Sprintf("reply-%d-%d", req.Seq, turn)
	}
}

// chatWorkload plans sessions of turns turns with think time think: turn t
// adds the user message "user-SEQ-T" to the history it keeps.
type chatWorkload struct {
	turns   int
	think   time.Duration
	errTurn int // Next fails at this turn (0: never)
}

func (w chatWorkload) Request(seq int64) (Request, error) {
	s, _ := w.Session(seq)
	req, _, err := s.Next(0, "")
	return req, err
}

func (w chatWorkload) Session(seq int64) (Session, error) {
	return &chatSession{w: w, seq: seq}, nil
}

type chatSession struct {
	w       chatWorkload
	seq     int64
	history []Message
}

func (s *chatSession) Turns() int { return s.w.turns }

func (s *chatSession) Next(t int, reply string) (Request, time.Duration, error) {
	if t > 0 && t == s.w.errTurn {
		return Request{}, 0, errors.New("no message")
	}
	if t > 0 {
		s.history = append(s.history, Message{Role: RoleAssistant, Content: reply})
	}
	s.history = append(s.history, Message{Role: RoleUser, Content: fmt.Sprintf("user-%d-%d", s.seq, t)})
	req := Request{Chat: &Chat{Messages: append([]Message(nil), s.history...)}, MaxTokens: 8}
	return req, s.w.think, nil
}

// TestSessionTurnsFollowThinkTime: closed loop, one session at a time:
// each turn is due at its predecessor's end plus the think time, carries
// the whole conversation with the server's replies, and has its own
// record; the session holds the worker through its think times.
func TestSessionTurnsFollowThinkTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &chatFake{latency: time.Second}
		g := newBubbled(fake, chatWorkload{turns: 3, think: 2 * time.Second})
		var sink MemorySink
		res, err := g.Run(context.Background(), 0, Profile{Mode: ModeSynchronous, Concurrency: 1}, Limits{MaxRequests: 2}, &sink)
		if err != nil {
			t.Fatal(err)
		}
		recs := sink.Records()
		if res.Sessions != 2 || res.Scheduled != 6 || res.Written != 6 || len(recs) != 6 || res.Planned != 2 {
			t.Fatalf("sessions %d, scheduled %d, written %d, planned %d, %d records; want 2, 6, 6, 2, 6",
				res.Sessions, res.Scheduled, res.Written, res.Planned, len(recs))
		}
		// Session 0: turns at 0, 1+2, 4+2 s; session 1 starts when it ends (7 s).
		want := []struct {
			seq       int64
			turn      int
			scheduled time.Duration
		}{{0, 0, 0}, {0, 1, 3 * time.Second}, {0, 2, 6 * time.Second}, {1, 0, 7 * time.Second}, {1, 1, 10 * time.Second}, {1, 2, 13 * time.Second}}
		for i, w := range want {
			r := recs[i]
			if r.Seq != w.seq || r.Turn != w.turn || r.SessionTurns != 3 || r.ScheduledAt-res.Start != w.scheduled || r.Status != StatusOK {
				t.Errorf("record %d: seq %d turn %d/%d scheduled %v %s; want seq %d turn %d/3 at %v ok",
					i, r.Seq, r.Turn, r.SessionTurns, r.ScheduledAt-res.Start, r.Status, w.seq, w.turn, w.scheduled)
			}
			if r.SentAt != r.ScheduledAt {
				t.Errorf("record %d: lag %v, want 0", i, r.SentAt-r.ScheduledAt)
			}
		}
		got := fake.sent[[2]int64{1, 2}]
		var roles []string
		for _, m := range got {
			roles = append(roles, m.Role+":"+m.Content)
		}
		wantMsgs := "user:user-1-0 assistant:reply-1-0 user:user-1-1 assistant:reply-1-1 user:user-1-2"
		if strings.Join(roles, " ") != wantMsgs {
			t.Errorf("turn 2 of session 1 sent %q, want %q", strings.Join(roles, " "), wantMsgs)
		}
	})
}

// TestSessionOpenLoopStopsAtMaxDuration: sessions arrive at a constant
// rate whatever their turns do; a turn due after the level's end is not
// scheduled (no record), and every scheduled turn has one record.
func TestSessionOpenLoopStopsAtMaxDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &chatFake{latency: 500 * time.Millisecond}
		g := newBubbled(fake, chatWorkload{turns: 4, think: time.Second})
		var sink MemorySink
		res, err := g.Run(context.Background(), 0, Profile{Mode: ModeConstant, Rate: 1}, Limits{MaxDuration: 5 * time.Second}, &sink)
		if err != nil {
			t.Fatal(err)
		}
		recs := sink.Records()
		if res.Sessions != 5 || int64(len(recs)) != res.Scheduled || res.Written != res.Scheduled {
			t.Fatalf("sessions %d, scheduled %d, written %d, %d records; want 5 sessions and one record per scheduled turn", res.Sessions, res.Scheduled, res.Written, len(recs))
		}
		// Session k arrives at k s; its turns at k, k+1.5, k+3, k+4.5 s:
		// those before 5 s are scheduled.
		want := 0
		for k := range 5 {
			for turn := range 4 {
				if float64(k)+1.5*float64(turn) < 5 {
					want++
				}
			}
		}
		if int(res.Scheduled) != want {
			t.Errorf("scheduled %d turns, want %d", res.Scheduled, want)
		}
		for _, r := range recs {
			if r.ScheduledAt-res.Start >= 5*time.Second {
				t.Errorf("seq %d turn %d scheduled at %v, after the level's 5 s", r.Seq, r.Turn, r.ScheduledAt-res.Start)
			}
		}
		if fake.sent[[2]int64{0, 3}] == nil || fake.sent[[2]int64{1, 3}] != nil {
			t.Error("session 0 should have sent its 4th turn (at 4.5 s) and session 1 not (at 5.5 s)")
		}
	})
}

// TestSessionEndsAtFailedTurn: a failed turn leaves no reply to carry on
// with: the session ends there, the next session follows.
func TestSessionEndsAtFailedTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &chatFake{latency: time.Second, fail: func(seq int64, turn int) bool { return seq == 0 && turn == 1 }}
		g := newBubbled(fake, chatWorkload{turns: 3})
		var sink MemorySink
		res, err := g.Run(context.Background(), 0, Profile{Mode: ModeSynchronous, Concurrency: 1}, Limits{MaxRequests: 2}, &sink)
		if err != nil {
			t.Fatal(err)
		}
		recs := sink.Records()
		if res.Scheduled != 5 || len(recs) != 5 || res.Failed != 1 || res.OK != 4 {
			t.Fatalf("scheduled %d, %d records, %d failed, %d ok; want 5, 5, 1, 4", res.Scheduled, len(recs), res.Failed, res.OK)
		}
		if recs[1].Turn != 1 || recs[1].Status != StatusError || recs[2].Seq != 1 || recs[2].Turn != 0 {
			t.Errorf("records: %+v", recs[:3])
		}
	})
}

// TestSessionWorkloadErrorStopsLevel: a turn the workload cannot build is
// recorded and stops the level, as a failing Workload.Request does.
func TestSessionWorkloadErrorStopsLevel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newBubbled(&chatFake{latency: time.Second}, chatWorkload{turns: 3, errTurn: 2})
		var sink MemorySink
		res, err := g.Run(context.Background(), 0, Profile{Mode: ModeSynchronous, Concurrency: 1}, Limits{MaxRequests: 5}, &sink)
		if err == nil || !strings.Contains(err.Error(), "turn 2") {
			t.Fatalf("err = %v, want the workload's error naming turn 2", err)
		}
		recs := sink.Records()
		if res.StopReason != StopWorkloadError || len(recs) != 3 || recs[2].ErrorKind != ErrorWorkload || res.Scheduled != 3 {
			t.Fatalf("stop %s, %d records (last %s), scheduled %d; want workload_error, 3 records ending in a workload error", res.StopReason, len(recs), recs[len(recs)-1].ErrorKind, res.Scheduled)
		}
	})
}

// TestSessionMaxConcurrencyCountsSessions: in open loop with a cap, a
// session keeps its slot through its think times, so no more than the cap
// of sessions (and so of requests) are active at once; arrivals beyond it
// queue.
func TestSessionMaxConcurrencyCountsSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &chatFake{latency: 100 * time.Millisecond}
		g := newBubbled(fake, chatWorkload{turns: 3, think: time.Second})
		var sink MemorySink
		res, err := g.Run(context.Background(), 0, Profile{Mode: ModeConstant, Rate: 10, MaxConcurrency: 2}, Limits{MaxRequests: 6}, &sink)
		if err != nil {
			t.Fatal(err)
		}
		if res.Sessions != 6 || res.Scheduled != 18 || res.Queued != 4 {
			t.Fatalf("sessions %d, scheduled %d, queued %d; want 6, 18, 4", res.Sessions, res.Scheduled, res.Queued)
		}
		// Sessions 2 and 3 start when sessions 0 and 1 end (2.3 s and 2.4 s).
		for _, r := range sink.Records() {
			if r.Seq == 2 && r.Turn == 0 && r.SentAt-res.Start != 2300*time.Millisecond {
				t.Errorf("session 2 sent at %v, want 2.3 s (when session 0 freed its slot)", r.SentAt-res.Start)
			}
		}
	})
}
