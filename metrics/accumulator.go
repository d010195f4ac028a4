package metrics

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/stats"
)

// Defaults applied by NewAccumulator to zero Config fields
// (docs/metrics.md#client-health).
const (
	// DefaultMaxLag is the scheduling-lag p99 threshold without an SLO.
	DefaultMaxLag = 10 * time.Millisecond
)

// Thresholds of the client-health and data-quality checks.
const (
	// MinAchievedRatio: an open-loop level that sent less than this share of
	// its target rate is client-limited (docs/metrics.md#client-health).
	MinAchievedRatio = 0.98
	// HighErrorRate is the error rate above which a level is warned about.
	HighErrorRate = 0.05
	// TokenMismatchTolerance is the relative gap between the server's and the
	// local tokenizer's output counts above which they disagree
	// (docs/metrics.md#isl-and-osl).
	TokenMismatchTolerance = 0.01
)

// Config describes one level to an Accumulator. It is a plain value; the
// zero value of every optional field means "default" or "not known".
type Config struct {
	// Level is the 0-based level index, copied into the Summary and its warnings.
	Level int
	// Profile is the level's load profile. Its Rate is the target of an
	// open-loop level, and its MaxConcurrency the cap behind "capped".
	Profile loadgen.Profile
	// Window is the level's measured window
	// (docs/metrics.md#the-measured-window-and-its-trims), known once the
	// level is over.
	Window loadgen.Window
	// MaxLag is the scheduling-lag p99 above which the level is
	// client-limited. Zero means DefaultMaxLag (10 ms, the default without an
	// SLO: docs/metrics.md#client-health); with an SLO the caller passes 5 %
	// of its tightest latency term.
	MaxLag time.Duration
	// Good is the per-request goodput predicate (every per-request SLO
	// latency threshold met), called for ok requests that were sent in the
	// window or delivered tokens inside it. Nil means no SLO: goodput
	// stays zero.
	Good func(*loadgen.Record) bool
	// CPUSeconds is the client process's CPU time (user+sys) during the
	// level, s, and WallSeconds the level's wall time, s; both from the level
	// runner (0 = unknown).
	CPUSeconds  float64
	WallSeconds float64
	// TargetRate is the open-loop target, req/s. The level runner passes
	// the rate of the arrivals its seeded plan put inside the window, so
	// that a Poisson plan's own noise does not read as a client falling
	// behind. Zero means Profile.Rate for open-loop modes, none otherwise.
	TargetRate float64
	// CapReached is set by the level runner when an arrival had to wait for
	// a MaxConcurrency slot. The Accumulator also detects the cap itself,
	// when the peak in flight within the window reached it.
	CapReached bool
	// InWindow, when set, decides which requests count as sent inside the
	// window; the level runner passes loadgen.LevelResult.InWindow so that
	// request-count warmup and cooldown trims
	// (docs/metrics.md#the-measured-window-and-its-trims) are honoured
	// exactly. The default is Window.Contains(rec.SentAt).
	InWindow func(*loadgen.Record) bool
	// PeakInFlight is the most requests the level had in flight at once,
	// as the load generator counted them (loadgen.LevelResult.MaxInFlight);
	// it is reported in ClientHealth and tells a MaxConcurrency cap that
	// bound. Counting it here would mean keeping every request's interval:
	// memory that grows with the request count.
	PeakInFlight int64
	// HeldBack is the number of open-loop arrivals the MaxConcurrency cap
	// held back and the level never sent (loadgen.LevelResult.HeldBack):
	// they have no record; a level with any is client-limited.
	HeldBack int64
}

// Validate reports every problem with c at once.
func (c Config) Validate() error {
	var errs []error
	if c.Window.End < c.Window.Start {
		errs = append(errs, fmt.Errorf("window: end %v is before start %v", c.Window.End, c.Window.Start))
	}
	if c.MaxLag < 0 {
		errs = append(errs, fmt.Errorf("max lag: %v is negative; pass 0 for the default %v", c.MaxLag, DefaultMaxLag))
	}
	if c.CPUSeconds < 0 || math.IsNaN(c.CPUSeconds) {
		errs = append(errs, fmt.Errorf("cpu seconds: %v must be ≥ 0", c.CPUSeconds))
	}
	if c.WallSeconds < 0 || math.IsNaN(c.WallSeconds) {
		errs = append(errs, fmt.Errorf("wall seconds: %v must be ≥ 0", c.WallSeconds))
	}
	if c.TargetRate < 0 || math.IsNaN(c.TargetRate) || math.IsInf(c.TargetRate, 0) {
		errs = append(errs, fmt.Errorf("target rate: %v must be a finite rate ≥ 0 req/s", c.TargetRate))
	}
	return errors.Join(errs...)
}

