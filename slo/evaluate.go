package slo

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
)

// Outcome is a three-valued verdict: a figure measured with uncertainty
// can satisfy a threshold, violate it, or not yet tell.
type Outcome string

// Outcomes of a term and of a level.
const (
	// OutcomePass: the whole confidence interval satisfies the threshold.
	OutcomePass Outcome = "pass"
	// OutcomeFail: the whole confidence interval violates the threshold.
	OutcomeFail Outcome = "fail"
	// OutcomeInconclusive: the interval straddles the threshold (or the
	// figure could not be measured): more requests are needed to decide.
	OutcomeInconclusive Outcome = "inconclusive"
)

// TermResult is one term's outcome at one level.
type TermResult struct {
	Term Term `json:"term"`
	// Measured is the level's estimate in the term's unit (ms, fraction or
	// tokens/s); NaN when it could not be measured (Note says why). A
	// latency term measures the error-adjusted statistic: each failed
	// request counts as +Inf (see Term.Measure), so it can be +Inf.
	Measured float64 `json:"measured"`
	// Interval is the 95 % confidence interval of Measured (stats.Confidence).
	Interval stats.Interval `json:"interval"`
	// Outcome decides the term from Interval: pass when the whole interval
	// satisfies the threshold, fail when the whole interval violates it,
	// inconclusive otherwise.
	Outcome Outcome `json:"outcome"`
	// Pass is Outcome == OutcomePass.
	Pass bool `json:"pass"`
	// MoreRequests estimates, for an inconclusive term, how many more
	// requests in the window would likely decide it, if the data kept
	// their shape (stats.QuantileSamplesToDecide and its kin); 0 when the
	// term is decided or no estimate exists (the estimate sits on the
	// threshold).
	MoreRequests int64  `json:"more_requests,omitempty"`
	Note         string `json:"note,omitempty"`
}

