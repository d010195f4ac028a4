package loadgen

import (
	"math"
	"math/rand/v2"
	"time"
)

// Pacer plans the arrivals of an open-loop level
// (docs/metrics.md#load-profiles). Arrival returns the intended send time of
// arrival i (0-based) as an offset from the level's start, given prev, the
// intended time of arrival i−1 (ignored for i == 0). Arrival 0 is at offset
// 0.
//
// A Pacer is pure: the same (i, prev) always gives the same answer, it
// holds no state and is safe for concurrent use. Its offsets must not
// decrease nor go below 0, and must average at least 1 µs apart over any
// 10,000 arrivals (MaxRate); an offset at or past PlanHorizon (or
// Limits.MaxDuration) ends the plan. Run checks the first 100,000
// arrivals before a level starts and each one after (CheckPacer): a
// Pacer that breaks these rules is an error naming it, not a level that
// never ends. "How long until the next
// hit" (the question vegeta's lib/pacer.go answers) is
// Arrival(hits, prev) − elapsed; the scheduler asks it after every hit and
// never looks at responses, so a slow server cannot slow the arrival
// process (no coordinated omission, as wrk2 defines it).
type Pacer interface {
	Arrival(i int64, prev time.Duration) time.Duration
}

// MaxRate is the highest open-loop rate, requests/s: one arrival per
// microsecond. Profile.Validate refuses a Rate above it. The pacers
// compute arrival times in whole nanoseconds, so above 1e9 req/s the gaps
// truncate to 0 and the plan never advances; well before that, the
// scheduler's timers resolve microseconds at best (fineSlack), so arrivals
// closer than 1 µs cannot be sent apart, and counting a level's plan for
// its achieved ratio (LevelResult.PlannedInWindow) would cost a second of
// CPU for every second of level.
const MaxRate = 1e6

// ConstantPacer places arrivals every 1/Rate s: arrival i is at i/Rate s,
// computed from i (not by summing gaps), so rounding never accumulates.
// Rate is in requests/s and must be > 0.
type ConstantPacer struct {
	Rate float64 // requests/s
}

// Arrival returns i/Rate s, truncated to the nanosecond.
func (p ConstantPacer) Arrival(i int64, _ time.Duration) time.Duration {
	return time.Duration(float64(i) * 1e9 / p.Rate)
}

// PoissonPacer places arrivals as a Poisson process of rate Rate
// requests/s: the gaps are independent and exponentially distributed with
// mean 1/Rate s (GuideLLM's and vLLM's "poisson" profile). The gap before
// arrival i is drawn from its own PCG stream keyed by (Seed, i), so the
// plan is reproducible for a seed, independent of timing, and any gap can
// be computed without the ones before it.
type PoissonPacer struct {
	Rate float64 // requests/s, > 0
	Seed uint64
}

// Arrival returns prev + Gap(i), and 0 for i == 0.
func (p PoissonPacer) Arrival(i int64, prev time.Duration) time.Duration {
	if i <= 0 {
		return 0
	}
	return prev + p.Gap(i)
}

// Gap returns the exponential gap between arrivals i−1 and i, by inverse
// transform sampling: −ln(1−U)/Rate with U uniform on [0, 1) from
// rand.NewPCG(Seed, mix(i)).
func (p PoissonPacer) Gap(i int64) time.Duration {
	src := rand.NewPCG(p.Seed, splitmix64(uint64(i)))
	u := float64(src.Uint64()>>11) * 0x1p-53 // 53 random bits in [0, 1)
	return time.Duration(-math.Log1p(-u) / p.Rate * 1e9)
}

// splitmix64 scrambles a counter into a well-mixed PCG stream key, so that
// the streams of neighbouring arrivals are unrelated.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// DeriveSeed returns the seed of stream i derived from seed: seed itself
// for i = 0, and a SplitMix64 step of seed + i otherwise, so that related
// streams (the runs of a repeated level, say) are reproducible from one
// seed yet independent of each other.
func DeriveSeed(seed uint64, i int) uint64 {
	if i == 0 {
		return seed
	}
	return splitmix64(seed + uint64(i)*0x9e3779b97f4a7c15)
}

// PacerFor returns the Pacer of an open-loop profile (ModeConstant or
// ModePoisson), and nil for closed-loop modes.
func PacerFor(p Profile) Pacer {
	switch p.Mode {
	case ModeConstant:
		return ConstantPacer{Rate: p.Rate}
	case ModePoisson:
		return PoissonPacer{Rate: p.Rate, Seed: p.Seed}
	}
	return nil
}

// Plan returns the intended offsets of the first n arrivals of pacer, for
// inspection and tests.
func Plan(pacer Pacer, n int) []time.Duration {
	out := make([]time.Duration, n)
	var prev time.Duration
	for i := range out {
		prev = pacer.Arrival(int64(i), prev)
		out[i] = prev
	}
	return out
}

// PacerFunc adapts a function to Pacer: f(i, prev) is the offset of
// arrival i from the level's start, prev that of arrival i−1 (0 for i =
// 0). Like any Pacer it must be pure. A panic in f stops the level
// (StopPacerError) and Generator.Run returns it as an error.
type PacerFunc func(i int64, prev time.Duration) time.Duration

// Arrival calls f(i, prev).
func (f PacerFunc) Arrival(i int64, prev time.Duration) time.Duration { return f(i, prev) }
