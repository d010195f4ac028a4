package harness

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
)

// Precision-driven levels (Config.Precision). While such a level runs, a
// monitor keeps, for every finished request, its send time and the
// latencies that the precision targets and the SLO's latency terms name
// (64 bytes a request), up to maxMonitorRows of them; past that it keeps
// a systematic sample (see precisionMonitor.Add), so its memory is
// bounded whatever the level's length. Every
// Config.ProgressEvery rebuilds the level's provisional summary over the
// window as it stands (warmup and cooldown trimmed from the time so far).
// The level stops (loadgen.Generator.Stop) once every SLO term that can be
// judged live is decided and, unless the level already fails, every
// precision target is met; the bound is the level's MaxDuration or
// MaxRequests. The final figures and verdict come from the whole level as
// always: the live check only decides when to stop. icl and output_tps
// terms are not judged live (icl pools chunk gaps, and a rate needs the
// whole window); they are decided at the end.

// latencyMetric indexes the latencies a precisionRow keeps.
type latencyMetric int

const (
	latTTFT latencyMetric = iota
	latTTFTCorrected
	latITL
	latE2E
	latTTFOT
	latencyMetrics
)

// precisionRow is what the monitor keeps of one finished request.
type precisionRow struct {
	k      int64 // index in the level's plan (Seq − first Seq)
	sentAt time.Duration
	ok     bool
	failed bool                          // error or timeout
	lat    [latencyMetrics]time.Duration // −1 when the request has none
}

// precisionMonitor watches one precision-driven level. Add and check may
// run on different goroutines.
type precisionMonitor struct {
	precision slo.Precision
	objective slo.Objective
	profile   loadgen.Profile
	lim       loadgen.Limits
	start     time.Duration

	mu       sync.Mutex
	firstSeq int64
	seqSet   bool
	rows     []precisionRow
	// stride: rows holds every stride-th finished request (in the order
	// they were added); offered counts those added.
	stride, offered int64
	last            PrecisionProgress
	// carried are the finished requests of the level this one continues
	// (continuation.go): in its window by construction.
	carried []precisionRow
	// minPass is the least time the level runs before it may stop on a
	// pass: the plain level length (Config.Limits.MaxDuration) when the
	// level is bounded by DecideLimits, else 0.
	minPass time.Duration
}

// PrecisionProgress is the live state of a precision-driven level, for
// the progress line.
type PrecisionProgress struct {
	// Targets are the precision targets as measured so far.
	Targets []slo.PrecisionStatus
	// Undecided lists the SLO terms still inconclusive.
	Undecided []string
	// Failing is set once some SLO term has failed: the level's verdict is
	// then FAIL whatever the other terms say, and it stops.
	Failing bool
	// ETA estimates the time until every target is met and every term
	// decided, at the current rate of requests; 0 when unknown.
	ETA time.Duration
	// Met is true once the level may stop.
	Met bool
}

func newPrecisionMonitor(p slo.Precision, o slo.Objective, prof loadgen.Profile, lim loadgen.Limits, start time.Duration) *precisionMonitor {
	return &precisionMonitor{precision: p, objective: o, profile: prof, lim: lim, start: start}
}