// Ratio says how far Measured is from the threshold, in the failing
// direction: Measured/Threshold for upper bounds, Threshold/Measured for
// lower bounds. Above 1 the term is violated (or sits exactly on a strict
// bound); +Inf when the value is unmeasured or the bound is 0.
func (r TermResult) Ratio() float64 {
	m, t := r.Measured, r.Term.Threshold
	if math.IsNaN(m) {
		return math.Inf(1)
	}
	if r.Term.Op.upper() {
		if t == 0 {
			if m == 0 {
				return 1
			}
			return math.Inf(1)
		}
		return m / t
	}
	if m == 0 {
		if t == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return t / m
}

// Verdict is the SLO outcome of one level.
//
// The level's Outcome is fail when it had no successful request in its
// window (and some failed), or when some term failed; inconclusive when
// some term is inconclusive; pass otherwise. A client-limited level never
// passes, but a term that fails judged by what the client's lag cannot
// change still fails it (Term.JudgeLagFree). Only a pass
// counts as passing, and only a fail counts as failing: the knee search
// treats an inconclusive level as neither.
type Verdict struct {
	Outcome Outcome `json:"outcome"`
	// Pass is Outcome == OutcomePass.
	Pass  bool         `json:"pass"`
	Terms []TermResult `json:"terms,omitempty"`
	// Failing lists the canonical form of each failed term, e.g. "ttft_p99<=500ms".
	Failing []string `json:"failing,omitempty"`
	// Undecided lists the canonical form of each inconclusive term.
	Undecided []string `json:"undecided,omitempty"`
	// ClientLimited copies Summary.Client.ClientLimited: such a level is
	// inconclusive unless a term fails whatever the lag, or it failed for
	// want of any success.
	ClientLimited bool `json:"client_limited,omitempty"`
	// NoSuccess is set when the level had no successful request in its
	// window although some finished there (they all failed).
	NoSuccess bool `json:"no_success,omitempty"`
	// TooShort is set when no request sent in the window finished in it
	// (metrics.Summary.TooShort): nothing was measured, so the level is
	// inconclusive, neither failed nor client-limited.
	TooShort bool `json:"too_short,omitempty"`
	// Reason explains a fail or an inconclusive verdict for people; empty
	// on a pass.
	Reason string `json:"reason,omitempty"`
}

// Decided reports whether the verdict is a pass or a fail.
func (v Verdict) Decided() bool { return v.Outcome == OutcomePass || v.Outcome == OutcomeFail }

// Evaluate judges one level's Summary against o. It reads only s.
//
// Each term is measured with its confidence interval (Term.Measure) and
// decided three ways: pass when the whole interval satisfies the
// threshold, fail when the whole interval violates it, inconclusive
// otherwise, with an estimate of the requests that would decide it.
// Failures count: a latency term judges the error-adjusted statistic, in
// which each failed request sent in the window is a +Inf latency, so a
// level where 33 % of requests failed fails ttft_p99 whatever its
// successful requests did, while one failure in 10,000 leaves a p99 to be
// judged on the rest. Requests cut off unfinished count as censored
// observations (Term.Measure). A level with no successful request fails; a
// client-limited one never passes, and fails only on a term that fails
// whatever the lag (judgeClientLimited). The empty Objective passes every
// other level.
func (o Objective) Evaluate(s metrics.Summary) Verdict {
	v := Verdict{Outcome: OutcomePass, ClientLimited: s.Client.ClientLimited}
	var fails, undecided []string
	for _, t := range o.Terms {
		r := t.Judge(s)
		v.Terms = append(v.Terms, r)
		switch r.Outcome {
		case OutcomeFail:
			v.Failing = append(v.Failing, t.String())
			fails = append(fails, failReason(r))
		case OutcomeInconclusive:
			v.Undecided = append(v.Undecided, t.String())
			undecided = append(undecided, undecidedReason(r))
		}
	}
	var reasons []string
	switch {
	case s.TooShort != "":
		v.Outcome, v.TooShort, v.ClientLimited = OutcomeInconclusive, true, false
		reasons = append(reasons, "too short: "+s.TooShort)
	case s.Requests.OK == 0 && (s.Requests.Failed > 0 || s.Censored.Requests == 0):
		v.Outcome, v.NoSuccess = OutcomeFail, true
		reasons = append(reasons, "no successful request in the window")
		reasons = append(reasons, fails...)
	case s.Client.ClientLimited:
		v.Outcome, reasons = o.judgeClientLimited(s, &v)
	case len(fails) > 0:
		v.Outcome = OutcomeFail
		reasons = fails
	case s.Requests.OK == 0:
		// Every request was cut off unanswered and no term is known to
		// fail from their lower bounds: nothing can pass.
		v.Outcome = OutcomeInconclusive
		reasons = append([]string{fmt.Sprintf("no request finished: the %d sent in the window were cut off", s.Censored.Requests)}, undecided...)
	case len(undecided) > 0:
		v.Outcome = OutcomeInconclusive
		reasons = undecided
	}
	v.Pass = v.Outcome == OutcomePass
	v.Reason = strings.Join(reasons, "; ")
	return v
}

// judgeClientLimited decides a client-limited level (docs/metrics.md#client-health).
// Such a level never passes: the client offered less load than planned.
// But the lag only delays when requests start; it cannot make the server
// look slower on a figure measured from the request's transmission, nor
// change the gaps between tokens or the error rate. So a term that fails
// judged lag-free (Term.JudgeLagFree) still fails, and the level is FAIL;
// otherwise it is inconclusive, and the reason names the terms the lag
// could have changed. It fills v.Terms' outcomes and v.Failing/v.Undecided
// to match.
func (o Objective) judgeClientLimited(s metrics.Summary, v *Verdict) (Outcome, []string) {
	client := "client-limited: the load generator fell behind"
	if s.Client.Reason != "" {
		client += " (" + s.Client.Reason + ")"
	}
	var fails, changeable, undecidedTerms, failingTerms []string
	for i, t := range o.Terms {
		r := t.JudgeLagFree(s)
		switch {
		case r.Outcome == OutcomeFail:
			v.Terms[i] = r
			failingTerms = append(failingTerms, t.String())
			fails = append(fails, failReason(r))
		default:
			if v.Terms[i].Outcome == OutcomePass {
				v.Terms[i].Outcome, v.Terms[i].Pass = OutcomeInconclusive, false
				v.Terms[i].Note = joinNotes(v.Terms[i].Note, "client-limited: a pass is not trusted")
			} else if v.Terms[i].Outcome == OutcomeFail {
				v.Terms[i].Outcome = OutcomeInconclusive
				v.Terms[i].Note = joinNotes(v.Terms[i].Note, "client-limited: the lag could have caused this failure")
			}
			undecidedTerms = append(undecidedTerms, t.String())
			if t.lagChangeable() {
				changeable = append(changeable, t.String())
			}
		}
	}
	v.Failing, v.Undecided = failingTerms, undecidedTerms
	if len(fails) > 0 {
		return OutcomeFail, append(fails, client+", but these terms fail whatever the lag: it cannot make the server slower on them")
	}
	r := client + ", so nothing passes"
	if len(changeable) > 0 {
		r += "; the lag could have changed " + strings.Join(changeable, ", ")
	}
	return OutcomeInconclusive, []string{r}
}

// lagChangeable reports whether the client's lag can change the term's
// outcome: the lag-sensitive latencies (Metric.LagSensitive, which an
// open-loop level judges with TTFT corrected) and output_tps (a client
// that falls behind sends less).
func (t Term) lagChangeable() bool {
	return t.Metric.LagSensitive() || t.Metric == MetricOutputTPS
}

// JudgeLagFree judges t on a client-limited level by what the client's lag
// cannot change, and reports a fail only: any other outcome is
// inconclusive. A lag-sensitive latency is read without the coordinated-
// omission correction (TTFT, TTFOT and E2E start when the request left,
// not when it was due; ttft_corrected is read as TTFT), and with the user
// receive clock its interval is first lowered by the level's lag p99, the
// client's delay in reading a chunk that its scheduling lag stands for;
// with the kernel clock the stamps are the kernel's. ITL, ICL and
// error_rate are judged as Judge does. output_tps cannot fail: a client
// that fell behind offered less.
func (t Term) JudgeLagFree(s metrics.Summary) TermResult {
	inconclusive := TermResult{Term: t, Measured: math.NaN(), Outcome: OutcomeInconclusive, Interval: stats.Unbounded()}
	var m Measurement
	switch t.Metric {
	case MetricOutputTPS:
		return inconclusive
	case MetricTTFT, MetricTTFTCorrected:
		m = t.widen(s, t.measureLatency(s.TTFT, s.Censored.TTFT, s.Requests))
	default:
		m = t.Measure(s)
	}
	if m.Err != nil {
		return inconclusive
	}
	ci := m.Interval
	note := m.Note
	if t.Metric.Latency() && s.ReceiveClock != string(loadgen.ReceiveClockKernel) && s.Lag.Count > 0 {
		ci.Lo -= s.Lag.P99
		note = joinNotes(note, fmt.Sprintf("lowered by the lag p99 %.3g ms (user receive clock)", s.Lag.P99))
	}
	r := TermResult{Term: t, Measured: m.Value, Interval: m.Interval, Note: joinNotes(note, "judged lag-free")}
	if t.decide(ci) != OutcomeFail {
		return inconclusive
	}
	r.Outcome = OutcomeFail
	return r
}

// Measurement is a term's statistic measured at one level.
type Measurement struct {
	// Value is the estimate in the term's unit (ms, fraction, tokens/s);
	// NaN when it could not be measured (Err says why).
	Value float64
	// Interval is its 95 % confidence interval.
	Interval stats.Interval
	// Samples is the population the estimate stands on: requests (or
	// chunks, for icl) including the failures counted as +Inf; for
	// output_tps, the requests sent in the window.
	Samples int64
	// Failures is the number of failed requests counted as +Inf (latency
	// terms only).
	Failures int64
	// Note says which reading was used, e.g. the coordinated-omission
	// correction or the failures counted.
	Note string
	Err  error
}

// Measure reads t's statistic and its interval from s:
//   - latency terms read the distribution of their metric (ttft, itl, …),
//     error-adjusted: each of the s.Requests.Failed failures sent in the
//     window counts as one more sample at +Inf (so a p99 is +Inf once more
//     than 1 % failed, and a mean is +Inf after any failure). The interval
//     is the distribution-free one from order statistics (Student's t for
//     a mean). For ttft under an open-loop profile the larger of TTFT and
//     TTFT corrected is read ("corrected is what the SLO uses when the
//     client fell behind", as wrk2 argues); they agree while the client
//     keeps schedule. p100 (the maximum) has no upper bound.
//   - error_rate reads s.ErrorRate with its Wilson interval;
//   - output_tps reads s.OutputTokensPerSecond with its batch-means
//     interval.
//
// For a level run several times (s.Repeats), the interval is the wider of
// the pooled within-run one and the between-run one.
func (t Term) Measure(s metrics.Summary) Measurement {
	return t.widen(s, t.measure(s))
}

// widen gives a repeated level's measurement the wider of its pooled
// within-run interval and the between-run one.
func (t Term) widen(s metrics.Summary, m Measurement) Measurement {
	name := t.Name()
	if t.Metric == MetricOutputTPS {
		name = metrics.FigureOutputTokS
	}
	if f, ok := s.Repeats.Figure(name); ok && m.Err == nil {
		if w := m.Interval.Wider(f.Between); w != m.Interval {
			m.Interval = w
			m.Note = joinNotes(m.Note, fmt.Sprintf("between-run interval of %d runs", s.Repeats.Runs))
		}
	}
	return m
}

func (t Term) measure(s metrics.Summary) Measurement {
	switch t.Metric {
	case MetricErrorRate:
		m := Measurement{Value: s.ErrorRate, Interval: s.ErrorRateCI, Samples: s.Requests.OK + s.Requests.Failed}
		if c := s.Censored.Requests; c > 0 {
			// A cut-off request may yet have failed or succeeded: the lower
			// side counts it a success, the upper side a failure.
			n, f := m.Samples+c, s.Requests.Failed
			m.Samples = n
			m.Interval = stats.Interval{Lo: stats.Wilson(f, n, stats.Confidence).Lo, Hi: stats.Wilson(f+c, n, stats.Confidence).Hi}
			m.Note = fmt.Sprintf("%d cut-off request(s) counted as censored (a success on the lower side, a failure on the upper)", c)
		}
		return m
	case MetricOutputTPS:
		ci := s.OutputTokensPerSecondCI
		if ci.IsZero() && s.OutputTokensPerSecond != 0 {
			ci = stats.Unbounded()
		}
		return Measurement{Value: s.OutputTokensPerSecond, Interval: ci, Samples: s.Requests.Sent}
	case MetricTTFT:
		m := t.measureLatency(s.TTFT, s.Censored.TTFT, s.Requests)
		if s.Profile.Mode.OpenLoop() && s.TTFTCorrected.Count+s.Censored.TTFTCorrected.Reached.Count+s.Censored.TTFTCorrected.AtLeast.Count > 0 {
			c := t.measureLatency(s.TTFTCorrected, s.Censored.TTFTCorrected, s.Requests)
			if c.Err == nil && (m.Err != nil || c.Value > m.Value) {
				c.Note = joinNotes("TTFT corrected for coordinated omission (open loop)", c.Note)
				return c
			}
		}
		return m
	}
	return t.measureLatency(latencyDistribution(s, t.Metric), censoredDistribution(s, t.Metric), s.Requests)
}

// measureLatency is Measure for one latency distribution d with the
// failed requests of r counted as +Inf and the censored lower bounds cens
// (requests cut off before they reached the event,
// docs/statistics.md#censored-requests) bounding it two ways: the lower
// side of the interval and the estimate count each cut-off request at its
// lower bound, the upper side counts it as +Inf. Both are valid, because
// an order statistic can only grow when a sample grows, and the true
// latency of a cut-off request lies in [bound, +Inf]. A cut-off request
// whose bound already exceeds the threshold thus counts against the term
// like a failure; one whose bound does not can neither pass nor fail it.
// Requests cut off without a bound on this metric (r.Incomplete beyond
// cens.Count, for ITL and ICL) are left out, and the note says so.
func (t Term) measureLatency(d metrics.Distribution, cens metrics.CensoredLatency, r metrics.RequestCounts) Measurement {
	failures := r.Failed
	bounded := cens.AtLeast.Count
	if d.Count == 0 && d.Unit == "" {
		d.Unit = metrics.UnitMS // no request reached the event
	}
	m := Measurement{Samples: d.Count + failures + cens.Reached.Count + bounded, Failures: failures}
	if failures > 0 {
		m.Note = fmt.Sprintf("failures counted as +inf: %d of %d requests failed", failures, r.OK+failures)
	}
	if n := cens.Reached.Count + bounded; n > 0 {
		m.Note = joinNotes(m.Note, fmt.Sprintf("%d cut-off request(s) counted as censored (%d not reached: at least their wait)", n, bounded))
	}
	// known: every exact value; lower: the bounds too, at their value.
	known, lower := d, d
	var err error
	if cens.Reached.Count > 0 {
		if known, err = metrics.Merge(d, cens.Reached); err == nil {
			lower = known
		}
	}
	if err == nil && bounded > 0 {
		lower, err = metrics.Merge(known, cens.AtLeast)
	}
	if err != nil {
		m.Value, m.Interval, m.Err = math.NaN(), stats.Unbounded(), fmt.Errorf("censored %s: %w", t.Metric, err)
		return m
	}
	switch {
	case m.Samples == 0:
		m.Value, m.Interval, m.Err = math.NaN(), stats.Unbounded(), fmt.Errorf("no samples")
	case t.Mean && failures > 0:
		m.Value, m.Interval = math.Inf(1), stats.Interval{Lo: math.Inf(1), Hi: math.Inf(1)}
	case t.Mean:
		m.Value, m.Interval = lower.Mean, lower.MeanCI
		if bounded > 0 {
			m.Interval.Hi = math.Inf(1) // a cut-off request may take any time
		}
	case t.Percentile >= 100:
		// The maximum: the largest sample bounds it from below only.
		m.Value = lower.Max
		if failures > 0 {
			m.Value = math.Inf(1)
		}
		m.Interval = stats.Interval{Lo: m.Value, Hi: math.Inf(1)}
	default:
		v, ci, err := lower.Quantile(t.Percentile, failures)
		if err != nil {
			m.Value, m.Interval, m.Err = math.NaN(), stats.Unbounded(), fmt.Errorf("p%s needs the histogram: %w", formatNumber(t.Percentile), err)
			break
		}
		m.Value, m.Interval = v, ci
		if bounded > 0 {
			_, upper, err := known.Quantile(t.Percentile, failures+bounded)
			if err != nil {
				m.Value, m.Interval, m.Err = math.NaN(), stats.Unbounded(), fmt.Errorf("p%s needs the histogram: %w", formatNumber(t.Percentile), err)
				break
			}
			m.Interval.Hi = upper.Hi
		}
	}
	return m
}

// Judge measures t at one level and decides it (see Evaluate).
func (t Term) Judge(s metrics.Summary) TermResult {
	m := t.Measure(s)
	r := TermResult{Term: t, Measured: m.Value, Interval: m.Interval, Note: m.Note}
	if m.Err != nil {
		r.Measured, r.Outcome = math.NaN(), OutcomeInconclusive
		r.Note = joinNotes(r.Note, m.Err.Error())
		return r
	}
	r.Outcome = t.decide(m.Interval)
	r.Pass = r.Outcome == OutcomePass
	if r.Outcome == OutcomeInconclusive {
		r.MoreRequests = t.moreRequests(s, m)
	}
	return r
}

// decide compares a whole interval with the threshold.
func (t Term) decide(ci stats.Interval) Outcome {
	th := t.Threshold
	if t.Op.upper() {
		switch {
		case t.Op.Holds(ci.Hi, th):
			return OutcomePass
		case !t.Op.Holds(ci.Lo, th) && !math.IsNaN(ci.Lo) && !math.IsInf(ci.Lo, -1):
			return OutcomeFail
		}
		return OutcomeInconclusive
	}
	switch {
	case t.Op.Holds(ci.Lo, th):
		return OutcomePass
	case !t.Op.Holds(ci.Hi, th) && !math.IsNaN(ci.Hi) && !math.IsInf(ci.Hi, 1):
		return OutcomeFail
	}
	return OutcomeInconclusive
}

// moreRequests estimates how many more requests would decide an
// inconclusive term; 0 when there is no estimate.
func (t Term) moreRequests(s metrics.Summary, m Measurement) int64 {
	n := m.Samples
	var need int64
	switch {
	case t.Metric == MetricErrorRate:
		need = stats.WilsonSamplesToDecide(m.Value, t.Threshold, stats.Confidence, n)
	case t.Metric == MetricOutputTPS:
		half := max(m.Interval.Hi-m.Value, m.Value-m.Interval.Lo)
		need = stats.MeanSamplesToDecide(n, half, m.Value-t.Threshold)
	case t.Mean:
		half := max(m.Interval.Hi-m.Value, m.Value-m.Interval.Lo)
		need = stats.MeanSamplesToDecide(n, half, m.Value-t.Threshold)
	case t.Percentile >= 100:
		return 0 // a maximum is never bounded above
	default:
		d := latencyDistribution(s, t.Metric)
		if t.Metric == MetricTTFT && strings.Contains(m.Note, "corrected") {
			d = s.TTFTCorrected
		}
		cens := censoredDistribution(s, t.Metric)
		if t.Metric == MetricTTFT && strings.Contains(m.Note, "corrected") {
			cens = s.Censored.TTFTCorrected
		}
		for _, c := range []metrics.Distribution{cens.Reached, cens.AtLeast} {
			if merged, err := metrics.Merge(d, c); c.Count > 0 && err == nil {
				d = merged
			}
		}
		q := d.FractionAtOrBelowWithFailures(t.Threshold, m.Failures)
		need = stats.QuantileSamplesToDecide(t.Percentile/100, q, stats.Confidence, n)
	}
	if need <= n {
		return 0
	}
	return need - n
}

// censoredDistribution returns what the requests cut off unfinished tell
// of a latency metric (Summary.Censored).
func censoredDistribution(s metrics.Summary, m Metric) metrics.CensoredLatency {
	switch m {
	case MetricTTFT:
		return s.Censored.TTFT
	case MetricTTFTCorrected:
		return s.Censored.TTFTCorrected
	case MetricE2E:
		return s.Censored.E2E
	case MetricTTFOT:
		return s.Censored.TTFOT
	case MetricITL:
		return s.Censored.ITL
	case MetricICL:
		return s.Censored.ICL
	}
	return metrics.CensoredLatency{}
}

// latencyDistribution returns the Summary's distribution for a latency metric.
func latencyDistribution(s metrics.Summary, m Metric) metrics.Distribution {
	switch m {
	case MetricTTFT:
		return s.TTFT
	case MetricTTFTCorrected:
		return s.TTFTCorrected
	case MetricITL:
		return s.ITL
	case MetricICL:
		return s.ICL
	case MetricE2E:
		return s.E2E
	case MetricTTFOT:
		return s.TTFOT
	}
	return metrics.Distribution{}
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// formatValue formats a measured value or bound of t for people: "412ms",
// "0.37%", "1,200 tok/s"; "unbounded" for an open side.
func (t Term) formatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "unmeasured"
	case math.IsInf(v, 1):
		if t.Metric.Latency() {
			return "inf"
		}
		return "unbounded"
	case math.IsInf(v, -1):
		return "unbounded"
	case t.Metric.Latency() && math.Abs(v) >= 1e4:
		return fmt.Sprintf("%.0fms", v) // 39620ms, not 3.962e+04ms
	case t.Metric.Latency():
		return fmt.Sprintf("%.4gms", v)
	case t.Metric == MetricErrorRate:
		return fmt.Sprintf("%.3g%%", v*100)
	}
	return fmt.Sprintf("%.4g tok/s", v)
}

