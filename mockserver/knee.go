package mockserver

import (
	"math"
	"time"
)

// SteadyState is the mean-field prediction of the mock's behaviour under a
// constant arrival rate (see docs/mock-server.md for the derivation).
type SteadyState struct {
	// Rate is the arrival rate, req/s.
	Rate float64
	// Step is the mean decode step as a running request sees it: its mean ITL
	// (the per-request ITL of docs/metrics.md#itl-and-tpot).
	Step time.Duration
	// Batch is the mean number of running sequences (Little's law).
	Batch float64
	// TTFTMax is the worst TTFT without queueing: the rest of the step in
	// progress at arrival plus the admitting step, ≈ 2 × Step (batch); or
	// TTFT + prefill (fixed). Use it as the TTFT p99.
	TTFTMax time.Duration
	// Stable is false when the rate is at or beyond Capacity: the queue
	// then grows without bound and TTFT with it.
	Stable bool
}

// Capacity returns the highest sustainable arrival rate, req/s, for
// requests of isl prompt tokens and osl output tokens: beyond it the queue
// grows without bound. It is +Inf for an unlimited fixed scheduler.
//
// Batch: with the batch full (n = B), a request lives osl steps of
// d = (ITLBase + ITLPerSeq·B) / (1 − λ·isl·PrefillPerToken), and λ = B/(osl·d)
// gives λ = B / (osl·(ITLBase + ITLPerSeq·B) + B·isl·PrefillPerToken). With
// B = 0 (unlimited) the step diverges at λ = 1/(osl·ITLPerSeq + isl·PrefillPerToken).
// Fixed: B / service time, service = TTFT + isl·PrefillPerToken + (osl−1)·ITL.
func (c Config) Capacity(isl, osl int) float64 {
	isl, osl = max(isl, 0), max(osl, 1)
	if !c.batch() {
		service := (c.TTFT + time.Duration(isl)*c.PrefillPerToken + time.Duration(osl-1)*c.ITL).Seconds()
		if c.MaxBatch == 0 || service == 0 {
			return math.Inf(1)
		}
		return float64(c.MaxBatch) / service
	}
	base, per, pre := c.ITLBase.Seconds(), c.ITLPerSeq.Seconds(), c.PrefillPerToken.Seconds()
	k := float64(osl)*per + float64(isl)*pre
	if c.MaxBatch == 0 {
		if k == 0 {
			return math.Inf(1)
		}
		return 1 / k
	}
	b := float64(c.MaxBatch)
	return b / (float64(osl)*(base+per*b) + b*float64(isl)*pre)
}

// Steady returns the mean-field steady state at a constant arrival rate
// (req/s) for requests of isl prompt tokens and osl output tokens. Batch:
// a step is d = ITLBase + ITLPerSeq·n + PrefillPerToken·isl·(λ·d) (the
// prompts admitted per step), with n = λ·osl·d running (Little's law), so
// d = ITLBase / (1 − λ·k) with k = osl·ITLPerSeq + isl·PrefillPerToken,
// and never less than a lone request's ITLBase + ITLPerSeq.
func (c Config) Steady(rate float64, isl, osl int) SteadyState {
	isl, osl = max(isl, 0), max(osl, 1)
	st := SteadyState{Rate: rate, Stable: rate < c.Capacity(isl, osl)}
	if !c.batch() {
		st.Step = c.ITL
		service := c.TTFT + time.Duration(isl)*c.PrefillPerToken + time.Duration(osl-1)*c.ITL
		st.Batch = rate * service.Seconds()
		st.TTFTMax = c.TTFT + time.Duration(isl)*c.PrefillPerToken
		return st
	}
	base, per, pre := c.ITLBase.Seconds(), c.ITLPerSeq.Seconds(), c.PrefillPerToken.Seconds()
	k := float64(osl)*per + float64(isl)*pre
	den := 1 - rate*k
	if den <= 0 {
		st.Step = time.Duration(math.MaxInt64)
		st.TTFTMax = st.Step
		st.Batch = math.Inf(1)
		st.Stable = false
		return st
	}
	d := max(base/den, base+per)
	st.Batch = rate * float64(osl) * d
	if c.MaxBatch > 0 && st.Batch > float64(c.MaxBatch) {
		st.Batch = float64(c.MaxBatch)
		d = (base + per*st.Batch) / (1 - rate*float64(isl)*pre)
	}
	st.Step = time.Duration(d * 1e9)
	st.TTFTMax = 2 * st.Step
	return st
}

// KneeRate returns the highest arrival rate, req/s, at which the mean-field
// steady state meets an SLO of TTFT p99 <= ttft and ITL <= itl (per-request
// ITL, docs/metrics.md#itl-and-tpot) for isl/osl-token requests, and is below
// Capacity. A zero ttft or itl means no bound on that term. It returns 0 when
// even a lone request misses the SLO, and +Inf when no rate does.
//
// Batch: ITL bound λ = (1 − ITLBase/itl) / k; TTFT bound
// λ = (1 − 2·ITLBase/ttft) / k; k = osl·ITLPerSeq + isl·PrefillPerToken;
// the knee is the least of these and Capacity. Under constant-rate load
// the measured step matches Steady within 1 % (docs/mock-server.md has the
// demo preset's figures); percentiles sit slightly above the mean, so a
// measured knee lies at or slightly below this estimate.
func (c Config) KneeRate(isl, osl int, ttft, itl time.Duration) float64 {
	isl, osl = max(isl, 0), max(osl, 1)
	capacity := c.Capacity(isl, osl)
	if !c.batch() {
		st := c.Steady(0, isl, osl)
		if (itl > 0 && st.Step > itl) || (ttft > 0 && st.TTFTMax > ttft) {
			return 0
		}
		return capacity
	}
	base, per, pre := c.ITLBase.Seconds(), c.ITLPerSeq.Seconds(), c.PrefillPerToken.Seconds()
	k := float64(osl)*per + float64(isl)*pre
	knee := capacity
	bound := func(limit time.Duration, factor float64) {
		if limit <= 0 {
			return
		}
		r := 1 - factor*base/limit.Seconds()
		if r <= 0 || factor*(base+per) > limit.Seconds() {
			knee = 0
			return
		}
		if k > 0 {
			knee = min(knee, r/k)
		}
	}
	bound(itl, 1)
	bound(ttft, 2)
	if c.MaxBatch > 0 && knee > 0 && itl > 0 {
		// With the batch full the step no longer grows with λ through n;
		// check the ITL there too.
		if st := c.Steady(knee, isl, osl); st.Step > itl {
			// Solve (base + per·B)/(1 − λ·isl·pre) = itl for λ.
			b := float64(c.MaxBatch)
			r := 1 - (base+per*b)/itl.Seconds()
			if r <= 0 {
				return 0
			}
			if isl > 0 && pre > 0 {
				knee = min(knee, r/(float64(isl)*pre))
			}
		}
	}
	return knee
}
