package metrics

import (
	"math"
	"slices"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/stats"
)

// RequestDigest is a plot-sized digest of a run's records
// (requests.jsonl): per-request latencies over time, thinned to a bounded
// number of points per level, and the histograms of requested and achieved
// prompt and output lengths. Reports draw it; it holds no statistic that
// a Summary does not already give.
type RequestDigest struct {
	// Points are requests in send order: every failed one (of a bounded
	// builder, DigestBuilder.Bound, at most 2×Bound per level, evenly
	// thinned), and of the others at most the maxPerLevel given to
	// DigestBuilder.Digest per level (evenly thinned); Thinned counts, per
	// level, the requests left out by the thinning.
	Points  []RequestPoint
	Thinned map[int]int
	// ISL and OSL count the requests that succeeded in their level's
	// window by prompt and output length: requested (what the workload
	// aimed at: Record.RequestedPromptTokens, max_tokens) against achieved
	// (Record.PromptTokens and OutputTokens, the counts the summaries use).
	ISL, OSL LengthHistogram
}

// RequestPoint is one request on the time axis.
type RequestPoint struct {
	Level int
	// SentS is the send time, s since the run's start (the records' clock).
	SentS float64
	// TTFTMs and ITLMs are the request's TTFT and per-request ITL, ms
	// ((E2E − TTFT)/(OSL − 1), as the Accumulator computes it); NaN when
	// the request had no first token, or fewer than two output tokens.
	TTFTMs, ITLMs float64
	// OK is true for a successful request; Failed for an error or a
	// timeout. A cancelled request is neither.
	OK, Failed bool
	// InWindow is true when the request was sent in its level's measured
	// window.
	InWindow bool
}

// LengthHistogram counts requests by length in equal bins, tokens: bin i
// covers [Lo + i×Width, Lo + (i+1)×Width). Requested has no counts (all
// zero) when no record stated the requested length.
type LengthHistogram struct {
	Lo, Width int
	Requested []int64
	Achieved  []int64
}

// Empty reports whether h counts no request.
func (h LengthHistogram) Empty() bool { return len(h.Achieved) == 0 }

// HasRequested reports whether some request stated its requested length.
func (h LengthHistogram) HasRequested() bool {
	return slices.ContainsFunc(h.Requested, func(n int64) bool { return n > 0 })
}

// DigestBuilder accumulates records into a RequestDigest. Its zero value
// is ready to use; it is not safe for concurrent use.
//
// With Bound zero it keeps a few numbers per request (about 40 bytes), so
// a run of a million requests needs some 40 MB. With Bound > 0 its memory
// is bounded whatever the run's length: of each level's successful
// requests, and apart of its failed ones, it keeps an evenly spaced sample
// in the order the records are added (every stride-th record; the stride
// doubles, dropping every other kept point, whenever more than 2×Bound
// are kept), so at most 2×Bound points of each kind per level, about
// 160 bytes × Bound a level.
type DigestBuilder struct {
	// Bound is the most points per level Digest will be asked for (its
	// maxPerLevel); 0 keeps every request.
	Bound int

	points         []RequestPoint             // Bound == 0
	samples        map[sampleKey]*pointSample // Bound > 0
	islReq, islGot map[int]int64
	oslReq, oslGot map[int]int64
	minLen, maxLen [2]int // ISL, OSL
	seenLen        [2]bool
}

// sampleKey names one of a bounded builder's samples: a level's failed
// requests or its others.
type sampleKey struct {
	level  int
	failed bool
}

// pointSample keeps every stride-th of the points it is offered.
type pointSample struct {
	stride, seen int
	kept         []RequestPoint
}

func (s *pointSample) offer(p RequestPoint, bound int) {
	if s.stride == 0 {
		s.stride = 1
	}
	if s.seen%s.stride == 0 {
		s.kept = append(s.kept, p)
		if len(s.kept) > 2*bound {
			// Keep the points at even positions: the multiples of the
			// doubled stride.
			j := 0
			for i := 0; i < len(s.kept); i += 2 {
				s.kept[j] = s.kept[i]
				j++
			}
			clear(s.kept[j:])
			s.kept = s.kept[:j]
			s.stride *= 2
		}
	}
	s.seen++
}

// Add accounts one record. Requests never sent (cancelled in the queue)
// are left out.
func (b *DigestBuilder) Add(rec *loadgen.Record) {
	if rec.SentAt == 0 && rec.Status == loadgen.StatusCancelled {
		return
	}
	p := RequestPoint{Level: rec.Level, SentS: rec.SentAt.Seconds(), TTFTMs: math.NaN(), ITLMs: math.NaN(),
		OK: rec.Status == loadgen.StatusOK, Failed: rec.Status == loadgen.StatusError || rec.Status == loadgen.StatusTimeout,
		InWindow: rec.InWindow}
	if ttft, ok := rec.TTFT(); ok {
		p.TTFTMs = durationMs(ttft)
	}
	if osl := rec.OutputTokens; osl >= 2 && rec.FirstTokenAt != 0 && rec.LastTokenAt != 0 {
		p.ITLMs = durationMs(time.Duration(math.Round(float64(rec.LastTokenAt-rec.FirstTokenAt) / float64(osl-1))))
	}
	b.keep(p)
	if !rec.InWindow || rec.Status != loadgen.StatusOK {
		return
	}
	if b.islReq == nil {
		b.islReq, b.islGot, b.oslReq, b.oslGot = map[int]int64{}, map[int]int64{}, map[int]int64{}, map[int]int64{}
	}
	b.count(0, b.islReq, rec.RequestedPromptTokens)
	b.count(0, b.islGot, rec.PromptTokens)
	b.count(1, b.oslReq, rec.RequestedOutputTokens)
	b.count(1, b.oslGot, rec.OutputTokens)
}

