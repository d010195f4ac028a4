package loadgen

import (
	"errors"
	"fmt"
	"math"
	"strings"
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

// Validate reports every problem with p at once (errors.Join), naming
// each field (e.g. "Profile.Rate").
func (p Profile) Validate() error {
	var errs []error
	switch p.Mode {
	case ModeSynchronous:
		if p.Concurrency > 1 {
			errs = append(errs, fmt.Errorf("Profile.Concurrency %d with Profile.Mode %q: synchronous runs exactly 1 request at a time; use Profile.Mode concurrent", p.Concurrency, p.Mode))
		}
	case ModeConcurrent:
		if p.Concurrency < 1 {
			errs = append(errs, fmt.Errorf("Profile.Mode %q needs a Profile.Concurrency >= 1, got %d", p.Mode, p.Concurrency))
		}
	case ModeThroughput:
	case ModeConstant, ModePoisson:
		if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
			errs = append(errs, fmt.Errorf("Profile.Mode %q needs a finite Profile.Rate > 0 req/s, got %v", p.Mode, p.Rate))
		} else if p.Rate > MaxRate {
			errs = append(errs, fmt.Errorf("Profile.Rate %v req/s: arrivals less than 1 µs apart cannot be sent apart (above 1e9 req/s they round to the same nanosecond); the largest usable rate is %g req/s", p.Rate, float64(MaxRate)))
		}
	case "":
		errs = append(errs, errors.New("Profile.Mode is empty; set it to synchronous, concurrent, throughput, constant or poisson"))
	default:
		errs = append(errs, fmt.Errorf("Profile.Mode %q is unknown; want synchronous, concurrent, throughput, constant or poisson", p.Mode))
	}
	if p.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("Profile.Concurrency must be >= 0, got %d", p.Concurrency))
	}
	if p.MaxConcurrency < 0 {
		errs = append(errs, fmt.Errorf("Profile.MaxConcurrency must be >= 0, got %d", p.MaxConcurrency))
	}
	return errors.Join(errs...)
}

// Validate reports every problem with l at once (errors.Join), naming
// each field (e.g. "Limits.MaxDuration"). A level needs MaxDuration or
// MaxRequests; warmup and cooldown are each either a duration or a request
// count, and must leave a non-empty window.
func (l Limits) Validate() error {
	var errs []error
	neg := func(name string, v int64, show any) {
		if v < 0 {
			//lint:ignore ST1005 the message starts with the Go field it names
			errs = append(errs, fmt.Errorf("Limits.%s must be >= 0, got %v", name, show))
		}
	}
	neg("MaxDuration", int64(l.MaxDuration), l.MaxDuration)
	neg("MaxRequests", l.MaxRequests, l.MaxRequests)
	neg("MaxErrors", l.MaxErrors, l.MaxErrors)
	neg("UnreachableAfter", l.UnreachableAfter, l.UnreachableAfter)
	neg("Warmup", int64(l.Warmup), l.Warmup)
	neg("WarmupRequests", l.WarmupRequests, l.WarmupRequests)
	neg("Cooldown", int64(l.Cooldown), l.Cooldown)
	neg("CooldownRequests", l.CooldownRequests, l.CooldownRequests)
	if l.MaxDuration <= 0 && l.MaxRequests <= 0 {
		errs = append(errs, errors.New("Limits.MaxDuration and Limits.MaxRequests are both unset: a level needs one of them (or both)"))
	}
	if l.Warmup > 0 && l.WarmupRequests > 0 {
		errs = append(errs, errors.New("Limits.Warmup and Limits.WarmupRequests are both set: a warmup is either a duration or a request count, not both"))
	}
	if l.Cooldown > 0 && l.CooldownRequests > 0 {
		errs = append(errs, errors.New("Limits.Cooldown and Limits.CooldownRequests are both set: a cooldown is either a duration or a request count, not both"))
	}
	for _, f := range []struct {
		name      string
		v         float64
		otherwise bool
	}{{"Warmup", l.WarmupFraction, l.Warmup > 0 || l.WarmupRequests > 0}, {"Cooldown", l.CooldownFraction, l.Cooldown > 0 || l.CooldownRequests > 0}} {
		switch {
		case !(f.v >= 0 && f.v < 0.5):
			errs = append(errs, fmt.Errorf("Limits.%sFraction %v must be in [0, 0.5)", f.name, f.v))
		case f.v > 0 && f.otherwise:
			errs = append(errs, fmt.Errorf("Limits.%sFraction with Limits.%s or Limits.%sRequests: a %s is a share, a duration or a request count, not two of them", f.name, f.name, f.name, strings.ToLower(f.name)))
		}
	}
	if l.MaxDuration > 0 && l.Warmup+l.Cooldown >= l.MaxDuration {
		errs = append(errs, fmt.Errorf("Limits.Warmup %v + Limits.Cooldown %v leave no measured window in Limits.MaxDuration %v: shorten the warmup or the cooldown, or lengthen Limits.MaxDuration", l.Warmup, l.Cooldown, l.MaxDuration))
	}
	if l.MaxRequests > 0 && l.WarmupRequests+l.CooldownRequests >= l.MaxRequests {
		errs = append(errs, fmt.Errorf("Limits.WarmupRequests %d + Limits.CooldownRequests %d leave no measured window in Limits.MaxRequests %d: shorten the warmup or the cooldown, or raise Limits.MaxRequests", l.WarmupRequests, l.CooldownRequests, l.MaxRequests))
	}
	return errors.Join(errs...)
}
