package mockserver

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// runScheduler submits sequences at the given offsets (in order) to a
// scheduler built from cfg and returns every sequence's token times as
// offsets from the start. It must run inside a synctest bubble, so the
// times are exact.
func runScheduler(t *testing.T, cfg Config, at []time.Duration, seqs []*sequence) [][]time.Duration {
	t.Helper()
	s := newScheduler(cfg)
	stop := make(chan struct{})
	var owner sync.WaitGroup
	owner.Go(func() { s.run(stop) })
	start := time.Now()
	got := make([][]time.Duration, len(seqs))
	var consumers sync.WaitGroup
	for i, q := range seqs {
		if i == 0 || at[i] != at[i-1] {
			// Submit the arrivals that share an offset at once, so the
			// scheduler cannot start a step between them.
			time.Sleep(time.Until(start.Add(at[i])))
			j := i
			for j < len(seqs) && at[j] == at[i] {
				j++
			}
			s.submit(seqs[i:j]...)
		}
		consumers.Go(func() {
			seen := int64(0)
			for seen < int64(q.target) {
				<-q.wake
				for n := q.produced.Load(); seen < n; seen++ {
					got[i] = append(got[i], time.Since(start))
				}
			}
		})
	}
	consumers.Wait()
	close(stop)
	owner.Wait()
	return got
}

func ms(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSchedulerTiming(t *testing.T) {
	batch := Config{
		Scheduler:       SchedulerBatch,
		MaxBatch:        2,
		ITLBase:         10 * time.Millisecond,
		ITLPerSeq:       1 * time.Millisecond,
		PrefillPerToken: 100 * time.Microsecond,
	}
	tests := []struct {
		name    string
		cfg     Config
		at      []time.Duration
		prompts []int
		targets []int
		want    [][]time.Duration
	}{
		{
			// A and B share steps; C queues behind B=2 until both finish.
			// Step 1: 10 + 2×1 + 20 tokens×0.1 = 14 ms; then 12 ms steps.
			// C: admitted at 38, 10+1+1 = 12 ms, then 11 ms steps.
			name:    "batch queue beyond B",
			cfg:     batch,
			at:      ms(0, 0, 0),
			prompts: []int{10, 10, 10},
			targets: []int{3, 3, 2},
			want:    [][]time.Duration{ms(14, 26, 38), ms(14, 26, 38), ms(50, 61)},
		},
		{
			// B arrives mid-step: it joins at the next step boundary (14 ms),
			// whose step costs 10 + 2×1 + 10×0.1 = 13 ms.
			name:    "batch join at step boundary",
			cfg:     batch,
			at:      ms(0, 5),
			prompts: []int{10, 10},
			targets: []int{3, 2},
			want:    [][]time.Duration{ms(12, 25, 37), ms(25, 37)},
		},
		{
			name:    "batch unlimited grows the step",
			cfg:     Config{Scheduler: SchedulerBatch, ITLBase: 10 * time.Millisecond, ITLPerSeq: 5 * time.Millisecond},
			at:      ms(0, 0, 0),
			targets: []int{2, 2, 1},
			want:    [][]time.Duration{ms(25, 45), ms(25, 45), ms(25)}, // 3 seqs: 25 ms; then 2: 20 ms
		},
		{
			name:    "fixed independent timelines",
			cfg:     Config{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond, PrefillPerToken: time.Millisecond},
			at:      ms(0, 3),
			prompts: []int{0, 2},
			targets: []int{3, 2},
			want:    [][]time.Duration{ms(20, 25, 30), ms(25, 30)},
		},
		{
			name:    "fixed zero ITL gives all tokens at TTFT",
			cfg:     Config{TTFT: 7 * time.Millisecond},
			at:      ms(0),
			targets: []int{3},
			want:    [][]time.Duration{ms(7, 7, 7)},
		},
		{
			name:    "fixed MaxBatch queues",
			cfg:     Config{TTFT: 10 * time.Millisecond, ITL: 10 * time.Millisecond, MaxBatch: 1},
			at:      ms(0, 0),
			targets: []int{2, 2},
			want:    [][]time.Duration{ms(10, 20), ms(30, 40)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				seqs := make([]*sequence, len(tt.targets))
				for i, n := range tt.targets {
					p := 0
					if tt.prompts != nil {
						p = tt.prompts[i]
					}
					seqs[i] = newSequence(p, n)
				}
				got := runScheduler(t, tt.cfg, tt.at, seqs)
				for i := range tt.want {
					if !equalDurations(got[i], tt.want[i]) {
						t.Errorf("sequence %d: token times %v, want %v", i, got[i], tt.want[i])
					}
				}
			})
		})
	}
}