// keep adds p to the points, or offers it to its sample when bounded.
func (b *DigestBuilder) keep(p RequestPoint) {
	if b.Bound <= 0 {
		b.points = append(b.points, p)
		return
	}
	if b.samples == nil {
		b.samples = map[sampleKey]*pointSample{}
	}
	k := sampleKey{level: p.Level, failed: p.Failed}
	s := b.samples[k]
	if s == nil {
		s = &pointSample{}
		b.samples[k] = s
	}
	s.offer(p, b.Bound)
}

func (b *DigestBuilder) count(k int, m map[int]int64, n int) {
	if n <= 0 {
		return
	}
	m[n]++
	if !b.seenLen[k] || n < b.minLen[k] {
		b.minLen[k] = n
	}
	if !b.seenLen[k] || n > b.maxLen[k] {
		b.maxLen[k] = n
	}
	b.seenLen[k] = true
}

// MaxLengthBins bounds the bins of a LengthHistogram.
const MaxLengthBins = 40

// Digest returns the digest, keeping at most maxPerLevel points per level
// (0: all), evenly spread over the level's requests in send order. A
// bounded builder (Bound > 0) thins from its samples, and counts the
// requests its samples left out in Thinned too; its failures, at most
// 2×Bound per level, are all kept.
func (b *DigestBuilder) Digest(maxPerLevel int) RequestDigest {
	pts := slices.Clone(b.points)
	sampledOut := map[int]int{}
	for k, s := range b.samples {
		pts = append(pts, s.kept...)
		sampledOut[k.level] += s.seen - len(s.kept)
	}
	slices.SortStableFunc(pts, func(x, y RequestPoint) int {
		switch {
		case x.SentS < y.SentS:
			return -1
		case x.SentS > y.SentS:
			return 1
		case x.Level != y.Level: // samples come from a map: order them fully
			return x.Level - y.Level
		case x.Failed != y.Failed:
			if x.Failed {
				return 1
			}
			return -1
		}
		return 0
	})
	d := RequestDigest{Thinned: map[int]int{}}
	if maxPerLevel > 0 {
		total := map[int]int{}
		for _, p := range pts {
			if !p.Failed {
				total[p.Level]++
			}
		}
		seen := map[int]int{}
		for _, p := range pts {
			if p.Failed {
				d.Points = append(d.Points, p) // failures are few and telling: all kept
				continue
			}
			i, n := seen[p.Level], total[p.Level]
			seen[p.Level]++
			// Of n requests keep maxPerLevel, evenly spaced: request i when
			// i×maxPerLevel/n reaches a new integer.
			if n <= maxPerLevel || i == 0 || i*maxPerLevel/n != (i-1)*maxPerLevel/n {
				d.Points = append(d.Points, p)
				continue
			}
			d.Thinned[p.Level]++
		}
	} else {
		d.Points = pts
	}
	for l, n := range sampledOut {
		if n > 0 {
			d.Thinned[l] += n
		}
	}
	d.ISL = b.histogram(0, b.islReq, b.islGot)
	d.OSL = b.histogram(1, b.oslReq, b.oslGot)
	return d
}

// histogram bins the counts of one length: integer-wide bins over
// [min, max], at most MaxLengthBins of them.
func (b *DigestBuilder) histogram(k int, req, got map[int]int64) LengthHistogram {
	if !b.seenLen[k] {
		return LengthHistogram{}
	}
	lo, hi := b.minLen[k], b.maxLen[k]
	width := max(1, (hi-lo+MaxLengthBins)/MaxLengthBins)
	n := (hi-lo)/width + 1
	h := LengthHistogram{Lo: lo, Width: width, Requested: make([]int64, n), Achieved: make([]int64, n)}
	for v, c := range req {
		h.Requested[(v-lo)/width] += c
	}
	for v, c := range got {
		h.Achieved[(v-lo)/width] += c
	}
	return h
}

// UserTokensPerSecond is the output speed one user sees, tokens/s: the
// median request's decode speed, 1000 / ITL p50 (ITL is per request,
// (E2E − TTFT)/(OSL − 1), ms, and the median of 1000/x is 1000 over the
// median of x), with its 95 % interval mapped from ITL p50's the same way
// (an unbounded ITL bound gives 0). AIPerf plots this against output
// tokens/s. ok is false without ITL samples.
func UserTokensPerSecond(itl Distribution) (v float64, ci stats.Interval, ok bool) {
	if itl.Count == 0 || !(itl.P50 > 0) {
		return 0, stats.Interval{}, false
	}
	v = 1000 / itl.P50
	if !itl.P50CI.IsZero() {
		ci = itl.P50CI.Reciprocal(1000) // +Inf maps to 0: 1000/+Inf
	}
	return v, ci, true
}

func durationMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
