package metrics

import (
	"errors"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// SessionStats is what a multi-turn level (loadgen.SessionWorkload)
// measured by turn index and by session. The Accumulator computes it from
// the records' Turn and SessionTurns; a Summary of a level without
// sessions has none (nil).
//
// Per turn, the populations are those of the Summary (requests sent in
// the window; latencies and lengths of the ok ones). Per session, a
// session belongs to the level's window when its first turn was sent in
// it; all its turns then count toward its figures, wherever they fall.
type SessionStats struct {
	// Turns holds one entry per turn index, turn 0 first, up to the
	// highest turn index sent in the window.
	Turns []TurnStats `json:"turns"`

	// Sessions counts the sessions whose first turn was sent in the
	// window; Completed, Failed and Cut split them by how they ended:
	// every planned turn ok; a turn failed (error or timeout), which ends
	// the session; or the level ended first (a turn cut off, or due after
	// the level's end and so never sent).
	Sessions  int64 `json:"sessions"`
	Completed int64 `json:"completed"`
	Failed    int64 `json:"failed"`
	Cut       int64 `json:"cut"`
	// TurnsPlanned is the mean number of turns planned per session, and
	// TurnsCompleted the mean number that finished ok.
	TurnsPlanned   float64 `json:"turns_planned_mean"`
	TurnsCompleted float64 `json:"turns_completed_mean"`
	// TurnsCompletedCounts[i] is the number of sessions with i turns
	// completed ok, i from 0 to the most any session completed.
	TurnsCompletedCounts []int64 `json:"turns_completed_counts"`
	// Duration is the length of each completed session, ms: from its
	// first turn's intended send time (its arrival) to the end of its
	// last turn, think times included.
	Duration Distribution `json:"duration_ms"`
}

// TurnStats is the requests of one turn index of a multi-turn level: turn
// t of every session, sent in the window.
type TurnStats struct {
	Turn int   `json:"turn"` // 0-based turn index
	Sent int64 `json:"sent"` // requests of this turn sent in the window
	OK   int64 `json:"ok"`   // ... that succeeded
	// TTFT and E2E of the ok requests, ms: with a prefix cache, TTFT
	// by turn shows how much of a growing prompt the server prefilled.
	TTFT Distribution `json:"ttft_ms"`
	E2E  Distribution `json:"e2e_ms"`
	// PromptTokens is the achieved ISL of the ok requests, tokens (the
	// records' PromptTokens: the server's usage, else our count): the
	// whole conversation so far, which grows turn by turn by the previous
	// reply and the new user message.
	PromptTokens Distribution `json:"prompt_tokens"`
	// CachedTokens is the server's cached prompt tokens of the ok
	// requests that reported them (usage.prompt_tokens_details.
	// cached_tokens), tokens; Count says how many did.
	CachedTokens Distribution `json:"cached_tokens"`
	// OutputTokens is the achieved OSL of the ok requests, tokens.
	OutputTokens Distribution `json:"output_tokens"`
}

// sessionAccumulator gathers SessionStats; its zero value is ready (and
// stays empty until a session record is added). Not safe for concurrent
// use.
type sessionAccumulator struct {
	turns    []*turnHistograms
	sessions map[int64]*sessionState
}

type turnHistograms struct {
	sent, ok                   int64
	ttft, e2e, isl, cached, os *hdrhistogram.Histogram
}

// sessionState is what one session's records said so far.
type sessionState struct {
	started  bool // its first turn was sent in the window
	arrival  time.Duration
	planned  int
	ok       int
	failed   bool
	lastDone time.Duration
}

// add accounts for rec, whose InWindow is already set.
func (a *sessionAccumulator) add(rec *loadgen.Record) {
	if rec.SessionTurns < 1 || rec.Turn < 0 {
		return
	}
	if a.sessions == nil {
		a.sessions = map[int64]*sessionState{}
	}
	key := rec.Seq
	st := a.sessions[key]
	if st == nil {
		st = &sessionState{}
		a.sessions[key] = st
	}
	st.planned = max(st.planned, rec.SessionTurns)
	ok := rec.Status == loadgen.StatusOK
	if rec.Turn == 0 {
		st.started, st.arrival = rec.InWindow, rec.ScheduledAt
	}
	if ok {
		st.ok++
		st.lastDone = max(st.lastDone, rec.DoneAt)
	}
	st.failed = st.failed || failed(rec.Status)

	if !rec.InWindow {
		return
	}
	for len(a.turns) <= rec.Turn {
		a.turns = append(a.turns, &turnHistograms{ttft: newLatencyHistogram(), e2e: newLatencyHistogram(),
			isl: newTokenHistogram(), cached: newTokenHistogram(), os: newTokenHistogram()})
	}
	h := a.turns[rec.Turn]
	h.sent++
	if !ok {
		return
	}
	h.ok++
	if ttft, has := rec.TTFT(); has {
		recordLatency(h.ttft, ttft)
	}
	recordLatency(h.e2e, rec.E2E())
	recordTokens(h.isl, int64(rec.PromptTokens))
	recordTokens(h.os, int64(rec.OutputTokens))
	if rec.ServerCachedTokens != nil {
		recordTokens(h.cached, int64(*rec.ServerCachedTokens))
	}
}

// stats returns the SessionStats, or nil when no session record was added.
func (a *sessionAccumulator) stats() *SessionStats {
	if a.sessions == nil {
		return nil
	}
	s := &SessionStats{Turns: make([]TurnStats, len(a.turns))}
	memo := rankMemo{}
	for i, h := range a.turns {
		s.Turns[i] = TurnStats{Turn: i, Sent: h.sent, OK: h.ok,
			TTFT: distributionOf(h.ttft, UnitMS, memo), E2E: distributionOf(h.e2e, UnitMS, memo),
			PromptTokens: distributionOf(h.isl, UnitTokens, memo), CachedTokens: distributionOf(h.cached, UnitTokens, memo),
			OutputTokens: distributionOf(h.os, UnitTokens, memo)}
	}
	dur := newLatencyHistogram()
	var planned, completed int64
	for _, st := range a.sessions {
		if !st.started {
			continue
		}
		s.Sessions++
		planned += int64(st.planned)
		completed += int64(st.ok)
		for len(s.TurnsCompletedCounts) <= st.ok {
			s.TurnsCompletedCounts = append(s.TurnsCompletedCounts, 0)
		}
		s.TurnsCompletedCounts[st.ok]++
		switch {
		case st.ok >= st.planned:
			s.Completed++
			recordLatency(dur, st.lastDone-st.arrival)
		case st.failed:
			s.Failed++
		default:
			s.Cut++
		}
	}
	if s.Sessions > 0 {
		s.TurnsPlanned = float64(planned) / float64(s.Sessions)
		s.TurnsCompleted = float64(completed) / float64(s.Sessions)
	}
	s.Duration = distributionOf(dur, UnitMS, memo)
	return s
}

// adjustClient makes a multi-turn level's achieved rate count sessions,
// as its target does (a session is one arrival): the sessions whose first
// turn was sent in the window, per second of it.
func (a *sessionAccumulator) adjustClient(s *Summary) {
	if s.Sessions == nil || s.WindowSeconds <= 0 {
		return
	}
	s.Client.AchievedRate = float64(s.Sessions.Sessions) / s.WindowSeconds
}

// mergeSessions combines the SessionStats of two parts of one level
// (shards, or runs of a repeated level): counts add, distributions merge
// through their histograms, means are weighted by sessions.
func mergeSessions(a, b *SessionStats) (*SessionStats, error) {
	switch {
	case a == nil && b == nil:
		return nil, nil
	case a == nil:
		return b, nil
	case b == nil:
		return a, nil
	}
	out := *a
	out.Turns = append([]TurnStats(nil), a.Turns...)
	var errs []error
	for i, t := range b.Turns {
		if i >= len(out.Turns) {
			out.Turns = append(out.Turns, t)
			continue
		}
		m := &out.Turns[i]
		m.Sent += t.Sent
		m.OK += t.OK
		for _, d := range []struct {
			dst *Distribution
			src Distribution
		}{{&m.TTFT, t.TTFT}, {&m.E2E, t.E2E}, {&m.PromptTokens, t.PromptTokens}, {&m.CachedTokens, t.CachedTokens}, {&m.OutputTokens, t.OutputTokens}} {
			merged, err := Merge(*d.dst, d.src)
			if err != nil {
				errs = append(errs, fmt.Errorf("sessions: turn %d: %w", i, err))
				continue
			}
			*d.dst = merged
		}
	}
	n := out.Sessions + b.Sessions
	if n > 0 {
		out.TurnsPlanned = (a.TurnsPlanned*float64(a.Sessions) + b.TurnsPlanned*float64(b.Sessions)) / float64(n)
		out.TurnsCompleted = (a.TurnsCompleted*float64(a.Sessions) + b.TurnsCompleted*float64(b.Sessions)) / float64(n)
	}
	out.Sessions, out.Completed, out.Failed, out.Cut = n, a.Completed+b.Completed, a.Failed+b.Failed, a.Cut+b.Cut
	counts := make([]int64, max(len(a.TurnsCompletedCounts), len(b.TurnsCompletedCounts)))
	for i, c := range a.TurnsCompletedCounts {
		counts[i] += c
	}
	for i, c := range b.TurnsCompletedCounts {
		counts[i] += c
	}
	out.TurnsCompletedCounts = counts
	d, err := Merge(a.Duration, b.Duration)
	if err != nil {
		errs = append(errs, fmt.Errorf("sessions: duration: %w", err))
	}
	out.Duration = d
	return &out, errors.Join(errs...)
}