// Accumulator computes a level's Summary from its records. Feed it every
// record of the level (warmup and cooldown included: tokens of requests
// sent before the window that arrive inside it count toward throughput)
// with Add, then call Summary. It is not safe for concurrent use: one
// goroutine adds; Summary may be called any number of times.
type Accumulator struct {
	cfg Config

	ttft, ttftCorr, ttfot, itl, icl, e2e, lag, send *hdrhistogram.Histogram
	rxQueue                                         *hdrhistogram.Histogram
	ttftAdj, e2eAdj                                 *hdrhistogram.Histogram
	// The cut-off requests' latencies (Summary.Censored): reached, and
	// lower bounds of those not reached.
	cutTTFT, cutTTFTCorr, cutTTFOT             *hdrhistogram.Histogram
	censTTFT, censTTFTCorr, censTTFOT, censE2E *hdrhistogram.Histogram
	censITL, cutICL, censICL                   *hdrhistogram.Histogram
	perChunk, isl, osl                         *hdrhistogram.Histogram
	// Requests sent before the window that held a closed loop's slots
	// unanswered through all of it (Censored.HeldOver): their waits, and
	// their waits from scheduled_at.
	heldOver               int64
	heldWait, heldWaitCorr *hdrhistogram.Histogram

	counts RequestCounts
	// The receive clocks of the ok requests sent in the window: how many
	// used each, the first reason for the user clock, and the wall-clock
	// steps seen (any request sent in the window).
	kernelRecs, userRecs int64
	userNote             string
	noWire               int64  // kernel-clock records without wire_at
	noWireNote           string // the first one's ReceiveClockNote
	clockSteps           int64
	largestStep          time.Duration
	outTokens            float64 // output tokens arriving in the window (scaled to usage)
	failedOutTokens      float64 // ... from requests that failed
	inTokens             int64   // prompt tokens of prefilled requests sent in the window
	cachedTokens         int64   // the cached part of inTokens (usage.prompt_tokens_details.cached_tokens)
	busy                 time.Duration
	goodReqs             int64
	goodTokens           float64
	validWindow          bool
	windowLength         time.Duration

	// batches cuts the window into SubWindows equal parts for the
	// batch-means intervals of the rates; scratch holds one record's
	// tokens per sub-window while it is added.
	batches Batches
	scratch [SubWindows]float64

	sessions sessionAccumulator // multi-turn levels (sessions.go)
}

// NewAccumulator returns an empty Accumulator for the level cfg describes,
// with defaults applied to cfg's zero fields. It does not validate cfg
// (call Config.Validate); an empty or inverted window gives a Summary with
// zero rates and an "empty_window" warning.
func NewAccumulator(cfg Config) *Accumulator {
	if cfg.MaxLag <= 0 {
		cfg.MaxLag = DefaultMaxLag
	}
	if cfg.TargetRate == 0 && cfg.Profile.Mode.OpenLoop() {
		cfg.TargetRate = cfg.Profile.Rate
	}
	return &Accumulator{
		cfg:      cfg,
		ttft:     newLatencyHistogram(),
		ttftCorr: newLatencyHistogram(),
		ttfot:    newLatencyHistogram(),
		itl:      newLatencyHistogram(),
		icl:      newLatencyHistogram(),
		e2e:      newLatencyHistogram(),
		lag:      newLatencyHistogram(),
		send:     newLatencyHistogram(),
		rxQueue:  newLatencyHistogram(),
		ttftAdj:  newLatencyHistogram(),
		e2eAdj:   newLatencyHistogram(),

		cutTTFT:      newLatencyHistogram(),
		cutTTFTCorr:  newLatencyHistogram(),
		cutTTFOT:     newLatencyHistogram(),
		heldWait:     newLatencyHistogram(),
		heldWaitCorr: newLatencyHistogram(),
		censITL:      newLatencyHistogram(),
		cutICL:       newLatencyHistogram(),
		censICL:      newLatencyHistogram(),
		censTTFT:     newLatencyHistogram(),
		censTTFTCorr: newLatencyHistogram(),
		censTTFOT:    newLatencyHistogram(),
		censE2E:      newLatencyHistogram(),

		perChunk: newTokenHistogram(),
		isl:      newTokenHistogram(),
		osl:      newTokenHistogram(),
		counts:   RequestCounts{ErrorKinds: map[string]int64{}},

		validWindow:  cfg.Window.End > cfg.Window.Start,
		windowLength: cfg.Window.End - cfg.Window.Start,
		batches:      newBatches(),
	}
}