// intervalText formats an interval for a reason: "[412ms, unbounded]";
// "[inf, inf]" when the figure itself is infinite (failures).
func (t Term) intervalText(ci stats.Interval) string {
	if math.IsInf(ci.Lo, 1) {
		return "[inf, inf]"
	}
	lo := t.formatValue(ci.Lo)
	if math.IsInf(ci.Lo, -1) {
		lo = "unbounded"
	}
	hi := t.formatValue(ci.Hi)
	if math.IsInf(ci.Hi, 1) {
		hi = "unbounded"
	}
	return "[" + lo + ", " + hi + "]"
}

// failReason describes one failed term for people.
func failReason(r TermResult) string {
	t := r.Term
	s := fmt.Sprintf("%s = %s %s, wanted %s%s", t.Name(), t.formatValue(r.Measured), t.intervalText(r.Interval), t.Op, t.ValueString())
	if r.Note != "" {
		s += " (" + r.Note + ")"
	}
	return s
}

// undecidedReason describes one inconclusive term for people.
func undecidedReason(r TermResult) string {
	t := r.Term
	if math.IsNaN(r.Measured) {
		return fmt.Sprintf("%s not measured: %s", t.Name(), r.Note)
	}
	s := fmt.Sprintf("%s = %s %s straddles %s%s", t.Name(), t.formatValue(r.Measured), t.intervalText(r.Interval), t.Op, t.ValueString())
	if r.Note != "" {
		s += " (" + r.Note + ")"
	}
	if r.MoreRequests > 0 {
		s += fmt.Sprintf(": about %d more requests would decide it", r.MoreRequests)
	}
	return s
}

