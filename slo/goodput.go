package slo

import (
	"math"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// Good reports whether one request counts toward goodput
// (docs/metrics.md#goodput, as DistServe, vLLM and AIPerf define it): it
// succeeded and met every per-request threshold of o's latency terms. The
// statistic of a term (p99, mean) does not apply to a single request: its
// threshold does.
//
// Per-request values, in ms:
//   - ttft: the larger of TTFT (Record.TTFT) and first_token_at −
//     scheduled_at (the same rule as Evaluate; under closed loop the two
//     differ by client overhead only). ttft_corrected: first_token_at −
//     scheduled_at.
//   - itl: (E2E − TTFT) / (OSL − 1); a request with OSL < 2 has no ITL and
//     meets the term (as vLLM's goodput does for TPOT).
//   - icl: the request's longest gap between consecutive token-carrying
//     chunks (every gap must meet the threshold); fewer than two chunks
//     meet the term.
//   - e2e: Record.E2E.
//   - ttfot: Record.TTFOT.
//
// A request without a first token (or, for ttfot, without content) fails
// any term that needs one. error_rate and output_tps are level properties
// and are ignored here. With no latency term, Good is "succeeded"; the
// accumulator should leave Summary.Goodput zero when o.IsZero().
// Good does not look at rec.InWindow. It is safe for concurrent use.
func (o Objective) Good(rec *loadgen.Record) bool {
	if rec == nil || rec.Status != loadgen.StatusOK {
		return false
	}
	for _, t := range o.Terms {
		if !t.Metric.Latency() {
			continue
		}
		v, ok := perRequest(rec, t.Metric)
		if !ok {
			return false
		}
		if v < 0 { // not applicable to this request
			continue
		}
		if !t.Op.Holds(v, t.Threshold) {
			return false
		}
	}
	return true
}

// perRequest returns a request's value of a latency metric in ms; ok is
// false when the request lacks it (a failure), and a negative value means
// "not applicable" (the term is met).
func perRequest(rec *loadgen.Record, m Metric) (ms float64, ok bool) {
	switch m {
	case MetricTTFT:
		d, ok := rec.TTFT()
		if !ok {
			return 0, false
		}
		if c := rec.FirstTokenAt - rec.ScheduledAt; c > d {
			d = c
		}
		return toMs(d), true
	case MetricTTFTCorrected:
		if rec.FirstTokenAt == 0 {
			return 0, false
		}
		return toMs(rec.FirstTokenAt - rec.ScheduledAt), true
	case MetricITL:
		ttft, ok := rec.TTFT()
		if !ok {
			return 0, false
		}
		if rec.OutputTokens < 2 {
			return -1, true
		}
		return toMs(rec.E2E()-ttft) / float64(rec.OutputTokens-1), true
	case MetricICL:
		if len(rec.ChunkTimes) < 2 {
			if rec.FirstTokenAt == 0 {
				return 0, false
			}
			return -1, true
		}
		var worst time.Duration
		for i := 1; i < len(rec.ChunkTimes); i++ {
			worst = max(worst, rec.ChunkTimes[i]-rec.ChunkTimes[i-1])
		}
		return toMs(worst), true
	case MetricE2E:
		return toMs(rec.E2E()), true
	case MetricTTFOT:
		ttfot, ok := rec.TTFOT()
		if !ok {
			return 0, false
		}
		return toMs(ttfot), true
	}
	return -1, true
}

func toMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// SeedGoodput is the seed-formula cross-check of goodput
// (docs/metrics.md#the-seed-formula):
//
//	output tokens/s × P[TTFT <= ttftMs] × P[ITL <= itlMs]
//
// in tokens/s, with the probabilities read from the level's encoded HDR
// histograms (resolution 0.1 %). TTFT follows Evaluate's rule: the
// TTFT-corrected histogram for open-loop levels that have one, else TTFT.
// It assumes TTFT and ITL independent, which they are not under load, so
// it is an approximation to set beside Summary.Goodput, not a substitute.
// It returns 0 when a histogram is missing or undecodable, or has no
// samples. Use Objective.SeedThresholds for the thresholds.
func SeedGoodput(s metrics.Summary, ttftMs, itlMs float64) float64 {
	ttft := s.TTFT
	if s.Profile.Mode.OpenLoop() && s.TTFTCorrected.Count > 0 && s.TTFTCorrected.Histogram != "" {
		ttft = s.TTFTCorrected
	}
	pt, pi := ttft.FractionAtOrBelow(ttftMs), s.ITL.FractionAtOrBelow(itlMs)
	if math.IsNaN(pt) || math.IsNaN(pi) {
		return 0
	}
	return s.OutputTokensPerSecond * pt * pi
}