// failed reports whether s is a failure (error or timeout). Cancelled
// requests are incomplete, not failures
// (docs/metrics.md#error-rate-and-error-adjusted-percentiles).
func failed(s loadgen.Status) bool { return s == loadgen.StatusError || s == loadgen.StatusTimeout }

// Add accounts for one record of the level. It sets rec.InWindow to whether
// the request was sent inside the window (Config.InWindow, by default
// Window.Contains(rec.SentAt)) and
// changes nothing else; it keeps no reference to rec. Records of other
// levels must not be added.
//
// Populations (docs/metrics.md#the-measured-window-and-its-trims):
//   - latency distributions (TTFT, TTFT corrected, TTFOT, ITL, ICL, E2E),
//     tokens per chunk and the achieved ISL/OSL: requests sent in the
//     window that finished ok;
//   - scheduling lag: every request sent in the window, whatever its outcome;
//   - send overhead: the same, if the request was written (WroteAt set);
//   - error-adjusted TTFT and E2E: the ok ones plus one +Inf per failure
//     sent in the window;
//   - output throughput: every token-carrying chunk that arrived in the
//     window, whatever the request's status or send time;
//   - input throughput: prompt tokens of requests sent in the window that
//     the server prefilled (ok, or at least one token arrived); a request
//     refused before prefill (HTTP 429, connect failure) adds none;
//   - requests/s: ok requests whose DoneAt lies in the window;
//   - mean concurrency: every request's [SentAt, DoneAt] ∩ window.
func (a *Accumulator) Add(rec *loadgen.Record) {
	w := a.cfg.Window
	a.counts.Scheduled++
	switch {
	case rec.SentAt == 0 && rec.Status == loadgen.StatusCancelled:
		// Cut off before it was sent (queued for a MaxConcurrency slot
		// when the level ended): never the window's, whatever its
		// bounds, and no censored observation of the server.
		rec.InWindow = false
	case a.cfg.InWindow != nil:
		rec.InWindow = a.cfg.InWindow(rec)
	default:
		rec.InWindow = w.Contains(rec.SentAt)
	}
	a.sessions.add(rec)
	ok := rec.Status == loadgen.StatusOK
	in := 0.0
	if a.validWindow {
		in = a.tokensInWindow(rec)
	}
	// Good is asked once, for the ok requests that count toward goodput in
	// req/s (sent in the window) or in tok/s (tokens in the window).
	good := ok && a.cfg.Good != nil && (rec.InWindow || in > 0) && a.cfg.Good(rec)
	if a.validWindow {
		a.outTokens += in
		if failed(rec.Status) {
			a.failedOutTokens += in
		}
		if good && in > 0 {
			// Goodput counts the tokens of good requests that arrived in
			// the window, whenever the request was sent: a request sent in
			// the warmup that streams into the window counts, and one sent
			// near the window's end counts for its tokens that arrived
			// before the end. So goodput ≤ throughput, with equality when
			// every request is good, whatever the window's length.
			a.goodTokens += in
			a.addScratch(a.batches.GoodputTokens)
		}
		a.addScratch(a.batches.OutputTokens)
		a.clearScratch()
		if ok && w.Contains(rec.DoneAt) {
			a.counts.Completed++
			a.batches.Completed[a.subWindow(rec.DoneAt)]++
		}
		if from, to := max(rec.SentAt, w.Start), min(rec.DoneAt, w.End); to > from {
			a.busy += to - from
		}
	}

	if !rec.InWindow {
		if rec.Status == loadgen.StatusCancelled && rec.FirstTokenAt == 0 && rec.SentAt > 0 &&
			rec.SentAt < w.Start && rec.DoneAt >= w.End && a.validWindow {
			// Sent before the window and unanswered through all of it.
			a.heldOver++
			recordLatency(a.heldWait, max(rec.DoneAt-rec.LatencyStart(), 0))
			recordLatency(a.heldWaitCorr, max(rec.DoneAt-rec.ScheduledAt, 0))
		}
		return
	}
	a.counts.Sent++
	if rec.UsageRejected != "" {
		a.counts.UsageRejected++
	}
	if rec.ISLClampedFrom > 0 {
		a.counts.ISLClamped++
	}
	recordLatency(a.lag, rec.SentAt-rec.ScheduledAt)
	if rec.WroteAt > 0 {
		recordLatency(a.send, rec.WroteAt-rec.SentAt)
	}
	if rec.ClockStep != 0 {
		a.clockSteps++
		if s := rec.ClockStep.Abs(); s > a.largestStep {
			a.largestStep = s
		}
	}
	switch {
	case ok:
		a.counts.OK++
	case rec.ErrorKind == loadgen.ErrorClientResource:
		a.counts.ClientResource++ // the client's failure, not the server's
	case rec.ErrorKind == loadgen.ErrorNotSent:
		a.counts.NotSent++ // never reached the server
	case failed(rec.Status):
		a.counts.Failed++
		kind := string(rec.ErrorKind)
		if kind == "" {
			kind = string(rec.Status)
		}
		a.counts.ErrorKinds[kind]++
		recordInf(a.ttftAdj)
		recordInf(a.e2eAdj)
	default:
		a.counts.Incomplete++
		a.addCensored(rec)
	}
	if ok || rec.FirstTokenAt != 0 {
		a.inTokens += int64(rec.PromptTokens)
		a.cachedTokens += int64(max(rec.CachedPromptTokens(), 0))
	}
	if !ok {
		return
	}

	if ttft, has := rec.TTFT(); has {
		recordLatency(a.ttft, ttft)
		recordLatency(a.ttftAdj, ttft)
		recordLatency(a.ttftCorr, rec.FirstTokenAt-rec.ScheduledAt)
	}
	if ttfot, has := rec.TTFOT(); has {
		recordLatency(a.ttfot, ttfot)
	}
	e2e := rec.E2E()
	recordLatency(a.e2e, e2e)
	recordLatency(a.e2eAdj, e2e)
	if osl := rec.OutputTokens; osl >= 2 && rec.FirstTokenAt != 0 && rec.LastTokenAt != 0 {
		// (E2E − TTFT) / (OSL − 1) = (last − first) / (OSL − 1).
		recordLatency(a.itl, time.Duration(math.Round(float64(rec.LastTokenAt-rec.FirstTokenAt)/float64(osl-1))))
	}
	for i := 1; i < len(rec.ChunkTimes); i++ {
		recordLatency(a.icl, rec.ChunkTimes[i]-rec.ChunkTimes[i-1])
	}
	recordChunkTokens(a.perChunk, rec)
	a.addReceiveClock(rec)
	recordTokens(a.isl, int64(rec.PromptTokens))
	recordTokens(a.osl, int64(rec.OutputTokens))

	if rec.ServerPromptTokens > 0 && rec.LocalPromptTokens > 0 && !rec.PromptTemplated {
		// The tokenizer is judged on the prompt, text we sent whole.
		a.counts.TokenCountsCompared++
		if tokenCountsDiffer(rec.ServerPromptTokens, rec.LocalPromptTokens) {
			a.counts.TokenCountMismatches++
		}
	}
	if rec.PromptTokensExact && rec.ServerPromptTokens > 0 && rec.RequestedPromptTokens > 0 {
		// Built to the server's own count: any difference is an error.
		a.counts.ExactISLCompared++
		if rec.ServerPromptTokens != rec.RequestedPromptTokens {
			a.counts.ExactISLMissed++
		}
	}
	if rec.ServerOutputTokens > 0 && rec.LocalOutputTokens > 0 {
		// Re-tokenizing generated text is not an identity: a note.
		a.counts.OutputRetokenized++
		if tokenCountsDiffer(rec.ServerOutputTokens, rec.LocalOutputTokens) {
			a.counts.OutputRetokenDiffers++
		}
	}
	if rec.RequestedOutputTokens > 0 && rec.OutputTokens < rec.RequestedOutputTokens {
		a.counts.OSLShort++
	}
	if rec.RequestedOutputTokens > 0 && rec.OutputTokens > rec.RequestedOutputTokens {
		a.counts.OSLExceeded++
	}
	if good {
		a.goodReqs++
		if a.validWindow {
			a.batches.GoodRequests[a.subWindow(rec.SentAt)]++
		}
	}
}

