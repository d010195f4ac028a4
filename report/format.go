package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// Formatting only: these functions round and separate thousands; they
// never combine figures.

// fmtMs formats a latency in ms for people: 3 significant figures below
// 100 ms, whole ms above (with thousands separators); "inf" for +Inf (an
// error-adjusted percentile landing on a failure), "nan" for NaN.
func fmtMs(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.Abs(v) >= 99.95:
		return thousands(v, 0)
	case math.Abs(v) >= 9.995:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return unsignZero(strconv.FormatFloat(v, 'f', 2, 64))
	}
}

// unsignZero drops the sign of a formatted number that reads as zero
// ("-0.00" for -0.001 ms is "0.00"): a sign without a digit behind it
// claims a direction the figure does not show.
func unsignZero(s string) string {
	if strings.HasPrefix(s, "-") && strings.Trim(s[1:], "0.") == "" {
		return s[1:]
	}
	return s
}

// fmtDist formats one statistic of d in ms, or "-" when d has no samples.
func fmtDist(d metrics.Distribution, v float64) string {
	if d.Count == 0 {
		return "-"
	}
	return fmtMs(v)
}

// fmtTokens formats a token count statistic of d (a mean: up to 3
// significant figures), or "-" when d has no samples.
func fmtTokens(d metrics.Distribution, v float64) string {
	if d.Count == 0 {
		return "-"
	}
	return fmtRate(v)
}

// fmtRate formats a rate (tokens/s, req/s): whole units with thousands
// separators from 100 up, else up to 3 significant figures.
func fmtRate(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 0):
		if v > 0 {
			return "inf"
		}
		return "-inf"
	case math.Abs(v) >= 99.5:
		return thousands(v, 0)
	case math.Abs(v) >= 9.995:
		return trimZeros(strconv.FormatFloat(v, 'f', 1, 64))
	default:
		return unsignZero(trimZeros(strconv.FormatFloat(v, 'f', 2, 64)))
	}
}

// fmtLoad formats an offered load in its unit: "7.4 req/s", "concurrency 24".
func fmtLoad(v float64, unit string) string {
	if unit == sweep.UnitConcurrency {
		return "concurrency " + fmtRate(v)
	}
	if unit == "" {
		return fmtRate(v)
	}
	return fmtRate(v) + " " + unit
}

// fmtPercent formats a fraction in [0, 1] as a percentage.
func fmtPercent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmtRate(f)
	}
	return unsignZero(trimZeros(strconv.FormatFloat(f*100, 'f', 2, 64))) + "%"
}

// thousands formats v with prec decimals and ',' between thousands.
func thousands(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) > 15 { // beyond exact integers: scientific notation reads better
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String() + frac
}

// trimZeros drops trailing zeros after a decimal point, and the point.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// describeProfile names a level's profile: "synchronous", "concurrent 8",
// "constant 7.4 req/s", "poisson 3 req/s (max 64)".
func describeProfile(p loadgen.Profile) string {
	var s string
	switch {
	case p.Mode.OpenLoop():
		s = fmt.Sprintf("%s %s req/s", p.Mode, fmtRate(p.Rate))
	case p.Mode == loadgen.ModeConcurrent:
		s = fmt.Sprintf("concurrent %d", p.Concurrency)
	case p.Mode == "":
		s = "-"
	default:
		s = string(p.Mode)
	}
	if p.MaxConcurrency > 0 {
		s += fmt.Sprintf(" (max %d)", p.MaxConcurrency)
	}
	return s
}

// clientFlag names a level's client-health flag: "client-limited",
// "capped", or "".
func clientFlag(c metrics.ClientHealth) string {
	switch {
	case c.Capped:
		return "capped"
	case c.ClientLimited:
		return "client-limited"
	}
	return ""
}