// Add keeps what the check needs of rec.
func (m *precisionMonitor) Add(rec *loadgen.Record) {
	row := precisionRow{sentAt: rec.SentAt, ok: rec.Status == loadgen.StatusOK,
		failed: rec.Status == loadgen.StatusError || rec.Status == loadgen.StatusTimeout}
	for i := range row.lat {
		row.lat[i] = -1
	}
	if row.ok {
		if ttft, has := rec.TTFT(); has {
			row.lat[latTTFT] = ttft
			row.lat[latTTFTCorrected] = rec.FirstTokenAt - rec.ScheduledAt
		}
		if osl := rec.OutputTokens; osl >= 2 && rec.FirstTokenAt != 0 && rec.LastTokenAt != 0 {
			row.lat[latITL] = time.Duration(math.Round(float64(rec.LastTokenAt-rec.FirstTokenAt) / float64(osl-1)))
		}
		row.lat[latE2E] = rec.E2E()
		if ttfot, has := rec.TTFOT(); has {
			row.lat[latTTFOT] = ttfot
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.seqSet || rec.Seq < m.firstSeq {
		// Records finish out of order; the smallest Seq seen is close to
		// the level's first, which only the request-count trims need.
		m.firstSeq, m.seqSet = rec.Seq, true
	}
	row.k = rec.Seq
	if m.stride == 0 {
		m.stride = 1
	}
	m.offered++
	if (m.offered-1)%m.stride != 0 {
		return
	}
	m.rows = append(m.rows, row)
	if len(m.rows) > maxMonitorRows {
		// Keep the rows at even positions: every (2×stride)-th request.
		// The sample stays spread over the whole level, and a quantile's
		// interval from it is still valid, only wider. They go to a new
		// array: check reads the old one without the lock, and rows it
		// has seen are never written again.
		kept := make([]precisionRow, 0, maxMonitorRows+1)
		for i := 0; i < len(m.rows); i += 2 {
			kept = append(kept, m.rows[i])
		}
		m.rows = kept
		m.stride *= 2
	}
}

// maxMonitorRows bounds the rows a precisionMonitor keeps (64 bytes each:
// 4 MiB, twice that while its slice first grows and while a check still
// reads the array it replaced). Up to it, every finished
// request is judged; past it, a systematic sample of at least half as
// many, whose intervals are wider: a long level may then stop later than
// it could, never sooner.
const maxMonitorRows = 1 << 16

// sampled reports whether the monitor keeps a sample rather than every
// request.
func (m *precisionMonitor) sampled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stride > 1
}

// precisionStopMargin is the share of a precision target a provisional
// interval must reach before a level stops (docs/statistics.md).
const precisionStopMargin = 0.9

// check rebuilds the provisional summary at now and decides whether the
// level may stop. inFlight are the level's requests in flight at now: they
// may show it failing (a request waiting longer than a TTFT threshold
// without a first token), counted as censored observations, but never
// help it pass: a pass is judged on finished requests only, as the final
// summary, once they have finished, may differ.
func (m *precisionMonitor) check(now time.Duration, inFlight []loadgen.InFlightRequest) PrecisionProgress {
	m.mu.Lock()
	rows := m.rows
	first := m.firstSeq
	carried := m.carried
	stride := max(m.stride, 1)
	m.mu.Unlock()

	// The window as the level will measure it: after its schedule ends
	// (MaxDuration) it no longer moves, so requests of the cooldown are
	// never judged as the window's.
	end := now
	if d := m.lim.MaxDuration; d > 0 && now-m.start > d {
		end = m.start + d
	}
	elapsed := end - m.start
	ws := m.start + m.lim.Warmup + time.Duration(m.lim.WarmupFraction*float64(elapsed))
	we := end - m.lim.Cooldown - time.Duration(m.lim.CooldownFraction*float64(elapsed))
	s := metrics.Summary{Profile: m.profile}
	var lats [latencyMetrics][]time.Duration
	add := func(r precisionRow) {
		s.Requests.Sent++
		switch {
		case r.ok:
			s.Requests.OK++
			for i, v := range r.lat {
				if v >= 0 {
					lats[i] = append(lats[i], v)
				}
			}
		case r.failed:
			s.Requests.Failed++
		}
	}
	for _, r := range carried {
		add(r)
	}
	for _, r := range rows[:len(rows):len(rows)] {
		if r.sentAt < ws || r.sentAt > we || r.k-first < m.lim.WarmupRequests {
			continue
		}
		add(r)
	}
	if n := s.Requests.OK + s.Requests.Failed; n > 0 {
		s.ErrorRate = float64(s.Requests.Failed) / float64(n)
	}
	s.ErrorRateCI = stats.Wilson(s.Requests.Failed, s.Requests.OK+s.Requests.Failed, stats.Confidence)
	need := m.needed()
	for i, d := range []*metrics.Distribution{&s.TTFT, &s.TTFTCorrected, &s.ITL, &s.E2E, &s.TTFOT} {
		if need[i] {
			*d = metrics.LatencyDistribution(lats[i])
		}
	}

	var p PrecisionProgress
	if !m.precision.IsZero() {
		p.Targets = m.precision.Check(s)
	}
	allMet := true
	for _, st := range p.Targets {
		// Stop only with a margin: the final summary also holds the
		// requests still in flight, and a quantile's interval from few
		// samples can widen by a step when they land.
		allMet = allMet && st.Met && st.RelativeHalfWidth <= precisionStopMargin*st.Target.Fraction
	}
	var moreRequests int64
	for _, t := range m.objective.Terms {
		if t.Metric == slo.MetricICL || t.Metric == slo.MetricOutputTPS {
			continue
		}
		switch r := t.Judge(s); r.Outcome {
		case slo.OutcomeFail:
			p.Failing = true
		case slo.OutcomeInconclusive:
			p.Undecided = append(p.Undecided, t.String())
			moreRequests = max(moreRequests, r.MoreRequests)
		}
	}
	if !p.Failing {
		if stride > 1 {
			// The finished requests are a sample: weigh the requests in
			// flight alike, or they would count stride times too much.
			inFlight = thinInFlight(inFlight, stride)
		}
		p.Failing = m.failingWith(s, inFlight, ws, we, now)
	}
	n := s.Requests.OK + s.Requests.Failed
	if p.Failing {
		n = max(n, 1) // failing on censored requests alone
	}
	// A failing term decides the level (it fails whatever the others
	// say): it stops then, without waiting for the rest to be decided.
	// A pass waits for the level's plain length (minPass): a load above
	// capacity builds its queue over time, and a level stopped after a
	// few seconds, as soon as 60 requests bound a p95, passes before the
	// queue shows (seen on the demo mock: 23.8 req/s, above its 21.6 req/s
	// knee, passed in 5 s and failed in 8 s).
	passable := len(p.Undecided) == 0 && allMet && now-m.start >= m.minPass
	p.Met = n > 0 && (p.Failing || passable)
	if !p.Met && n > 0 && we > ws {
		rate := float64(s.Requests.Sent) / (we - ws).Seconds() // requests entering the window per second
		for _, st := range p.Targets {
			if !st.Met {
				moreRequests = max(moreRequests, samplesToMeet(st)-st.Samples)
			}
		}
		if rate > 0 && moreRequests > 0 {
			// The window grows by 1 − trims of each second the level runs.
			share := max(1-m.lim.WarmupFraction-m.lim.CooldownFraction, 0.1)
			p.ETA = time.Duration(float64(moreRequests) / rate / share * float64(time.Second))
		}
	}
	m.mu.Lock()
	m.last = p
	m.mu.Unlock()
	return p
}

// thinInFlight keeps every stride-th request in flight, in send order.
func thinInFlight(in []loadgen.InFlightRequest, stride int64) []loadgen.InFlightRequest {
	v := slices.Clone(in)
	slices.SortFunc(v, func(a, b loadgen.InFlightRequest) int { return cmp.Compare(a.SentAt, b.SentAt) })
	var out []loadgen.InFlightRequest
	for i := int64(0); i < int64(len(v)); i += stride {
		out = append(out, v[i])
	}
	return out
}

// failingWith reports whether some SLO term judged live fails once the
// requests in flight that were sent in the window [ws, we] are added to s
// as censored observations at now (metrics.Summary.Censored).
func (m *precisionMonitor) failingWith(s metrics.Summary, inFlight []loadgen.InFlightRequest, ws, we, now time.Duration) bool {
	var reached, reachedCorr, atLeast, atLeastCorr, e2e []time.Duration
	for _, r := range inFlight {
		if r.SentAt < ws || r.SentAt > we {
			continue
		}
		if r.FirstTokenAt > 0 {
			reached = append(reached, r.FirstTokenAt-r.SentAt)
			reachedCorr = append(reachedCorr, r.FirstTokenAt-r.ScheduledAt)
		} else {
			atLeast = append(atLeast, now-r.SentAt)
			atLeastCorr = append(atLeastCorr, now-r.ScheduledAt)
		}
		e2e = append(e2e, now-r.SentAt)
	}
	if len(e2e) == 0 {
		return false
	}
	s.Requests.Sent += int64(len(e2e))
	s.Requests.Incomplete += int64(len(e2e))
	dist := func(v []time.Duration) metrics.Distribution {
		if len(v) == 0 {
			return metrics.Distribution{}
		}
		return metrics.LatencyDistribution(v)
	}
	s.Censored = metrics.Censored{
		Requests:      int64(len(e2e)),
		TTFT:          metrics.CensoredLatency{Reached: dist(reached), AtLeast: dist(atLeast)},
		TTFTCorrected: metrics.CensoredLatency{Reached: dist(reachedCorr), AtLeast: dist(atLeastCorr)},
		// The first content comes at or after the first token.
		TTFOT: metrics.CensoredLatency{AtLeast: dist(append(slices.Clip(atLeast), reached...))},
		E2E:   metrics.CensoredLatency{AtLeast: dist(e2e)},
	}
	for _, t := range m.objective.Terms {
		if t.Metric == slo.MetricICL || t.Metric == slo.MetricOutputTPS {
			continue
		}
		if t.Judge(s).Outcome == slo.OutcomeFail {
			return true
		}
	}
	return false
}

// progress returns the last check's state.
func (m *precisionMonitor) progress() PrecisionProgress {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// needed says which latency distributions the targets and terms read.
func (m *precisionMonitor) needed() [latencyMetrics]bool {
	var need [latencyMetrics]bool
	mark := func(metric slo.Metric) {
		switch metric {
		case slo.MetricTTFT:
			need[latTTFT] = true
			need[latTTFTCorrected] = m.profile.Mode.OpenLoop()
		case slo.MetricTTFTCorrected:
			need[latTTFTCorrected] = true
		case slo.MetricITL:
			need[latITL] = true
		case slo.MetricE2E:
			need[latE2E] = true
		case slo.MetricTTFOT:
			need[latTTFOT] = true
		}
	}
	for _, t := range m.precision.Targets {
		mark(t.Term.Metric)
	}
	for _, t := range m.objective.Terms {
		mark(t.Metric)
	}
	return need
}

// samplesToMeet estimates the samples a target needs: its half-width
// shrinks as 1/√n; an unbounded interval first needs the sample size that
// bounds the percentile.
func samplesToMeet(st slo.PrecisionStatus) int64 {
	n := max(st.Samples, 1)
	if math.IsInf(st.RelativeHalfWidth, 1) || math.IsNaN(st.RelativeHalfWidth) {
		if t := st.Target.Term; !t.Mean {
			return max(stats.MinSamplesForUpperBound(t.Percentile/100, stats.Confidence), 2*n)
		}
		return 2 * n
	}
	r := st.RelativeHalfWidth / st.Target.Fraction
	return int64(math.Ceil(float64(n) * r * r))
}