// addCensored accounts for rec, a request sent in the window and cut off
// before it finished (Summary.Censored): what it reached (a first token
// that came) is exact, and what it did not reach has the lower bound
// done_at − start. Dropping it would be survivorship bias: a request cut
// off after 30 s without a first token is known to have missed a 500 ms
// TTFT objective.
func (a *Accumulator) addCensored(rec *loadgen.Record) {
	waited := max(rec.DoneAt-rec.LatencyStart(), 0)
	if ttft, has := rec.TTFT(); has {
		recordLatency(a.cutTTFT, ttft)
		recordLatency(a.cutTTFTCorr, rec.FirstTokenAt-rec.ScheduledAt)
	} else {
		recordLatency(a.censTTFT, waited)
		recordLatency(a.censTTFTCorr, max(rec.DoneAt-rec.ScheduledAt, 0))
	}
	if ttfot, has := rec.TTFOT(); has {
		recordLatency(a.cutTTFOT, ttfot)
	} else {
		recordLatency(a.censTTFOT, waited)
	}
	recordLatency(a.censE2E, waited)
	if rec.FirstTokenAt != 0 {
		// Decoding had begun: ITL ≥ (cut − first token)/(max_tokens − 1)
		// for a server that keeps to max_tokens (osl_exceeded warns when
		// one does not); 0 without a max_tokens of 2 or more.
		bound := time.Duration(0)
		if m := rec.RequestedOutputTokens; m >= 2 {
			bound = max(rec.DoneAt-rec.FirstTokenAt, 0) / time.Duration(m-1)
		}
		recordLatency(a.censITL, bound)
	}
	for i := 1; i < len(rec.ChunkTimes); i++ {
		recordLatency(a.cutICL, rec.ChunkTimes[i]-rec.ChunkTimes[i-1])
	}
	if n := len(rec.ChunkTimes); n > 0 {
		recordLatency(a.censICL, max(rec.DoneAt-rec.ChunkTimes[n-1], 0))
	}
}

