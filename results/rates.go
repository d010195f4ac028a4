package results

import "github.com/gollm-bench/gollm-bench/metrics"

// addRates adds shard t's offered and completed request rates to out's,
// bucket by bucket, as mergeTimelines does for the other series. When a
// shard's series are missing or sized differently (a result written
// before they existed), out's are dropped, so that a merged rate never
// covers only some of the shards.
func addRates(out *metrics.Timeline, t metrics.Timeline) {
	if len(t.OfferedReqPerSec) != len(out.OfferedReqPerSec) || len(t.CompletedReqPerSec) != len(out.CompletedReqPerSec) {
		out.OfferedReqPerSec, out.CompletedReqPerSec = nil, nil
		return
	}
	for i := range out.OfferedReqPerSec {
		out.OfferedReqPerSec[i] += t.OfferedReqPerSec[i]
	}
	for i := range out.CompletedReqPerSec {
		out.CompletedReqPerSec[i] += t.CompletedReqPerSec[i]
	}
}
