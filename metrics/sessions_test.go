package metrics

import (
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// sessionRecords: three sessions of three planned turns in a 0–100 s
// window: seq 0 completes (ISL 100, 150, 200; TTFT 50, 20, 20 ms; cached
// 0, 96, 144), seq 1 fails at turn 1, seq 2 starts before the window and
// is left out of the session figures; seq 3 is cut at turn 2.
func sessionRecords() []loadgen.Record {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	ms := func(m int) time.Duration { return time.Duration(m) * time.Millisecond }
	cached := func(n int) *int { return &n }
	turn := func(seq int64, t int, at time.Duration, ttft time.Duration, isl int, c *int, st loadgen.Status) loadgen.Record {
		r := loadgen.Record{Seq: seq, Turn: t, SessionTurns: 3, ScheduledAt: at, SentAt: at, Status: st,
			PromptTokens: isl, OutputTokens: 10, ServerCachedTokens: c}
		if st == loadgen.StatusOK {
			r.FirstTokenAt, r.LastTokenAt, r.DoneAt = at+ttft, at+sec(1), at+sec(1)
		} else {
			r.DoneAt = at + ttft
		}
		if st == loadgen.StatusError {
			r.ErrorKind = loadgen.ErrorHTTP
		}
		return r
	}
	ok := loadgen.StatusOK
	return []loadgen.Record{
		turn(2, 0, sec(-5), ms(40), 100, nil, ok), // before the window
		turn(2, 1, sec(1), ms(30), 150, nil, ok),  // in the window, by turn
		turn(0, 0, sec(10), ms(50), 100, cached(0), ok),
		turn(0, 1, sec(13), ms(20), 150, cached(96), ok),
		turn(0, 2, sec(16), ms(20), 200, cached(144), ok),
		turn(1, 0, sec(20), ms(50), 100, cached(0), ok),
		turn(1, 1, sec(23), ms(5), 0, nil, loadgen.StatusError),
		turn(3, 0, sec(90), ms(50), 100, cached(0), ok),
		turn(3, 1, sec(93), ms(20), 150, cached(96), ok),
		turn(3, 2, sec(96), ms(20), 0, nil, loadgen.StatusCancelled),
	}
}

func TestSessionStats(t *testing.T) {
	acc := NewAccumulator(Config{Window: loadgen.Window{Start: 0, End: 100 * time.Second}, Profile: loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 0.05}})
	for _, r := range sessionRecords() {
		acc.Add(&r)
	}
	s := acc.Summary()
	st := s.Sessions
	if st == nil {
		t.Fatal("no session figures")
	}
	if st.Sessions != 3 || st.Completed != 1 || st.Failed != 1 || st.Cut != 1 {
		t.Errorf("sessions %d (completed %d, failed %d, cut %d); want 3 (1, 1, 1)", st.Sessions, st.Completed, st.Failed, st.Cut)
	}
	if want := []int64{0, 1, 1, 1}; len(st.TurnsCompletedCounts) != 4 || st.TurnsCompletedCounts[1] != 1 || st.TurnsCompletedCounts[2] != 1 || st.TurnsCompletedCounts[3] != 1 {
		t.Errorf("turns completed counts %v, want %v", st.TurnsCompletedCounts, want)
	}
	if st.TurnsPlanned != 3 || st.TurnsCompleted != 2 {
		t.Errorf("turns planned %v completed %v, want 3 and 2", st.TurnsPlanned, st.TurnsCompleted)
	}
	// Session 0: arrival 10 s, last turn ends at 17 s.
	if st.Duration.Count != 1 || st.Duration.P50 < 6990 || st.Duration.P50 > 7010 {
		t.Errorf("duration %+v, want one session of 7 s", st.Duration)
	}
	if len(st.Turns) != 3 {
		t.Fatalf("%d turns, want 3", len(st.Turns))
	}
	t0, t1, t2 := st.Turns[0], st.Turns[1], st.Turns[2]
	if t0.Sent != 3 || t0.OK != 3 || t1.Sent != 4 || t1.OK != 3 || t2.Sent != 2 || t2.OK != 1 {
		t.Errorf("sent/ok by turn: %d/%d %d/%d %d/%d; want 3/3 4/3 2/1", t0.Sent, t0.OK, t1.Sent, t1.OK, t2.Sent, t2.OK)
	}
	near := func(v, want float64) bool { return v >= want && v <= want*1.001 } // HDR's 3 significant digits
	if !near(t0.TTFT.P50, 50) || !near(t1.TTFT.P50, 20) || !near(t2.TTFT.Max, 20) {
		t.Errorf("TTFT p50 by turn %v %v %v, want 50 20 20", t0.TTFT.P50, t1.TTFT.P50, t2.TTFT.Max)
	}
	if t0.PromptTokens.Mean != 100 || t1.PromptTokens.Mean != 150 || t2.PromptTokens.Mean != 200 {
		t.Errorf("ISL by turn %v %v %v", t0.PromptTokens.Mean, t1.PromptTokens.Mean, t2.PromptTokens.Mean)
	}
	if t1.CachedTokens.Count != 2 || t1.CachedTokens.Mean != 96 || t2.CachedTokens.Mean != 144 || t0.CachedTokens.Count != 3 {
		t.Errorf("cached by turn: %+v %+v %+v", t0.CachedTokens, t1.CachedTokens, t2.CachedTokens)
	}
	// The achieved rate counts sessions, as the target does.
	if s.Client.AchievedRate != 0.03 {
		t.Errorf("achieved rate %v, want 3 sessions / 100 s", s.Client.AchievedRate)
	}
}