// termResultJSON is TermResult on the wire: JSON has no NaN or infinity,
// so an unmeasured value is written as null and an infinite one (a level
// whose every request failed, error-adjusted) as the string "inf".
type termResultJSON struct {
	Term         Term            `json:"term"`
	Measured     json.RawMessage `json:"measured"`
	Interval     *stats.Interval `json:"interval,omitempty"`
	Outcome      Outcome         `json:"outcome,omitempty"`
	Pass         bool            `json:"pass"`
	MoreRequests int64           `json:"more_requests,omitempty"`
	Note         string          `json:"note,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (r TermResult) MarshalJSON() ([]byte, error) {
	var m []byte
	switch {
	case math.IsNaN(r.Measured):
		m = []byte("null")
	case math.IsInf(r.Measured, 1):
		m = []byte(`"inf"`)
	case math.IsInf(r.Measured, -1):
		m = []byte(`"-inf"`)
	default:
		m = strconv.AppendFloat(nil, r.Measured, 'g', -1, 64)
	}
	w := termResultJSON{Term: r.Term, Measured: m, Outcome: r.Outcome, Pass: r.Pass, MoreRequests: r.MoreRequests, Note: r.Note}
	if !r.Interval.IsZero() {
		w.Interval = &r.Interval
	}
	return json.Marshal(w)
}

// UnmarshalJSON implements json.Unmarshaler. A result written before
// verdicts had three values (no "outcome") is read as pass or fail from
// its "pass" field.
func (r *TermResult) UnmarshalJSON(b []byte) error {
	var w termResultJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = TermResult{Term: w.Term, Pass: w.Pass, Outcome: w.Outcome, MoreRequests: w.MoreRequests, Note: w.Note, Measured: math.NaN()}
	if w.Interval != nil {
		r.Interval = *w.Interval
	}
	if r.Outcome == "" {
		r.Outcome = OutcomeFail
		if r.Pass {
			r.Outcome = OutcomePass
		}
	}
	switch s := string(w.Measured); s {
	case "", "null":
	case `"inf"`:
		r.Measured = math.Inf(1)
	case `"-inf"`:
		r.Measured = math.Inf(-1)
	default:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("slo: term result measured %s: %w", s, err)
		}
		r.Measured = v
	}
	return nil
}

// UnmarshalJSON reads a Verdict; one written before verdicts had three
// values (no "outcome") is read as pass or fail from its "pass" field.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	type plain Verdict
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*v = Verdict(p)
	if v.Outcome == "" {
		v.Outcome = OutcomeFail
		if v.Pass {
			v.Outcome = OutcomePass
		}
	}
	return nil
}
