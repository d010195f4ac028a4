package loadgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Trim is a warmup or a cooldown: the part of a level, at its start or its
// end, left out of the measured window. It is a duration, a request count,
// or a share of the level (of its length for a duration-bound level, of
// its request count for a request-bound one). At most one field is set;
// the zero Trim trims nothing.
type Trim struct {
	Duration time.Duration
	Requests int64
	Fraction float64 // in [0, 0.5)
}

// ParseTrim reads a trim as the --warmup and --cooldown flags spell it: a
// duration ("30s"), a request count ("100") or a share ("10%"). "" and "0"
// trim nothing.
func ParseTrim(s string) (Trim, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "0":
		return Trim{}, nil
	case strings.HasSuffix(s, "%"):
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || !(v >= 0 && v < 50) {
			return Trim{}, fmt.Errorf("%q: a share must be a percentage in [0, 50), e.g. 10%%", s)
		}
		return Trim{Fraction: v / 100}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return Trim{}, fmt.Errorf("%q: a request count must not be negative", s)
		}
		return Trim{Requests: n}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return Trim{}, fmt.Errorf("%q: want a duration (30s), a request count (100) or a share (10%%)", s)
	}
	return Trim{Duration: d}, nil
}

// String spells t as ParseTrim reads it.
func (t Trim) String() string {
	switch {
	case t.Duration > 0:
		return t.Duration.String()
	case t.Requests > 0:
		return fmt.Sprint(t.Requests)
	case t.Fraction > 0:
		return strconv.FormatFloat(t.Fraction*100, 'f', -1, 64) + "%"
	}
	return "0"
}

// Validate reports a trim that is negative, sets more than one field, or
// whose share is not in [0, 0.5).
func (t Trim) Validate() error {
	set := 0
	for _, on := range []bool{t.Duration != 0, t.Requests != 0, t.Fraction != 0} {
		if on {
			set++
		}
	}
	switch {
	case set > 1:
		return fmt.Errorf("trim %+v: a trim is a duration, a request count or a share, not several", t)
	case t.Duration < 0 || t.Requests < 0:
		return fmt.Errorf("trim %s: must not be negative", t)
	case math.IsNaN(t.Fraction) || t.Fraction < 0 || t.Fraction >= 0.5:
		return fmt.Errorf("trim share %v: must be in [0, 50%%)", t.Fraction*100)
	}
	return nil
}

// WithTrims returns lim with its warmup and cooldown fields set from the
// trims: a duration or a request count as such; a share of a
// request-bound level (no MaxDuration) as that share of MaxRequests,
// rounded; a share of a duration-bound level as a share of the length it
// actually runs (WarmupFraction, CooldownFraction).
func (lim Limits) WithTrims(warmup, cooldown Trim) Limits {
	for _, s := range []struct {
		t    Trim
		dur  *time.Duration
		reqs *int64
		frac *float64
	}{
		{warmup, &lim.Warmup, &lim.WarmupRequests, &lim.WarmupFraction},
		{cooldown, &lim.Cooldown, &lim.CooldownRequests, &lim.CooldownFraction},
	} {
		*s.dur, *s.reqs, *s.frac = s.t.Duration, s.t.Requests, 0
		if s.t.Fraction > 0 {
			if lim.MaxDuration > 0 {
				*s.frac = s.t.Fraction
			} else {
				*s.reqs = int64(math.Round(s.t.Fraction * float64(lim.MaxRequests)))
			}
		}
	}
	return lim
}

// PlannedWindow returns the window a level under lim would measure if it
// ran to its MaxDuration: [Warmup, MaxDuration − Cooldown] as offsets from
// the level's start, shares applied to MaxDuration. Request-count trims are
// not known in advance and count as 0. Telemetry readers time their reads
// with it.
func (lim Limits) PlannedWindow() (start, end time.Duration) {
	start = lim.Warmup + time.Duration(lim.WarmupFraction*float64(lim.MaxDuration))
	if lim.MaxDuration > 0 {
		end = lim.MaxDuration - lim.Cooldown - time.Duration(lim.CooldownFraction*float64(lim.MaxDuration))
	}
	return start, end
}