// chunkTokens is the token count of chunk i: ChunkTokens[i], or 1 when the
// record carries no per-chunk counts.
func chunkTokens(rec *loadgen.Record, i int) int64 {
	if i < len(rec.ChunkTokens) {
		// A negative count can only come from a corrupt records file; it
		// must not subtract from the throughput.
		return max(int64(rec.ChunkTokens[i]), 0)
	}
	return 1
}

// recordChunkTokens records the token count of each of rec's chunks in h,
// scaled, like tokensInWindow, to rec.OutputTokens (the server's usage, or
// the local tokenizer's count) when the chunk counts sum to something else.
// The histogram holds whole tokens, so the scaled counts are apportioned:
// chunk i gets ⌊T·Cᵢ/S⌋ − ⌊T·Cᵢ₋₁/S⌋ tokens, where Cᵢ is the running sum
// of the chunk counts up to chunk i, S their total and T = OutputTokens.
// Every chunk's count is within one token of its exact share, and the
// request's counts sum to T exactly, so the mean tokens per chunk is exact:
// 8 tokens over 4 chunks record 2, 2, 2, 2; 8 over 3 record 2, 3, 3.
func recordChunkTokens(h *hdrhistogram.Histogram, rec *loadgen.Record) {
	var sum int64
	for i := range rec.ChunkTimes {
		sum += chunkTokens(rec, i)
	}
	total := int64(rec.OutputTokens)
	if total <= 0 || sum <= 0 || total == sum {
		for i := range rec.ChunkTimes {
			recordTokens(h, chunkTokens(rec, i))
		}
		return
	}
	var run, prev int64
	for i := range rec.ChunkTimes {
		run += chunkTokens(rec, i)
		// run·total/sum in 128 bits, so that no records file can make it
		// overflow; the quotient is at most total.
		hi, lo := bits.Mul64(uint64(run), uint64(total))
		q, _ := bits.Div64(hi, lo, uint64(sum))
		next := int64(q)
		recordTokens(h, next-prev)
		prev = next
	}
}

