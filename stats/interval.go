package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Confidence is the confidence level of every interval gollm-bench
// reports: 0.95, two-sided.
const Confidence = 0.95

// Interval is a confidence interval [Lo, Hi] in the unit of the figure it
// qualifies (ms, tokens/s, a fraction). A side that no sample bounds at the
// interval's confidence is infinite: Lo = −Inf ("no lower bound"), Hi =
// +Inf ("no upper bound", e.g. the p99 of fewer than 299 samples). The
// zero Interval means "none": no interval was computed (JSON omits it
// where the field is tagged omitzero).
type Interval struct {
	Lo, Hi float64
}

// Unbounded is the interval that says nothing: (−Inf, +Inf).
func Unbounded() Interval { return Interval{Lo: math.Inf(-1), Hi: math.Inf(1)} }

// IsZero reports whether i is the zero Interval (no interval).
func (i Interval) IsZero() bool { return i.Lo == 0 && i.Hi == 0 }

// LoBounded reports whether i has a finite lower bound.
func (i Interval) LoBounded() bool { return !math.IsInf(i.Lo, 0) && !math.IsNaN(i.Lo) }

// HiBounded reports whether i has a finite upper bound.
func (i Interval) HiBounded() bool { return !math.IsInf(i.Hi, 0) && !math.IsNaN(i.Hi) }

// Bounded reports whether both sides of i are finite.
func (i Interval) Bounded() bool { return i.LoBounded() && i.HiBounded() }

// Contains reports whether x lies in [Lo, Hi].
func (i Interval) Contains(x float64) bool { return x >= i.Lo && x <= i.Hi }

// RelativeHalfWidth is the precision of an estimate x with interval i: the
// larger of the distances from x to each bound, divided by |x|. An
// asymmetric interval is judged by its wider side. It is +Inf when a side
// is unbounded or x is 0 (a relative precision of a zero estimate is
// undefined), and 0 for a degenerate interval [x, x].
func (i Interval) RelativeHalfWidth(x float64) float64 {
	if !i.Bounded() || math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Inf(1)
	}
	d := max(i.Hi-x, x-i.Lo, 0)
	if d == 0 {
		return 0
	}
	if x == 0 {
		return math.Inf(1)
	}
	return d / math.Abs(x)
}

// Width is Hi − Lo; +Inf when a side is unbounded.
func (i Interval) Width() float64 {
	if !i.Bounded() {
		return math.Inf(1)
	}
	return i.Hi - i.Lo
}

// Wider returns whichever of i and j is wider (i on a tie). A zero
// Interval is never wider than a computed one.
func (i Interval) Wider(j Interval) Interval {
	switch {
	case j.IsZero():
		return i
	case i.IsZero():
		return j
	case j.Width() > i.Width():
		return j
	}
	return i
}

// Scale returns i with both bounds multiplied by k ≥ 0 (a change of unit).
func (i Interval) Scale(k float64) Interval { return Interval{Lo: i.Lo * k, Hi: i.Hi * k} }

// Reciprocal maps an interval of a positive quantity x to the interval of
// k/x: [k/Hi, k/Lo]. A bound at or below 0 maps to +Inf (k/x unbounded).
// It serves figures that are inverse to a rate, such as EUR per 1M tokens
// from tokens/s.
func (i Interval) Reciprocal(k float64) Interval {
	inv := func(x float64) float64 {
		if !(x > 0) {
			return math.Inf(1)
		}
		return k / x
	}
	return Interval{Lo: inv(i.Hi), Hi: inv(i.Lo)}
}

// String formats i as "[lo, hi]" with "unbounded" for an infinite side.
func (i Interval) String() string {
	side := func(v float64) string {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return "unbounded"
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	return "[" + side(i.Lo) + ", " + side(i.Hi) + "]"
}

// MarshalJSON writes i as the array [lo, hi], with null for an unbounded
// side (JSON has no infinity): a lower bound of −Inf or an upper bound of
// +Inf. The other infinities, which say the value itself is infinite (a
// lower bound of +Inf: the quantile lands on failures), are written as the
// strings "inf" and "-inf".
func (i Interval) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	side := func(v, open float64) {
		switch {
		case v == open || math.IsNaN(v):
			b.WriteString("null")
		case math.IsInf(v, 1):
			b.WriteString(`"inf"`)
		case math.IsInf(v, -1):
			b.WriteString(`"-inf"`)
		default:
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	b.WriteByte('[')
	side(i.Lo, math.Inf(-1))
	b.WriteByte(',')
	side(i.Hi, math.Inf(1))
	b.WriteByte(']')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes: a null lower bound is −Inf,
// a null upper bound +Inf. The strings "inf" and "-inf" are accepted too.
func (i *Interval) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || len(raw) != 2 {
		return fmt.Errorf("stats: interval: want [lower, upper], got %.40s", b)
	}
	var out [2]float64
	for k, r := range raw {
		s := string(bytes.TrimSpace(r))
		switch s {
		case "null":
			out[k] = math.Inf(2*k - 1)
			continue
		case `"inf"`, `"+inf"`:
			out[k] = math.Inf(1)
			continue
		case `"-inf"`:
			out[k] = math.Inf(-1)
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("stats: interval bound %s: want a number or null", s)
		}
		out[k] = v
	}
	if out[0] > out[1] {
		return fmt.Errorf("stats: interval [%g, %g]: lower bound above upper bound", out[0], out[1])
	}
	*i = Interval{Lo: out[0], Hi: out[1]}
	return nil
}
