package loadgen

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// RampShape is how a Ramp's rate rises from its start to its end.
type RampShape string

// Ramp shapes.
const (
	// RampLinear rises by the same number of requests/s every second.
	RampLinear RampShape = "linear"
	// RampExponential multiplies the rate by the same factor every
	// second (it doubles in equal steps of time); its start must be > 0.
	RampExponential RampShape = "exponential"
)

// Ramp is an arrival rate that rises over time within one level, from
// From req/s at the level's start to To req/s at Over, and stays at To
// after that. The zero Ramp is invalid; Validate says why.
type Ramp struct {
	Shape RampShape     `json:"shape"`
	From  float64       `json:"from"` // requests/s at the level's start, >= 0 (> 0 for exponential)
	To    float64       `json:"to"`   // requests/s at Over and after, > From
	Over  time.Duration `json:"over_ns"`
}

// ParseRamp parses "SHAPE:FROM->TO:DURATION", e.g. "linear:1->50:60s"
// or "exponential:2->64:2m": rates in requests/s, the duration in Go's
// spelling (60s, 2m, 1m30s) or as plain seconds (60). The result is
// validated.
func ParseRamp(s string) (Ramp, error) {
	bad := func(why string) (Ramp, error) {
		return Ramp{}, fmt.Errorf("ramp %q: %s; want SHAPE:FROM->TO:DURATION, e.g. linear:1->50:60s or exponential:2->64:2m (rates in req/s)", s, why)
	}
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 3 {
		return bad("not three parts separated by ':'")
	}
	r := Ramp{Shape: RampShape(strings.TrimSpace(parts[0]))}
	from, to, ok := strings.Cut(parts[1], "->")
	if !ok {
		return bad(fmt.Sprintf("the rates %q have no '->' between start and end", parts[1]))
	}
	var err error
	if r.From, err = strconv.ParseFloat(strings.TrimSpace(from), 64); err != nil {
		return bad(fmt.Sprintf("the start rate %q is not a number", from))
	}
	if r.To, err = strconv.ParseFloat(strings.TrimSpace(to), 64); err != nil {
		return bad(fmt.Sprintf("the end rate %q is not a number", to))
	}
	if r.Over, err = parseSeconds(parts[2]); err != nil {
		return bad(fmt.Sprintf("the duration %q is neither a duration (60s, 2m) nor a number of seconds", parts[2]))
	}
	if err := r.Validate(); err != nil {
		return Ramp{}, fmt.Errorf("ramp %q: %w", s, err)
	}
	return r, nil
}

// parseSeconds reads a duration in Go's spelling or as plain seconds.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e9 {
		return 0, errors.New("not a duration")
	}
	return time.Duration(v * float64(time.Second)), nil
}

// String returns the ParseRamp spelling of r.
func (r Ramp) String() string {
	return fmt.Sprintf("%s:%s->%s:%s", r.Shape, strconv.FormatFloat(r.From, 'g', -1, 64), strconv.FormatFloat(r.To, 'g', -1, 64), r.Over)
}