// tokensInWindow counts rec's output tokens whose chunk arrived inside the
// window, and leaves them, per sub-window, in a.scratch (the caller adds
// the scratch to the batches it belongs to and clears it). When the chunk
// counts sum to something other than rec.OutputTokens (the server's usage,
// or the local tokenizer's count), each chunk's share is scaled so that
// the request's total equals OutputTokens. A record without chunk times
// (non-streaming) has all its tokens arrive at LastTokenAt, or DoneAt when
// that is unset.
func (a *Accumulator) tokensInWindow(rec *loadgen.Record) float64 {
	w := a.cfg.Window
	if len(rec.ChunkTimes) == 0 {
		t := rec.LastTokenAt
		if t == 0 {
			t = rec.DoneAt
		}
		if rec.OutputTokens > 0 && w.Contains(t) {
			a.scratch[a.subWindow(t)] = float64(rec.OutputTokens)
			return float64(rec.OutputTokens)
		}
		return 0
	}
	var sum, in int64
	sub, edge := -1, time.Duration(0) // the sub-window of the last chunk, and its end
	for i, t := range rec.ChunkTimes {
		k := chunkTokens(rec, i)
		sum += k
		if !w.Contains(t) {
			continue
		}
		in += k
		if sub < 0 || t >= edge {
			// Chunk times rise within a record: the sub-window is looked
			// up only when a chunk crosses into the next one.
			sub = a.subWindow(t)
			edge = a.subWindowEnd(sub)
		}
		a.scratch[sub] += float64(k)
	}
	if in == 0 {
		return 0
	}
	if rec.OutputTokens > 0 && sum > 0 && sum != int64(rec.OutputTokens) {
		scale := float64(rec.OutputTokens) / float64(sum)
		for i := range a.scratch {
			a.scratch[i] *= scale
		}
		return float64(in) * scale
	}
	return float64(in)
}

// subWindow is the index of the sub-window of the window holding t, which
// must lie in the window (its end belongs to the last sub-window).
func (a *Accumulator) subWindow(t time.Duration) int {
	i := int(int64(t-a.cfg.Window.Start) * SubWindows / int64(a.windowLength))
	return min(max(i, 0), SubWindows-1)
}

// subWindowEnd is the first instant after sub-window i.
func (a *Accumulator) subWindowEnd(i int) time.Duration {
	// The smallest t with subWindow(t) > i.
	return a.cfg.Window.Start + time.Duration((int64(i+1)*int64(a.windowLength)+SubWindows-1)/SubWindows)
}

// addScratch adds the scratch's tokens per sub-window to dst.
func (a *Accumulator) addScratch(dst []float64) {
	for i, v := range a.scratch {
		dst[i] += v
	}
}

func (a *Accumulator) clearScratch() { a.scratch = [SubWindows]float64{} }

