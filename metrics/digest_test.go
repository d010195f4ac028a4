package metrics

import (
	"math"
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
