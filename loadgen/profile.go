package loadgen

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Mode is a load profile's pacing discipline (docs/metrics.md#load-profiles).
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
	// UnreachableAfter, when > 0, stops the level (StopUnreachable) once
	// its first UnreachableAfter finished requests all failed to connect
	// (ErrorConnect: a refused connection, an unknown host, a TLS
	// handshake or certificate failure; nothing reached the server). One
	// request that connects turns the check off for the rest of the
	// level, so a server that goes away mid-level keeps being measured.
	UnreachableAfter int64 `json:"unreachable_after,omitempty"`

	// Warmup and Cooldown trim the measured window
	// (docs/metrics.md#the-measured-window-and-its-trims): either a duration,
	// or a request count (WarmupRequests: the first N requests are excluded;
	// CooldownRequests: the last N).
	Warmup           time.Duration `json:"warmup_ns,omitempty"`
	WarmupRequests   int64         `json:"warmup_requests,omitempty"`
	Cooldown         time.Duration `json:"cooldown_ns,omitempty"`
	CooldownRequests int64         `json:"cooldown_requests,omitempty"`
	// WarmupFraction and CooldownFraction trim a share of the level's
	// scheduling time instead, each in [0, 0.5): applied when the level
	// ends, to its actual length (Generator.Stop can end it before
	// MaxDuration).
	WarmupFraction   float64 `json:"warmup_fraction,omitempty"`
	CooldownFraction float64 `json:"cooldown_fraction,omitempty"`
}

// Validate reports every problem with p at once (errors.Join), naming the
// field and the CLI flag that sets it.
func (p Profile) Validate() error {
	var errs []error
	switch p.Mode {
	case ModeSynchronous:
		if p.Concurrency > 1 {
			errs = append(errs, fmt.Errorf("profile: concurrency %d with mode %q: synchronous runs exactly 1 request at a time; use --profile concurrent", p.Concurrency, p.Mode))
		}
	case ModeConcurrent:
		if p.Concurrency < 1 {
			errs = append(errs, fmt.Errorf("profile: mode %q needs a concurrency >= 1 (--rate), got %d", p.Mode, p.Concurrency))
		}
	case ModeThroughput:
	case ModeConstant, ModePoisson:
		if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
			errs = append(errs, fmt.Errorf("profile: mode %q needs a finite rate > 0 req/s (--rate), got %v", p.Mode, p.Rate))
		}
	case "":
		errs = append(errs, errors.New("profile: mode is empty; set --profile to synchronous, concurrent, throughput, constant or poisson"))
	default:
		errs = append(errs, fmt.Errorf("profile: unknown mode %q; --profile takes synchronous, concurrent, throughput, constant or poisson", p.Mode))
	}
	if p.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("profile: concurrency must be >= 0, got %d", p.Concurrency))
	}
	if p.MaxConcurrency < 0 {
		errs = append(errs, fmt.Errorf("profile: max concurrency must be >= 0 (--max-concurrency), got %d", p.MaxConcurrency))
	}
	return errors.Join(errs...)
}

// Validate reports every problem with l at once (errors.Join), naming the
// field and the CLI flag that sets it. A level needs MaxDuration or
// MaxRequests; warmup and cooldown are each either a duration or a request
// count, and must leave a non-empty window.
func (l Limits) Validate() error {
	var errs []error
	neg := func(name, flag string, v int64) {
		if v < 0 {
			errs = append(errs, fmt.Errorf("limits: %s must be >= 0 (%s), got %d", name, flag, v))
		}
	}
	neg("max duration", "--max-seconds", int64(l.MaxDuration))
	neg("max requests", "--max-requests", l.MaxRequests)
	neg("max errors", "--max-errors", l.MaxErrors)
	neg("unreachable after", "--unreachable-after", l.UnreachableAfter)
	neg("warmup", "--warmup", int64(l.Warmup))
	neg("warmup requests", "--warmup", l.WarmupRequests)
	neg("cooldown", "--cooldown", int64(l.Cooldown))
	neg("cooldown requests", "--cooldown", l.CooldownRequests)
	if l.MaxDuration <= 0 && l.MaxRequests <= 0 {
		errs = append(errs, errors.New("limits: a level needs --max-seconds or --max-requests (or both)"))
	}
	if l.Warmup > 0 && l.WarmupRequests > 0 {
		errs = append(errs, errors.New("limits: warmup is either a duration or a request count (--warmup 30s or --warmup 100), not both"))
	}
	if l.Cooldown > 0 && l.CooldownRequests > 0 {
		errs = append(errs, errors.New("limits: cooldown is either a duration or a request count (--cooldown 5s or --cooldown 20), not both"))
	}
	for _, f := range []struct {
		name      string
		v         float64
		otherwise bool
	}{{"warmup", l.WarmupFraction, l.Warmup > 0 || l.WarmupRequests > 0}, {"cooldown", l.CooldownFraction, l.Cooldown > 0 || l.CooldownRequests > 0}} {
		switch {
		case !(f.v >= 0 && f.v < 0.5):
			errs = append(errs, fmt.Errorf("limits: %s fraction %v must be in [0, 0.5)", f.name, f.v))
		case f.v > 0 && f.otherwise:
			errs = append(errs, fmt.Errorf("limits: %s is a share, a duration or a request count, not two of them", f.name))
		}
	}
	if l.MaxDuration > 0 && l.Warmup+l.Cooldown >= l.MaxDuration {
		errs = append(errs, fmt.Errorf("limits: --warmup %v + --cooldown %v leave no measured window in --max-seconds %v: shorten --warmup or --cooldown, or lengthen --max-seconds", l.Warmup, l.Cooldown, l.MaxDuration))
	}
	if l.MaxRequests > 0 && l.WarmupRequests+l.CooldownRequests >= l.MaxRequests {
		errs = append(errs, fmt.Errorf("limits: --warmup %d + --cooldown %d requests leave no measured window in --max-requests %d: shorten --warmup or --cooldown, or raise --max-requests", l.WarmupRequests, l.CooldownRequests, l.MaxRequests))
	}
	return errors.Join(errs...)
}