// Summary returns the level's Summary from the records added so far.
// Rates are per second of window; latencies are in ms.
func (a *Accumulator) Summary() Summary {
	c := a.cfg
	memo := rankMemo{}
	s := Summary{
		Level:         c.Level,
		Profile:       c.Profile,
		Window:        c.Window,
		WindowSeconds: max(c.Window.Seconds(), 0),
		Requests:      a.counts,
		Confidence:    stats.Confidence,

		TTFT:              distributionOf(a.ttft, UnitMS, memo),
		TTFTCorrected:     distributionOf(a.ttftCorr, UnitMS, memo),
		TTFOT:             distributionOf(a.ttfot, UnitMS, memo),
		ITL:               distributionOf(a.itl, UnitMS, memo),
		ICL:               distributionOf(a.icl, UnitMS, memo),
		E2E:               distributionOf(a.e2e, UnitMS, memo),
		Lag:               distributionOf(a.lag, UnitMS, memo),
		SendOverhead:      distributionOf(a.send, UnitMS, memo),
		TTFTErrorAdjusted: distributionOf(a.ttftAdj, UnitMS, memo),
		E2EErrorAdjusted:  distributionOf(a.e2eAdj, UnitMS, memo),
		TokensPerChunk:    distributionOf(a.perChunk, UnitTokens, memo),
		PromptTokens:      distributionOf(a.isl, UnitTokens, memo),
		OutputTokens:      distributionOf(a.osl, UnitTokens, memo),
	}
	if a.counts.Incomplete > 0 {
		present := func(h *hdrhistogram.Histogram) Distribution {
			if h.TotalCount() == 0 {
				return Distribution{} // omitted from JSON
			}
			return distributionOf(h, UnitMS, memo)
		}
		cut := func(reached, atLeast *hdrhistogram.Histogram) CensoredLatency {
			return CensoredLatency{Reached: present(reached), AtLeast: present(atLeast)}
		}
		s.Censored = Censored{
			Requests:      a.counts.Incomplete,
			TTFT:          cut(a.cutTTFT, a.censTTFT),
			TTFTCorrected: cut(a.cutTTFTCorr, a.censTTFTCorr),
			TTFOT:         cut(a.cutTTFOT, a.censTTFOT),
			E2E:           CensoredLatency{AtLeast: present(a.censE2E)},
			ITL:           CensoredLatency{AtLeast: present(a.censITL)},
			ICL:           cut(a.cutICL, a.censICL),
		}
	}
	if a.counts.Sent == 0 && a.heldOver > 0 {
		// No request was sent in the window because every slot was held
		// by one sent before it that never answered (a synchronous level
		// against a server that accepts and stays silent): those requests
		// are the window's sample, each censored at its wait.
		wait := distributionOf(a.heldWait, UnitMS, memo)
		s.Requests.Sent, s.Requests.Incomplete = a.heldOver, a.heldOver
		s.Censored = Censored{
			Requests: a.heldOver, HeldOver: a.heldOver,
			TTFT:          CensoredLatency{AtLeast: wait},
			TTFTCorrected: CensoredLatency{AtLeast: distributionOf(a.heldWaitCorr, UnitMS, memo)},
			TTFOT:         CensoredLatency{AtLeast: wait},
			E2E:           CensoredLatency{AtLeast: wait},
		}
	}
	s.Requests.ErrorKinds = make(map[string]int64, len(a.counts.ErrorKinds))
	for k, v := range a.counts.ErrorKinds {
		s.Requests.ErrorKinds[k] = v
	}
	if len(s.Requests.ErrorKinds) == 0 {
		s.Requests.ErrorKinds = nil
	}
	if n := s.Requests.OK + s.Requests.Failed; n > 0 {
		s.ErrorRate = float64(s.Requests.Failed) / float64(n)
	}
	s.Goodput.Requests = a.goodReqs
	s.Client = ClientHealth{
		TargetRate:   c.TargetRate,
		MaxLag:       float64(c.MaxLag) / float64(time.Millisecond),
		CPUSeconds:   c.CPUSeconds,
		PeakInFlight: a.cfg.PeakInFlight,
		HeldBack:     c.HeldBack,
	}
	if c.WallSeconds > 0 {
		s.Client.CPUPercent = c.CPUSeconds / c.WallSeconds * 100
	}
	if a.validWindow {
		sec := a.windowLength.Seconds()
		s.OutputTokensPerSecond = a.outTokens / sec
		s.FailedOutputTokensPerSecond = a.failedOutTokens / sec
		s.InputTokensPerSecond = float64(a.inTokens) / sec
		s.CachedInputTokensPerSecond = float64(a.cachedTokens) / sec
		s.TotalTokensPerSecond = s.OutputTokensPerSecond + s.InputTokensPerSecond
		s.RequestsPerSecond = float64(a.counts.Completed) / sec
		s.MeanConcurrency = a.busy.Seconds() / sec
		s.Goodput.RequestsPerSecond = float64(a.goodReqs) / sec
		s.Goodput.OutputTokensPerSecond = a.goodTokens / sec
		s.Client.AchievedRate = float64(a.counts.Sent) / sec
		s.Batches = a.batches.clone()
	}
	s.Sessions = a.sessions.stats()
	a.sessions.adjustClient(&s)
	s.ReceiveQueue = distributionOf(a.rxQueue, UnitMS, memo)
	s.ReceiveClock, s.ReceiveClockNote = a.receiveClock()
	setIntervals(&s)
	s.TooShort = tooShort(&s, c.WallSeconds)
	assessClient(&s, c.CapReached)
	s.Warnings = deriveWarnings(&s)
	if a.clockSteps > 0 {
		s.Warnings = append(s.Warnings, Warning{Code: WarnClockStep, Level: c.Level,
			Message: fmt.Sprintf("level %d: the wall clock stepped while %d requests ran (by up to %v); they use user-space stamps instead of the kernel's", c.Level, a.clockSteps, a.largestStep)})
	}
	return s
}

