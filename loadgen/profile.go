package loadgen

import "time"

// Mode is a load profile's pacing discipline (SPEC §6).
type Mode string

// Load modes. Closed-loop modes (synchronous, concurrent, throughput) start a
// request when a slot frees; open-loop modes (constant, poisson) start
// requests at scheduled times whatever the server does.
const (
	ModeSynchronous Mode = "synchronous" // one request at a time
	ModeConcurrent  Mode = "concurrent"  // exactly N in flight
	ModeThroughput  Mode = "throughput"  // as many in flight as allowed (MaxConcurrency, default 512)
	ModeConstant    Mode = "constant"    // arrivals every 1/rate s
	ModePoisson     Mode = "poisson"     // exponential inter-arrival gaps with mean 1/rate s, seeded
)

// OpenLoop reports whether m schedules arrivals by time rather than by free slots.
func (m Mode) OpenLoop() bool { return m == ModeConstant || m == ModePoisson }

// DefaultThroughputConcurrency is the in-flight cap of ModeThroughput when
// MaxConcurrency is not set.
const DefaultThroughputConcurrency = 512

// Profile is one load level: how requests are paced.
type Profile struct {
	Mode Mode `json:"mode"`
	// Concurrency is N for ModeConcurrent (1 for synchronous).
	Concurrency int `json:"concurrency,omitempty"`
	// Rate is the target arrival rate in requests/s for open-loop modes.
	Rate float64 `json:"rate,omitempty"`
	// MaxConcurrency caps requests in flight for open-loop and throughput
	// modes (0 = no cap for open loop, DefaultThroughputConcurrency for
	// throughput). Arrivals beyond the cap queue; queue time is scheduling lag.
	MaxConcurrency int `json:"max_concurrency,omitempty"`
	// Seed seeds the Poisson arrival process.
	Seed uint64 `json:"seed,omitempty"`
}

// Limits are a level's stop conditions and window trims. A zero field means
// "no limit" (but a level needs at least one of MaxDuration and MaxRequests).
type Limits struct {
	MaxDuration time.Duration `json:"max_duration_ns,omitempty"` // stop scheduling after this long
	MaxRequests int64         `json:"max_requests,omitempty"`    // stop after scheduling this many
	MaxErrors   int64         `json:"max_errors,omitempty"`      // stop once this many requests failed

	// Warmup and Cooldown trim the measured window (SPEC §5): either a
	// duration, or a request count (WarmupRequests: the first N requests are
	// excluded; CooldownRequests: the last N).
	Warmup           time.Duration `json:"warmup_ns,omitempty"`
	WarmupRequests   int64         `json:"warmup_requests,omitempty"`
	Cooldown         time.Duration `json:"cooldown_ns,omitempty"`
	CooldownRequests int64         `json:"cooldown_requests,omitempty"`
}