// Validate reports every problem with r at once, naming its fields.
func (r Ramp) Validate() error {
	var errs []error
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch r.Shape {
	case RampLinear:
		if !finite(r.From) || r.From < 0 {
			errs = append(errs, fmt.Errorf("the start rate (Ramp.From) must be a finite rate >= 0 req/s, got %v", r.From))
		}
	case RampExponential:
		if !finite(r.From) || r.From <= 0 {
			errs = append(errs, fmt.Errorf("an exponential ramp multiplies its rate, so its start rate (Ramp.From) must be > 0 req/s, got %v; use linear to start from 0", r.From))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown shape (Ramp.Shape) %q: want linear or exponential", r.Shape))
	}
	switch {
	case !finite(r.To) || r.To <= 0:
		errs = append(errs, fmt.Errorf("the end rate (Ramp.To) must be a finite rate > 0 req/s, got %v", r.To))
	case finite(r.From) && r.To < r.From:
		errs = append(errs, fmt.Errorf("the end rate (Ramp.To) %v req/s is below the start rate (Ramp.From) %v req/s: a ramp rises; swap them, or use a constant rate for a flat load", r.To, r.From))
	case r.To == r.From:
		errs = append(errs, fmt.Errorf("the end rate (Ramp.To) equals the start rate (Ramp.From), %v req/s: that is a constant rate, not a ramp", r.To))
	}
	if r.Over <= 0 {
		errs = append(errs, fmt.Errorf("the duration (Ramp.Over) must be > 0, got %v", r.Over))
	}
	return errors.Join(errs...)
}

// RateAt returns the ramp's rate t after the level's start, requests/s.
func (r Ramp) RateAt(t time.Duration) float64 {
	switch {
	case t <= 0:
		return r.From
	case t >= r.Over:
		return r.To
	}
	x := t.Seconds() / r.Over.Seconds()
	if r.Shape == RampExponential {
		return r.From * math.Pow(r.To/r.From, x)
	}
	return r.From + (r.To-r.From)*x
}

// Expected returns the number of arrivals the ramp expects in [0, t): the
// integral of RateAt from 0 to t.
func (r Ramp) Expected(t time.Duration) float64 {
	if t <= 0 {
		return 0
	}
	d := r.Over.Seconds()
	if t >= r.Over {
		return r.expectedIn(d) + r.To*(t-r.Over).Seconds()
	}
	return r.expectedIn(t.Seconds())
}

// expectedIn is Expected for 0 <= s <= Over, in seconds.
func (r Ramp) expectedIn(s float64) float64 {
	d := r.Over.Seconds()
	if r.Shape == RampExponential {
		c := math.Log(r.To/r.From) / d
		return r.From / c * math.Expm1(c*s)
	}
	return r.From*s + (r.To-r.From)*s*s/(2*d)
}

// TimeOf returns when the ramp's expected arrivals reach n (n >= 0): the
// inverse of Expected, truncated to the nanosecond.
func (r Ramp) TimeOf(n float64) time.Duration {
	if n <= 0 {
		return 0
	}
	d := r.Over.Seconds()
	if total := r.expectedIn(d); n >= total {
		return r.Over + time.Duration((n-total)/r.To*1e9)
	}
	var s float64
	if r.Shape == RampExponential {
		c := math.Log(r.To/r.From) / d
		s = math.Log1p(n*c/r.From) / c
	} else {
		// The root of (To−From)/(2d)·s² + From·s − n = 0, in the form
		// that stays accurate when From is 0 or the slope is small.
		slope := (r.To - r.From) / d
		s = 2 * n / (r.From + math.Sqrt(r.From*r.From+2*slope*n))
	}
	return time.Duration(s * 1e9)
}

// RampPacer places arrivals whose rate follows Ramp. The arrivals of a
// process with one arrival per unit of "ramp time" are mapped through the
// ramp's expected count (a time change): evenly spaced (Shape 0, the
// constant profile), Poisson (Shape 1: a Poisson process whose rate
// follows the ramp) or gamma gaps of shape Shape (burstiness, as
// GammaPacer). Arrival i is at Ramp.TimeOf(u_i), where u_i = i when
// evenly spaced and u_i = u_{i−1} + a unit-mean gap drawn from the PCG
// stream of (Seed, i) otherwise. A RampPacer is a value, pure, and safe
// for concurrent use.
type RampPacer struct {
	Ramp  Ramp
	Shape float64 // 0: evenly spaced; 1: Poisson; other > 0: gamma shape
	Seed  uint64
}

// Arrival returns the intended offset of arrival i given prev, that of
// arrival i−1.
func (p RampPacer) Arrival(i int64, prev time.Duration) time.Duration {
	if i <= 0 {
		return 0
	}
	if p.Shape <= 0 {
		return p.Ramp.TimeOf(float64(i))
	}
	return max(p.Ramp.TimeOf(p.Ramp.Expected(prev)+unitGap(p.Seed, i, p.Shape)), prev)
}