// LevelConfig is the Config of the level res describes, as the load
// generator ran it: its index, profile (a shard's share of it), window
// (with res.InWindow deciding which requests were sent in it), the client's
// CPU and wall time, whether MaxConcurrency was reached, the peak in
// flight, and the target rate the client owed its window
// (res.PlannedInWindow over the window). The caller adds what the load
// generator does not know: Good (the SLO's per-request predicate) and
// MaxLag.
func LevelConfig(res loadgen.LevelResult) Config {
	share := res.Profile
	if s, err := res.Shard.Share(res.Profile); err == nil {
		share = s
	}
	cfg := Config{
		Level:        res.Level,
		Profile:      share,
		Window:       loadgen.Window{Start: res.Window.Start, End: res.Window.End},
		CPUSeconds:   res.ClientCPU.Seconds(),
		WallSeconds:  res.Duration().Seconds(),
		CapReached:   res.Queued > 0,
		PeakInFlight: res.MaxInFlight,
		HeldBack:     res.HeldBack,
		InWindow:     res.InWindow,
	}
	if sec := (res.Window.End - res.Window.Start).Seconds(); res.PlannedInWindow > 0 && sec > 0 {
		cfg.TargetRate = float64(res.PlannedInWindow) / sec
	}
	return cfg
}

// addReceiveClock accounts for the receive clock of rec, an ok request
// sent in the window: its receive queueing per chunk with the kernel clock.
func (a *Accumulator) addReceiveClock(rec *loadgen.Record) {
	switch rec.ReceiveClock {
	case loadgen.ReceiveClockKernel:
		a.kernelRecs++
		if rec.WireAt == 0 {
			a.noWire++
			if a.noWireNote == "" {
				a.noWireNote = rec.ReceiveClockNote
			}
		}
		for i, u := range rec.ChunkUserTimes {
			if i < len(rec.ChunkTimes) {
				recordLatency(a.rxQueue, u-rec.ChunkTimes[i])
			}
		}
	case loadgen.ReceiveClockUser:
		a.userRecs++
		if a.userNote == "" {
			a.userNote = rec.ReceiveClockNote
		}
	}
}

// receiveClock names the level's receive clock and why it is not the
// kernel's (see Summary.ReceiveClock).
func (a *Accumulator) receiveClock() (clock, note string) {
	switch {
	case a.kernelRecs > 0 && a.userRecs == 0:
		clock = string(loadgen.ReceiveClockKernel)
	case a.kernelRecs == 0 && a.userRecs > 0:
		return string(loadgen.ReceiveClockUser), a.userNote
	case a.kernelRecs > 0:
		clock, note = "mixed", fmt.Sprintf("%d of %d requests on the user clock: %s", a.userRecs, a.userRecs+a.kernelRecs, a.userNote)
	default:
		return "", ""
	}
	if a.noWire > 0 {
		// Their latencies start at sent_at, not at the transmit stamp
		// (loadgen.Record.LatencyStart): say how many, and why.
		why := a.noWireNote
		if why == "" {
			why = "no transmit stamp"
		}
		w := fmt.Sprintf("%d of %d kernel-clock requests start their latencies at sent_at (%s)", a.noWire, a.kernelRecs, why)
		if note == "" {
			note = w
		} else {
			note += "; " + w
		}
	}
	return clock, note
}

// tokenCountsDiffer reports whether a local count differs from the
// server's by more than TokenMismatchTolerance of it, and by more than one
// token (a beginning-of-sequence token the server adds).
func tokenCountsDiffer(server, local int) bool {
	diff := math.Abs(float64(server - local))
	return diff > 1 && diff > TokenMismatchTolerance*float64(server)
}
