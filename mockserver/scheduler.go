package mockserver

import (
	"sync"
	"sync/atomic"
	"time"
)

// sequence is one request inside the scheduler. The scheduler goroutine
// owns next and idx; produced, wake and cancelled are shared.
type sequence struct {
	prompt int // prompt tokens: prefill cost
	target int // tokens to generate

	// produced counts generated tokens; the scheduler increments it and
	// then signals wake (capacity 1, never blocks).
	produced  atomic.Int64
	wake      chan struct{}
	cancelled atomic.Bool // set by the handler when it gives up

	next time.Time // fixed scheduler: next token time
	idx  int       // fixed scheduler: heap index
}

func newSequence(prompt, target int) *sequence {
	return &sequence{prompt: prompt, target: target, wake: make(chan struct{}, 1)}
}

func (q *sequence) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *sequence) done() bool { return q.produced.Load() >= int64(q.target) }

// scheduler is the single goroutine that advances time for every request
// (see the package overview for the two models). Handlers submit
// sequences through an inbox and wait on their wake channel; the
// scheduler never blocks on a handler.
type scheduler struct {
	cfg Config

	mu     sync.Mutex
	inbox  []*sequence
	notify chan struct{} // capacity 1: inbox is non-empty

	running   atomic.Int64 // gauge: sequences in service
	waiting   atomic.Int64 // gauge: sequences queued
	generated atomic.Int64 // counter: tokens generated
	steps     atomic.Int64 // counter: batch steps taken
}

func newScheduler(cfg Config) *scheduler {
	return &scheduler{cfg: cfg, notify: make(chan struct{}, 1)}
}

// submit hands qs to the scheduler, as simultaneous arrivals. It never
// blocks. Safe for concurrent use.
func (s *scheduler) submit(qs ...*sequence) {
	s.mu.Lock()
	s.inbox = append(s.inbox, qs...)
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *scheduler) take(buf []*sequence) []*sequence {
	s.mu.Lock()
	buf = append(buf[:0], s.inbox...)
	clear(s.inbox)
	s.inbox = s.inbox[:0]
	s.mu.Unlock()
	return buf
}

// run advances the model until stop is closed.
func (s *scheduler) run(stop <-chan struct{}) {
	if s.cfg.batch() {
		s.runBatch(stop)
	} else {
		s.runFixed(stop)
	}
}

// fifo is a queue of sequences.
type fifo struct {
	items []*sequence
	head  int
}

func (f *fifo) push(q *sequence) { f.items = append(f.items, q) }
func (f *fifo) len() int         { return len(f.items) - f.head }
func (f *fifo) pop() *sequence {
	q := f.items[f.head]
	f.items[f.head] = nil
	f.head++
	if f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	} else if f.head > 1024 && f.head*2 > len(f.items) {
		n := copy(f.items, f.items[f.head:])
		clear(f.items[n:])
		f.items, f.head = f.items[:n], 0
	}
	return q
}

// maxCatchUp is how far behind its nominal schedule the batch engine may
// fall (a late timer, a starved CPU) and still catch up with shortened
// steps, keeping the modelled token rate; beyond it the schedule restarts
// from now.
const maxCatchUp = 250 * time.Millisecond