// TestSessionStatsAbsent: a level without sessions has no figures.
func TestSessionStatsAbsent(t *testing.T) {
	acc := NewAccumulator(Config{Window: loadgen.Window{End: time.Second}})
	acc.Add(&loadgen.Record{SentAt: 1, Status: loadgen.StatusOK, DoneAt: 2})
	if s := acc.Summary(); s.Sessions != nil {
		t.Errorf("sessions %+v, want none", s.Sessions)
	}
}

// TestMergeSessionStats: merging two halves gives what one accumulator
// of all records gives.
func TestMergeSessionStats(t *testing.T) {
	cfg := Config{Window: loadgen.Window{Start: 0, End: 100 * time.Second}}
	recs := sessionRecords()
	all, a, b := NewAccumulator(cfg), NewAccumulator(cfg), NewAccumulator(cfg)
	for i, r := range recs {
		r2 := r
		all.Add(&r2)
		if r.Seq%2 == 0 {
			a.Add(&recs[i])
		} else {
			b.Add(&recs[i])
		}
	}
	merged, err := MergeSummaries(a.Summary(), b.Summary())
	if err != nil {
		t.Fatal(err)
	}
	want, got := all.Summary().Sessions, merged.Sessions
	if got.Sessions != want.Sessions || got.Completed != want.Completed || got.Failed != want.Failed || got.Cut != want.Cut ||
		got.TurnsCompleted != want.TurnsCompleted || got.Duration.Count != want.Duration.Count {
		t.Errorf("merged %+v, want %+v", got, want)
	}
	for i := range want.Turns {
		if got.Turns[i].Sent != want.Turns[i].Sent || got.Turns[i].TTFT.P50 != want.Turns[i].TTFT.P50 || got.Turns[i].PromptTokens.Mean != want.Turns[i].PromptTokens.Mean {
			t.Errorf("turn %d: merged %+v, want %+v", i, got.Turns[i], want.Turns[i])
		}
	}
	pooled, err := PoolRepeats(a.Summary(), b.Summary())
	if err != nil || pooled.Sessions == nil || pooled.Sessions.Sessions != want.Sessions {
		t.Errorf("pooled repeats lost the session figures: %v, %+v", err, pooled.Sessions)
	}
}
