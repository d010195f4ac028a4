package metrics

import (
	"math"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/stats"
)

func TestDigestBuilder(t *testing.T) {
	var b DigestBuilder
	ms := time.Millisecond
	for i := range 100 {
		rec := loadgen.Record{Level: i % 2, SentAt: time.Duration(i+1) * 10 * ms, InWindow: i >= 10, Status: loadgen.StatusOK,
			FirstTokenAt: time.Duration(i+1)*10*ms + 50*ms, OutputTokens: 11, PromptTokens: 100 + i%3,
			RequestedPromptTokens: 100, RequestedOutputTokens: 11}
		rec.LastTokenAt = rec.FirstTokenAt + 200*ms // ITL = 200 ms / 10
		switch i {
		case 3:
			rec.Status, rec.FirstTokenAt, rec.LastTokenAt = loadgen.StatusError, 0, 0
		case 4:
			rec.Status, rec.SentAt = loadgen.StatusCancelled, 0 // never sent
		}
		b.Add(&rec)
	}
	d := b.Digest(20)
	perLevel := map[int]int{}
	failed := 0
	for i, p := range d.Points {
		perLevel[p.Level]++
		if p.Failed {
			failed++
			if !math.IsNaN(p.TTFTMs) {
				t.Errorf("failed request has TTFT %v", p.TTFTMs)
			}
		}
		if i > 0 && p.SentS < d.Points[i-1].SentS {
			t.Fatal("points not in send order")
		}
		if p.OK && (p.TTFTMs != 50 || p.ITLMs != 20) {
			t.Errorf("point %+v: want TTFT 50 ms, ITL 20 ms", p)
		}
	}
	if perLevel[0] != 20 || perLevel[1] != 21 { // level 1 also keeps its failure
		t.Errorf("points per level %v, want 20 and 20 + the failure", perLevel)
	}
	if d.Thinned[0]+d.Thinned[1] != 99-41 {
		t.Errorf("thinned %v, want %d in all", d.Thinned, 99-41)
	}
	if failed != 1 {
		t.Errorf("%d failed points kept, want the one", failed)
	}
	// Evenly spread: the kept points of level 0 cover its whole span.
	var first, last float64 = math.Inf(1), 0
	for _, p := range d.Points {
		if p.Level == 0 {
			first, last = math.Min(first, p.SentS), math.Max(last, p.SentS)
		}
	}
	if first > 0.02 || last < 0.9 {
		t.Errorf("level 0 kept points span [%v, %v] s, want most of [0.01, 0.99]", first, last)
	}
	// Lengths: only ok requests in the window (90 of them).
	var req, got int64
	for i := range d.ISL.Requested {
		req += d.ISL.Requested[i]
		got += d.ISL.Achieved[i]
	}
	if req != 90 || got != 90 || d.ISL.Lo != 100 || d.ISL.Width != 1 || len(d.ISL.Achieved) != 3 || d.ISL.Requested[0] != 90 {
		t.Errorf("ISL histogram %+v: want 90 requested at 100, 90 achieved over 100–102", d.ISL)
	}
	if !d.OSL.HasRequested() || d.OSL.Empty() {
		t.Errorf("OSL histogram %+v", d.OSL)
	}
	if all := b.Digest(0); len(all.Points) != 99 {
		t.Errorf("Digest(0) kept %d points, want every sent request (99)", len(all.Points))
	}
}

func TestDigestBinsWideRange(t *testing.T) {
	var b DigestBuilder
	for n := 1; n <= 1000; n++ {
		b.Add(&loadgen.Record{SentAt: time.Second, InWindow: true, Status: loadgen.StatusOK, PromptTokens: n, OutputTokens: 5})
	}
	h := b.Digest(0).ISL
	if len(h.Achieved) > MaxLengthBins || h.HasRequested() {
		t.Errorf("%d bins (max %d), requested %v", len(h.Achieved), MaxLengthBins, h.HasRequested())
	}
	var sum int64
	for _, n := range h.Achieved {
		sum += n
	}
	if sum != 1000 {
		t.Errorf("bins hold %d requests, want 1000", sum)
	}
}

func TestUserTokensPerSecond(t *testing.T) {
	d := Distribution{Count: 10, P50: 20, P50CI: stats.Interval{Lo: 16, Hi: math.Inf(1)}}
	v, ci, ok := UserTokensPerSecond(d)
	if !ok || v != 50 || ci.Lo != 0 || ci.Hi != 62.5 {
		t.Errorf("got %v %v %v, want 50 [0, 62.5]", v, ci, ok)
	}
	if _, _, ok := UserTokensPerSecond(Distribution{}); ok {
		t.Error("no samples: want ok false")
	}
}

