package loadgen

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Prefetch defaults (WithPrefetch).
const (
	// DefaultPrefetchRequests is how many requests a level builds ahead
	// of their scheduled time, at most.
	DefaultPrefetchRequests = 256
	// DefaultPrefetchBytes bounds the prompt text built ahead, in bytes
	// (64 MiB: about 128 prompts of 128,000 tokens).
	DefaultPrefetchBytes = 64 << 20
	// prefetchMinCost is the build time of a level's first request below
	// which building inline costs less than handing requests over from a
	// prefetching goroutine: cheap workloads (a dataset lookup) are built
	// when sent, as before.
	prefetchMinCost = 100 * time.Microsecond
	// primeAhead is how long a level may go on building requests ahead,
	// on every CPU, before its clock starts, once its first requests are
	// built and building proved costly. A request built then is one fewer
	// build while the level runs, where, with one CPU for the process (a
	// container limited to one core), a build holds up the pacer until it
	// ends or the runtime preempts it (after 10 ms): a 200-request level
	// of exact-length 1,450-token prompts at 800 req/s is then built
	// entirely before its clock.
	primeAhead = time.Second
)

// WithPrefetch bounds how far a level builds its requests ahead of their
// scheduled time: at most n requests and, beyond the first, at most bytes
// of prompt text (defaults DefaultPrefetchRequests and
// DefaultPrefetchBytes). n = 0 builds each request when it is due, in the
// goroutine that sends it, so that the build time shows as scheduling lag.
//
// A Workload that takes a while to build a request (a long prompt cut to
// an exact token count and re-encoded to check it: about 70 ms for 50,000
// tokens) would otherwise delay every send by that long. With prefetching
// the level's first requests (its first arrival, or one per closed-loop
// worker) are built before its clock starts, then more, on every CPU, for
// up to a second or until the bounds are reached, and a goroutine of the level
// builds the following ones in plan order while the level runs, as long as
// the first build took at least 0.1 ms; a request the goroutine has not
// reached when it is due is built by its sender, as without prefetching.
// Workloads must be safe for concurrent use and deterministic in Seq (see
// Workload), which makes building ahead invisible in the records.
func WithPrefetch(n int, bytes int64) Option {
	return func(g *Generator) { g.prefetchN, g.prefetchBytes = max(n, 0), max(bytes, 0) }
}

// prefetcher builds a level's requests ahead of their use. Requests are
// named by their position p in this shard's part of the plan: request
// k = p*stride + index of the level (Seq = firstSeq + k).
type prefetcher struct {
	w                   Workload
	firstSeq            int64
	stride, index, maxK int64 // maxK: no request k >= maxK (0: no bound)
	depth               int
	maxBytes            int64

	mu     sync.Mutex
	cursor int64            // the next position the prefetcher builds
	ready  map[int64]*built // by k: built or being built, not yet taken
	bytes  int64            // prompt bytes in ready
	wake   chan struct{}    // a take made room (capacity 1)
	active bool             // the building goroutine is worth running
}

// built is one request built ahead; done is closed when req and err are set.
type built struct {
	done    chan struct{}
	req     Request
	err     error
	size    int64
	taken   bool // a sender has it
	counted bool // size is in prefetcher.bytes
}

func newPrefetcher(g *Generator, firstSeq int64, shard Shard, maxRequests int64) *prefetcher {
	return &prefetcher{
		w: g.workload, firstSeq: firstSeq, stride: int64(shard.Count), index: int64(shard.Index), maxK: maxRequests,
		depth: g.prefetchN, maxBytes: g.prefetchBytes,
		ready: map[int64]*built{}, wake: make(chan struct{}, 1),
	}
}

// k returns the request index of position p, and whether it is in the plan.
func (pf *prefetcher) k(p int64) (int64, bool) {
	k := p*pf.stride + pf.index
	return k, pf.maxK <= 0 || k < pf.maxK
}

// claim reserves the next position for building, or returns nil when
// there is none or no room (full is then true).
func (pf *prefetcher) claim() (k int64, b *built, full bool) {
	if len(pf.ready) >= pf.depth || pf.bytes >= pf.maxBytes && len(pf.ready) > 0 {
		return 0, nil, true
	}
	k, ok := pf.k(pf.cursor)
	if !ok {
		return 0, nil, false
	}
	pf.cursor++
	b = &built{done: make(chan struct{})}
	pf.ready[k] = b
	return k, b, false
}

// build builds request k into b.
func (pf *prefetcher) build(k int64, b *built) {
	req, err := buildRequest(pf.w, k, pf.firstSeq+k)
	pf.mu.Lock()
	b.req, b.err, b.size = req, err, int64(len(req.Prompt))
	if !b.taken {
		pf.bytes += b.size
		b.counted = true
	}
	close(b.done)
	pf.mu.Unlock()
}

// prime builds the first burst positions before the level starts, in
// parallel, and decides whether building ahead is worth a goroutine. When
// it is, it goes on building, in parallel, for up to ahead more (bounded
// by the depth and bytes as always).
func (pf *prefetcher) prime(burst int, ahead time.Duration) {
	if pf.depth == 0 {
		return
	}
	type job struct {
		k int64
		b *built
	}
	var jobs []job
	pf.mu.Lock()
	for range min(burst, pf.depth) {
		k, b, _ := pf.claim()
		if b == nil {
			break
		}
		jobs = append(jobs, job{k, b})
	}
	pf.mu.Unlock()
	if len(jobs) == 0 {
		return
	}
	t0 := time.Now()
	pf.build(jobs[0].k, jobs[0].b)
	pf.active = time.Since(t0) >= prefetchMinCost
	next := make(chan job)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)-1) {
		wg.Go(func() {
			for j := range next {
				pf.build(j.k, j.b)
			}
		})
	}
	for _, j := range jobs[1:] {
		next <- j
	}
	close(next)
	wg.Wait()
	if !pf.active || ahead <= 0 {
		return
	}
	deadline := time.Now().Add(ahead)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				pf.mu.Lock()
				k, b, _ := pf.claim()
				pf.mu.Unlock()
				if b == nil {
					return // the plan is built, or the bounds are reached
				}
				pf.build(k, b)
			}
		})
	}
	wg.Wait()
}

// run builds requests ahead, in plan order, until ctx is done or the plan
// is. The level owns it: it stops it when its senders are done.
func (pf *prefetcher) run(ctx context.Context) {
	for {
		pf.mu.Lock()
		k, b, full := pf.claim()
		pf.mu.Unlock()
		switch {
		case b != nil:
			pf.build(k, b)
			continue
		case !full:
			return // the plan is built
		}
		select {
		case <-pf.wake:
		case <-ctx.Done():
			return
		}
	}
}

// take returns request k, built ahead or, when the prefetcher has not
// claimed it, built now. A request being built ahead is waited for.
func (pf *prefetcher) take(k int64) (Request, error) {
	pf.mu.Lock()
	b, ok := pf.ready[k]
	if !ok {
		// Not claimed: build it here, and let the prefetcher skip past it.
		if p := (k - pf.index) / pf.stride; p >= pf.cursor {
			pf.cursor = p + 1
		}
		pf.mu.Unlock()
		return buildRequest(pf.w, k, pf.firstSeq+k)
	}
	delete(pf.ready, k)
	b.taken = true
	if b.counted {
		pf.bytes -= b.size
	}
	pf.mu.Unlock()
	select {
	case pf.wake <- struct{}{}:
	default:
	}
	<-b.done
	return b.req, b.err
}