// runBatch is the continuous-batching engine. Each step admits queued
// sequences up to MaxBatch, lasts ITLBase + ITLPerSeq·batch +
// PrefillPerToken·(admitted prompt tokens), and at its end gives every
// running sequence one token (a newly admitted one its first).
// Steps are laid back to back on nominal times so that timer lateness
// does not accumulate.
func (s *scheduler) runBatch(stop <-chan struct{}) {
	var (
		running []*sequence
		waiting fifo
		inbox   []*sequence
		next    time.Time // nominal start of the next step; zero when idle
	)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	b := s.cfg.MaxBatch
	for {
		inbox = s.take(inbox)
		for _, q := range inbox {
			waiting.push(q)
		}
		clear(inbox)
		if len(running) == 0 && waiting.len() == 0 {
			s.running.Store(0)
			s.waiting.Store(0)
			next = time.Time{}
			select {
			case <-s.notify:
				continue
			case <-stop:
				return
			}
		}
		now := time.Now()
		start := next
		if start.IsZero() || now.Sub(start) > maxCatchUp {
			start = now // idle before, or far behind: do not burst to catch up
		}
		prefill := 0
		for (b == 0 || len(running) < b) && waiting.len() > 0 {
			q := waiting.pop()
			if q.cancelled.Load() {
				continue
			}
			prefill += q.prompt
			running = append(running, q)
		}
		s.running.Store(int64(len(running)))
		s.waiting.Store(int64(waiting.len()))
		if len(running) == 0 {
			continue
		}
		end := start.Add(s.cfg.ITLBase + s.cfg.ITLPerSeq*time.Duration(len(running)) +
			s.cfg.PrefillPerToken*time.Duration(prefill))
		timer.Reset(time.Until(end))
		select {
		case <-timer.C:
		case <-stop:
			return
		}
		s.steps.Add(1)
		kept := running[:0]
		var made int64
		for _, q := range running {
			if q.cancelled.Load() {
				continue
			}
			made++
			if q.produced.Add(1) < int64(q.target) {
				kept = append(kept, q)
			}
			q.signal()
		}
		clear(running[len(kept):])
		running = kept
		s.generated.Add(made)
		next = end
	}
}

// runFixed gives each sequence its own timeline: first token at admission
// + TTFT + PrefillPerToken·prompt, then one every ITL (all at once when
// ITL is 0). Pending token times sit in a min-heap; one timer is armed
// for the earliest.
func (s *scheduler) runFixed(stop <-chan struct{}) {
	var (
		h         seqHeap
		waiting   fifo
		inbox     []*sequence
		inService int
	)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	b, itl := s.cfg.MaxBatch, s.cfg.ITL
	admit := func(q *sequence, now time.Time) {
		q.next = now.Add(s.cfg.TTFT + s.cfg.PrefillPerToken*time.Duration(q.prompt))
		h.push(q)
		inService++
	}
	release := func(now time.Time) {
		inService--
		for waiting.len() > 0 && (b == 0 || inService < b) {
			if q := waiting.pop(); !q.cancelled.Load() {
				admit(q, now)
			}
		}
	}
	for {
		now := time.Now()
		inbox = s.take(inbox)
		for _, q := range inbox {
			if b > 0 && inService >= b {
				waiting.push(q)
			} else {
				admit(q, now)
			}
		}
		clear(inbox)
		var made int64
		for len(h) > 0 && !h[0].next.After(now) {
			q := h[0]
			if q.cancelled.Load() {
				h.pop()
				release(now)
				continue
			}
			n := int64(1)
			if itl == 0 {
				n = int64(q.target) - q.produced.Load()
			}
			made += n
			if q.produced.Add(n) >= int64(q.target) {
				h.pop()
				release(now)
			} else {
				q.next = q.next.Add(itl)
				if !q.next.After(now) && now.Sub(q.next) >= itl {
					q.next = now.Add(itl) // far behind: do not burst
				}
				h.fix(0)
			}
			q.signal()
		}
		s.generated.Add(made)
		s.running.Store(int64(inService))
		s.waiting.Store(int64(waiting.len()))
		if len(h) == 0 {
			select {
			case <-s.notify:
				continue
			case <-stop:
				return
			}
		}
		timer.Reset(time.Until(h[0].next))
		select {
		case <-timer.C:
		case <-s.notify:
			timer.Stop()
		case <-stop:
			return
		}
	}
}

// seqHeap is a min-heap of sequences by next.
type seqHeap []*sequence

func (h *seqHeap) push(q *sequence) {
	q.idx = len(*h)
	*h = append(*h, q)
	h.up(q.idx)
}

func (h *seqHeap) pop() *sequence {
	old := *h
	q := old[0]
	last := len(old) - 1
	old[0] = old[last]
	old[0].idx = 0
	old[last] = nil
	*h = old[:last]
	if last > 0 {
		h.down(0)
	}
	return q
}

func (h seqHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h seqHeap) less(i, j int) bool { return h[i].next.Before(h[j].next) }

func (h seqHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}

func (h seqHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h seqHeap) down(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}
