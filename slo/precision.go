package slo

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// PrecisionTarget asks for a latency statistic measured to a relative
// precision: the half-width of its 95 % interval (the wider side, see
// stats.Interval.RelativeHalfWidth) at most Fraction of its estimate.
type PrecisionTarget struct {
	// Term names the statistic (Metric with Percentile or Mean); its Op
	// and Threshold are unused.
	Term Term `json:"term"`
	// Fraction is the largest relative half-width accepted, in (0, 1).
	Fraction float64 `json:"fraction"`
}

// String spells the target as ParsePrecision reads it: "ttft_p99:5%".
func (p PrecisionTarget) String() string {
	return p.Term.Name() + ":" + formatNumber(p.Fraction*100) + "%"
}

// Precision is a set of precision targets (the --precision flag). The
// zero Precision asks for nothing.
type Precision struct {
	// Decide asks for levels run until every SLO term is decided, with no
	// interval target ("decide"). Targets imply it.
	Decide  bool              `json:"decide,omitempty"`
	Targets []PrecisionTarget `json:"targets,omitempty"`
}

// IsZero reports whether p asks for nothing: levels run their plain
// length.
func (p Precision) IsZero() bool { return !p.Decide && len(p.Targets) == 0 }

// String spells p as ParsePrecision reads it: "decide" alone, or the
// targets.
func (p Precision) String() string {
	if len(p.Targets) == 0 && p.Decide {
		return PrecisionDecide
	}
	parts := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// PrecisionQuick asks for nothing: levels run their plain length, and a
// sweep's grid of short levels is left undecided where it cannot bound a
// percentile (`--precision quick`, the default without an SLO).
const PrecisionQuick = "quick"

// PrecisionDecide is the precision that only asks for decided verdicts:
// each level runs until every SLO term passes or fails (within the
// level's bound), however wide its intervals.
const PrecisionDecide = "decide"

// PrecisionStatus is how far one target is from being met.
type PrecisionStatus struct {
	Target PrecisionTarget
	// Estimate is the statistic's value, ms; RelativeHalfWidth its current
	// relative half-width (+Inf when the interval is unbounded).
	Estimate, RelativeHalfWidth float64
	// Samples is the population measured (requests, failures included).
	Samples int64
	Met     bool
}

// Check measures every target on s.
func (p Precision) Check(s metrics.Summary) []PrecisionStatus {
	out := make([]PrecisionStatus, len(p.Targets))
	for i, t := range p.Targets {
		m := t.Term.Measure(s)
		rel := math.Inf(1)
		if m.Err == nil {
			rel = m.Interval.RelativeHalfWidth(m.Value)
		}
		out[i] = PrecisionStatus{Target: t, Estimate: m.Value, RelativeHalfWidth: rel, Samples: m.Samples, Met: rel <= t.Fraction}
	}
	return out
}

// Met reports whether every target is met on s.
func (p Precision) Met(s metrics.Summary) bool {
	for _, st := range p.Check(s) {
		if !st.Met {
			return false
		}
	}
	return true
}

// ParsePrecision reads "decide" (PrecisionDecide), or precision targets: comma-separated
// "statistic:fraction", where statistic is a latency statistic of the SLO
// grammar (ttft_p99, itl_p95, e2e_mean, ...) and fraction a percentage
// ("5%") or a bare fraction ("0.05") in (0, 1). icl is refused: it pools
// every gap between chunks, and a level's precision is judged per
// request. A statistic named twice is an error. Errors say which target is
// wrong and how to write it.
func ParsePrecision(s string) (Precision, error) {
	var p Precision
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", PrecisionQuick:
		return p, nil
	case PrecisionDecide:
		return Precision{Decide: true}, nil
	}
	p.Decide = true
	seen := map[string]bool{}
	for _, raw := range strings.Split(s, ",") {
		item := strings.TrimSpace(raw)
		if item == "" {
			return Precision{}, fmt.Errorf("empty target in %q: write e.g. ttft_p99:5%%,itl_p95:3%%", s)
		}
		name, val, ok := strings.Cut(item, ":")
		if !ok {
			return Precision{}, fmt.Errorf("%q: want statistic:fraction, e.g. ttft_p99:5%%", item)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		var t Term
		if err := parseName(&scanner{src: name, text: name}, 0, name, &t); err != nil {
			msg := err.Error()
			var pe *ParseError
			if errors.As(err, &pe) {
				msg = pe.Msg
			}
			return Precision{}, fmt.Errorf("%q: %s", item, msg)
		}
		switch {
		case !t.Metric.Latency():
			return Precision{}, fmt.Errorf("%q: precision applies to latency statistics (ttft, ttft_corrected, itl, e2e, ttfot with _pNN or _mean), not %s", item, t.Metric)
		case t.Metric == MetricICL:
			return Precision{}, fmt.Errorf("%q: icl pools every gap between chunks, and levels are extended per request; ask for itl (per request) instead, e.g. itl_p95:5%%", item)
		case t.Percentile >= 100:
			return Precision{}, fmt.Errorf("%q: the maximum (p100) has no upper confidence bound, so no precision can be reached; use a percentile below 100, e.g. p99.9", item)
		}
		if seen[t.Name()] {
			return Precision{}, fmt.Errorf("%q: %s is named twice; give each statistic once", item, t.Name())
		}
		seen[t.Name()] = true
		val = strings.TrimSpace(val)
		pct := strings.HasSuffix(val, "%")
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(val, "%")), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return Precision{}, fmt.Errorf("%q: %q is not a number: write a percentage such as 5%% or a fraction such as 0.05", item, val)
		}
		if pct {
			f /= 100
		}
		if !(f > 0 && f < 1) {
			return Precision{}, fmt.Errorf("%q: the relative half-width must be above 0 and below 100%%, e.g. 5%%", item)
		}
		p.Targets = append(p.Targets, PrecisionTarget{Term: t, Fraction: f})
	}
	return p, nil
}