// TestSchedulerCancelFreesSlot checks that a cancelled running sequence
// leaves the batch at the next step, letting a queued one in.
func TestSchedulerCancelFreesSlot(t *testing.T) {
	for _, cfg := range []Config{
		{Scheduler: SchedulerBatch, MaxBatch: 1, ITLBase: 10 * time.Millisecond},
		{TTFT: 10 * time.Millisecond, ITL: 10 * time.Millisecond, MaxBatch: 1},
	} {
		t.Run(string(cfg.Scheduler), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newScheduler(cfg)
				stop := make(chan struct{})
				var owner sync.WaitGroup
				owner.Go(func() { s.run(stop) })
				start := time.Now()
				a, b := newSequence(0, 1000), newSequence(0, 1)
				s.submit(a, b)
				<-a.wake // first token at 10 ms
				synctest.Wait()
				if got := s.waiting.Load(); got != 1 {
					t.Errorf("waiting = %d, want 1 (B=1)", got)
				}
				a.cancelled.Store(true)
				<-b.wake
				if got := time.Since(start); got != 30*time.Millisecond {
					// batch: a's second step ends at 20 ms, b's step at 30 ms;
					// fixed: a leaves at its 20 ms event, b's TTFT ends at 30 ms.
					t.Errorf("b's token at %v, want 30ms", got)
				}
				close(stop)
				owner.Wait()
			})
		})
	}
}

func TestSchedulerGauges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(Config{Scheduler: SchedulerBatch, MaxBatch: 2, ITLBase: 10 * time.Millisecond})
		stop := make(chan struct{})
		var owner sync.WaitGroup
		owner.Go(func() { s.run(stop) })
		seqs := []*sequence{newSequence(0, 2), newSequence(0, 2), newSequence(0, 2), newSequence(0, 2), newSequence(0, 2)}
		s.submit(seqs...)
		synctest.Wait()
		if r, w := s.running.Load(), s.waiting.Load(); r != 2 || w != 3 {
			t.Errorf("running, waiting = %d, %d; want 2, 3", r, w)
		}
		for _, q := range seqs {
			for !q.done() {
				<-q.wake
			}
		}
		synctest.Wait()
		if r, w, g := s.running.Load(), s.waiting.Load(), s.generated.Load(); r != 0 || w != 0 || g != 10 {
			t.Errorf("running, waiting, generated = %d, %d, %d; want 0, 0, 10", r, w, g)
		}
		close(stop)
		owner.Wait()
	})
}

func BenchmarkSchedulerBatchStep(b *testing.B) {
	for _, batch := range []int{16, 256, 4096} {
		b.Run(itoa(batch), func(b *testing.B) {
			b.ReportAllocs()
			s := newScheduler(Config{Scheduler: SchedulerBatch, ITLBase: time.Nanosecond})
			stop := make(chan struct{})
			var owner sync.WaitGroup
			owner.Go(func() { s.run(stop) })
			seqs := make([]*sequence, batch)
			for i := range seqs {
				seqs[i] = newSequence(0, 1<<62)
				s.submit(seqs[i])
			}
			b.ResetTimer()
			start := s.steps.Load()
			for s.steps.Load()-start < int64(b.N) {
				<-seqs[0].wake
			}
			b.StopTimer()
			close(stop)
			owner.Wait()
			b.ReportMetric(float64(batch), "seqs/step")
		})
	}
}

func BenchmarkSchedulerFixedToken(b *testing.B) {
	b.ReportAllocs()
	s := newScheduler(Config{ITL: time.Nanosecond})
	stop := make(chan struct{})
	var owner sync.WaitGroup
	owner.Go(func() { s.run(stop) })
	seqs := make([]*sequence, 1024)
	for i := range seqs {
		seqs[i] = newSequence(0, 1<<62)
		s.submit(seqs[i])
	}
	b.ResetTimer()
	start := s.generated.Load()
	for s.generated.Load()-start < int64(b.N) {
		<-seqs[0].wake
	}
	b.StopTimer()
	close(stop)
	owner.Wait()
}

func itoa(n int) string { return string(appendInt(nil, int64(n))) }
