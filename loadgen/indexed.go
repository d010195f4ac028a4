package loadgen

import "fmt"

// IndexedWorkload is a Workload whose requests depend on their place in
// the level's plan, not only on their Seq: a trace replay gives arrival k
// the lengths of the trace's k-th line, and a workload whose prompts
// share prefixes starts each level with fresh ones. When the Workload
// given to New implements it, the Generator calls RequestAt instead of
// Request.
//
// k is the request's index in its level's plan, Seq − LevelResult.FirstSeq:
// for an open-loop level, the Pacer's arrival k (whichever shard sends
// it); for a closed-loop one, the level's k-th request. seq is its Seq,
// which keeps counting across the levels and repeats of a run, so
// seq − k identifies the level run. RequestAt must be deterministic in
// (k, seq) and safe for concurrent use.
type IndexedWorkload interface {
	Workload
	RequestAt(k, seq int64) (Request, error)
}

// buildRequest builds request k (Seq seq) of a level with w: RequestAt
// for an IndexedWorkload, Request otherwise.
func buildRequest(w Workload, k, seq int64) (req Request, err error) {
	// A panic in the embedder's Workload becomes a workload error (the
	// level stops and Run returns it): it may run in the prefetcher's
	// goroutine, where nothing else could recover it.
	defer func() {
		if v := recover(); v != nil {
			req, err = Request{}, fmt.Errorf("panic in Workload: %v", v)
		}
	}()
	if iw, ok := w.(IndexedWorkload); ok {
		return iw.RequestAt(k, seq)
	}
	return w.Request(seq)
}