// retainedPerRecord returns the live heap, in bytes per record, that b
// holds for the records added between n and 4n: the heap in use after a
// GC is measured at both points (deterministic up to the runtime's own
// small allocations, so the bounds below are loose).
func retainedPerRecord(b *DigestBuilder, n int) float64 {
	add := func(from, to int) {
		for i := from; i < to; i++ {
			rec := loadgen.Record{Level: i % 3, SentAt: time.Duration(i) * time.Millisecond, InWindow: true,
				Status: loadgen.StatusOK, FirstTokenAt: time.Duration(i)*time.Millisecond + 20*time.Millisecond,
				OutputTokens: 16, PromptTokens: 64 + i%7, RequestedPromptTokens: 64, RequestedOutputTokens: 16}
			rec.LastTokenAt = rec.FirstTokenAt + 75*time.Millisecond
			if i%50 == 0 {
				rec.Status, rec.FirstTokenAt, rec.LastTokenAt = loadgen.StatusError, 0, 0
			}
			b.Add(&rec)
		}
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	add(0, n)
	before := heap()
	add(n, 4*n)
	after := heap()
	runtime.KeepAlive(b)
	return (float64(after) - float64(before)) / float64(3*n)
}

// TestDigestBuilderBoundedMemory: a bounded builder's memory does not grow
// with the records (issue 25 item 13: report.html's digest, built from
// requests.jsonl at the end of a run, kept about 40 bytes per request, the
// largest part of a long run's end-of-run peak), and its digest is still
// evenly spread and counts what it left out.
func TestDigestBuilderBoundedMemory(t *testing.T) {
	const n = 50_000
	unbounded := retainedPerRecord(&DigestBuilder{}, n)
	t.Logf("unbounded builder: %.1f bytes/record retained", unbounded)
	if got := unbounded; got < 20 {
		t.Fatalf("the unbounded builder retains %.1f bytes/record; the measure should see its ~40", got)
	}
	b := &DigestBuilder{Bound: 100}
	got := retainedPerRecord(b, n)
	t.Logf("bounded builder: %.2f bytes/record retained", got)
	if got > 1 {
		t.Errorf("a bounded builder retains %.2f bytes/record, want none (< 1)", got)
	}
	d := b.Digest(100)
	perLevel := map[int]int{}
	failed := 0
	for i, p := range d.Points {
		if i > 0 && p.SentS < d.Points[i-1].SentS {
			t.Fatal("points not in send order")
		}
		if p.Failed {
			failed++
			continue
		}
		perLevel[p.Level]++
	}
	for l := range 3 {
		if perLevel[l] != 100 {
			t.Errorf("level %d: %d ok points, want 100", l, perLevel[l])
		}
	}
	if failed == 0 || failed > 3*200 {
		t.Errorf("%d failed points kept, want some, at most 2×Bound a level", failed)
	}
	total := failed
	for l := range 3 {
		total += perLevel[l] + d.Thinned[l]
	}
	if total != 4*n {
		t.Errorf("kept + thinned = %d, want every record (%d)", total, 4*n)
	}
	// Evenly spread: level 0's kept points span its whole send time.
	first, last := math.Inf(1), 0.0
	for _, p := range d.Points {
		if p.Level == 0 && !p.Failed {
			first, last = math.Min(first, p.SentS), math.Max(last, p.SentS)
		}
	}
	if first > 1 || last < 0.95*4*n/1000.0 {
		t.Errorf("level 0's points span [%v, %v] s, want about [0, %v]", first, last, 4*n/1000.0)
	}
	// Under the bound, a bounded builder keeps what an unbounded one does.
	var small, all DigestBuilder
	small.Bound = 40
	for i := range 150 {
		rec := loadgen.Record{Level: i % 2, SentAt: time.Duration(150-i) * time.Millisecond, Status: loadgen.StatusOK}
		small.Add(&rec)
		all.Add(&rec)
	}
	// (NaN latencies: compare where each point was sent.)
	sent := func(d RequestDigest) []float64 {
		var v []float64
		for _, p := range d.Points {
			v = append(v, float64(p.Level)*1e6+p.SentS)
		}
		return v
	}
	if a, b := small.Digest(40), all.Digest(40); !reflect.DeepEqual(sent(a), sent(b)) || !reflect.DeepEqual(a.Thinned, b.Thinned) {
		t.Errorf("bounded digest under the bound differs: sent %v thinned %v, want %v thinned %v", sent(a), a.Thinned, sent(b), b.Thinned)
	}
}
