package loadgen

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// slowWorkload takes cost (of fake time, in a synctest bubble) to build
// each request, as a long prompt cut to an exact token count does, and
// counts the builds of each seq.
type slowWorkload struct {
	cost   time.Duration
	mu     sync.Mutex
	builds map[int64]int
}

func (w *slowWorkload) Request(seq int64) (Request, error) {
	time.Sleep(w.cost)
	w.mu.Lock()
	w.builds[seq]++
	w.mu.Unlock()
	return Request{Prompt: "a long prompt", MaxTokens: 16}, nil
}

// TestPrefetchOffSendPath is the long-context observation of issue 19 as a
// test: a workload that takes 70 ms to build each prompt (a 50,000-token
// prompt and its re-encoding) put 70 ms of scheduling lag on every
// request of a concurrency-2 level. Built ahead, no request waits for its
// prompt, and each is built once.
func TestPrefetchOffSendPath(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []Option
		wantLag time.Duration
	}{
		{"built ahead", nil, 0},
		{"built when due", []Option{WithPrefetch(0, 0)}, 70 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := &slowWorkload{cost: 70 * time.Millisecond, builds: map[int64]int{}}
				g := newBubbled(newFake(2*time.Second), w, tc.opts...)
				var sink MemorySink
				res, err := g.Run(t.Context(), 0, Profile{Mode: ModeConcurrent, Concurrency: 2}, Limits{MaxRequests: 12}, &sink)
				if err != nil {
					t.Fatal(err)
				}
				recs := bySeq(sink.Records())
				checkComplete(t, res, recs)
				for _, r := range recs {
					if lag := r.SentAt - r.ScheduledAt; lag != tc.wantLag {
						t.Errorf("seq %d: lag %v, want %v", r.Seq, lag, tc.wantLag)
					}
					if r.Status != StatusOK {
						t.Errorf("seq %d: %s", r.Seq, r.Status)
					}
				}
				for seq, n := range w.builds {
					if n != 1 {
						t.Errorf("seq %d built %d times", seq, n)
					}
				}
				if len(w.builds) > 12+DefaultPrefetchRequests {
					t.Errorf("%d requests built for a 12-request level", len(w.builds))
				}
			})
		})
	}
}

// TestPrefetchOpenLoopAndShards checks the plan order of an open-loop,
// sharded level: every request of this shard is built once, before it is
// due, and none of the other shard's.
func TestPrefetchOpenLoopAndShards(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &slowWorkload{cost: 30 * time.Millisecond, builds: map[int64]int{}}
		g := newBubbled(newFake(100*time.Millisecond), w, WithShard(1, 2), WithSeqStart(100))
		var sink MemorySink
		res, err := g.Run(t.Context(), 0, Profile{Mode: ModeConstant, Rate: 10}, Limits{MaxRequests: 20}, &sink)
		if err != nil {
			t.Fatal(err)
		}
		recs := bySeq(sink.Records())
		if len(recs) != 10 || res.Written != 10 {
			t.Fatalf("%d records, want shard 1's 10 of 20", len(recs))
		}
		for _, r := range recs {
			if (r.Seq-100)%2 != 1 {
				t.Errorf("seq %d is not shard 1's", r.Seq)
			}
			if lag := r.SentAt - r.ScheduledAt; lag != 0 {
				t.Errorf("seq %d: lag %v, want 0", r.Seq, lag)
			}
		}
		for seq, n := range w.builds {
			if n != 1 || (seq-100)%2 != 1 {
				t.Errorf("seq %d built %d times", seq, n)
			}
		}
	})
}

// TestPrefetchBounded checks that building ahead stops at the request and
// byte bounds.
func TestPrefetchBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &slowWorkload{cost: time.Millisecond, builds: map[int64]int{}}
		g := newBubbled(newFake(time.Hour), w, WithPrefetch(5, 1<<20))
		var sink MemorySink
		// One worker stuck on an hour-long request: the prefetcher can
		// only run ahead.
		_, err := g.Run(t.Context(), 0, Profile{Mode: ModeConcurrent, Concurrency: 1}, Limits{MaxDuration: time.Minute}, &sink)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(w.builds); n > 1+5 {
			t.Errorf("%d requests built with 1 in flight and at most 5 ahead", n)
		}
	})
}

// timedWorkload is slowWorkload that also keeps when each build ended.
type timedWorkload struct {
	slowWorkload
	done []time.Time
}

func (w *timedWorkload) Request(seq int64) (Request, error) {
	req, err := w.slowWorkload.Request(seq)
	w.mu.Lock()
	w.done = append(w.done, time.Now())
	w.mu.Unlock()
	return req, err
}

// TestPrefetchPlanBuiltBeforeClock: a 200-request Poisson level at 800
// req/s of exact-length 1,450-token prompts (--data with --tokenizer, each
// prompt cut and re-encoded, about 1 ms), with the client pinned to one
// core, showed lag p99 19-39 ms: the prefetching goroutine built the
// prompts while the level ran, and on the process's only CPU each build
// held up the pacer. A plan that fits the prefetch bounds and takes under
// a second to build is now built before the level's clock starts (lag p99
// 0.4-1.2 ms in the same A/B): no build overlaps an arrival.
func TestPrefetchPlanBuiltBeforeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &timedWorkload{slowWorkload: slowWorkload{cost: time.Millisecond, builds: map[int64]int{}}}
		g := newBubbled(newFake(50*time.Millisecond), w)
		var sink MemorySink
		res, err := g.Run(t.Context(), 0, Profile{Mode: ModeConstant, Rate: 800}, Limits{MaxRequests: 200}, &sink)
		if err != nil {
			t.Fatal(err)
		}
		checkComplete(t, res, bySeq(sink.Records()))
		start := g.Clock().Start().Add(res.Start)
		if len(w.done) != 200 {
			t.Fatalf("%d builds, want 200", len(w.done))
		}
		late := 0
		for _, at := range w.done {
			if at.After(start) {
				late++
			}
		}
		if late > 0 {
			t.Errorf("%d of 200 requests built after the level's clock started", late)
		}
	})
}