// roundingStep is the decimal step an estimate is printed to, given its
// interval: the interval's larger half-width to one significant figure,
// or two when that figure is 1, 2 or 3 (so ±0.32 prints to 0.01 and ±99 to
// 10), as particle physicists round (PDG). Never print a number more
// precisely than its interval supports. It is 0 when the interval gives no
// precision (an unbounded side, or a degenerate interval: no width, or a
// width within floating-point noise of v, 1e-9 of it).
func roundingStep(v float64, ci stats.Interval) float64 {
	if !ci.Bounded() || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	half := max(ci.Hi-v, v-ci.Lo)
	if !(half > 1e-9*math.Abs(v)) {
		return 0 // no width, or only floating-point noise (a batch-means interval of a constant rate)
	}
	step := math.Pow(10, math.Floor(math.Log10(half)))
	if half/step < 3.55 {
		step /= 10
	}
	return step
}

// fmtStep formats v rounded to step (a power of ten), with thousands
// separators; with step 0, to 3 significant figures. A value that rounds
// to zero is "0".
func fmtStep(v, step float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	if step == 0 {
		if v == 0 {
			return "0"
		}
		step = math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-2)
	}
	r := math.Round(v/step) * step
	if r == 0 {
		return "0" // not "0.0000", nor "-0.0" for a small negative value
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	return thousands(r, decimals)
}

// fmtEstimate formats an estimate with its 95 % interval, each rounded to
// the precision the interval supports: "459 [446, 559]", "127 [126,
// unbounded]"; the estimate alone when there is no interval.
func fmtEstimate(v float64, ci stats.Interval) string {
	if ci.IsZero() {
		return fmtStep(v, 0)
	}
	step := roundingStep(v, ci)
	if step == 0 {
		// One side open: the bounded side sets the precision.
		switch {
		case ci.LoBounded() && v-ci.Lo > 0:
			step = roundingStep(v, stats.Interval{Lo: ci.Lo, Hi: 2*v - ci.Lo})
		case ci.HiBounded() && ci.Hi-v > 0:
			step = roundingStep(v, stats.Interval{Lo: 2*v - ci.Hi, Hi: ci.Hi})
		}
	}
	lo, hi := fmtStep(ci.Lo, step), fmtStep(ci.Hi, step)
	if math.IsInf(ci.Lo, -1) {
		lo = "unbounded"
	}
	if math.IsInf(ci.Hi, 1) && !math.IsInf(ci.Lo, 1) {
		hi = "unbounded" // an infinite lower bound too means the value is infinite: "inf"
	}
	return fmt.Sprintf("%s [%s, %s]", fmtStep(v, step), lo, hi)
}

// fmtRounded formats an estimate rounded to the precision its interval
// supports, without the interval: "41", "17.4".
func fmtRounded(v float64, ci stats.Interval) string {
	s := fmtEstimate(v, ci)
	if i := strings.Index(s, " ["); i >= 0 {
		return s[:i]
	}
	return s
}

// fmtDistRounded formats one statistic of d rounded to its interval's
// precision, or "-" when d has no samples.
func fmtDistRounded(d metrics.Distribution, v float64, ci stats.Interval) string {
	if d.Count == 0 {
		return "-"
	}
	return fmtRounded(v, ci)
}

// fmtDistCI formats one statistic of d with its interval, or "-" when d
// has no samples.
func fmtDistCI(d metrics.Distribution, v float64, ci stats.Interval) string {
	if d.Count == 0 {
		return "-"
	}
	return fmtEstimate(v, ci)
}

// fmtRateRounded formats a rate rounded to its interval's precision
// ("1.4" for 1.41 in [0.97, 1.84]); as fmtRate without an interval.
func fmtRateRounded(v float64, ci stats.Interval) string {
	if ci.IsZero() {
		return fmtRate(v)
	}
	return fmtRounded(v, ci)
}

// fmtPercentileCI formats percentile p of d (one a Distribution holds)
// with its interval, rounded to the precision the interval supports; "-"
// when d has no samples.
func fmtPercentileCI(d metrics.Distribution, p float64) string {
	st := percentile(d, p)
	if d.Count == 0 || !st.ok {
		return "-"
	}
	return fmtEstimate(st.v, st.ci)
}
