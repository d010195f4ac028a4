package slo

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// TermResult is one term's outcome at one level.
type TermResult struct {
	Term Term `json:"term"`
	// Measured is the level's value in the term's unit (ms, fraction or
	// tokens/s); NaN when it could not be measured (then Pass is false and
	// Note says why).
	Measured float64 `json:"measured"`
	Pass     bool    `json:"pass"`
	Note     string  `json:"note,omitempty"`
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

// Verdict is the SLO outcome of one level (SPEC §6): it passes when every
// term holds, the level is not client-limited, and at least one request
// succeeded.
type Verdict struct {
	Pass  bool         `json:"pass"`
	Terms []TermResult `json:"terms,omitempty"`
	// Failing lists the canonical form of each violated term, e.g. "ttft_p99<=500ms".
	Failing []string `json:"failing,omitempty"`
	// ClientLimited copies Summary.Client.ClientLimited: such a level never passes.
	ClientLimited bool `json:"client_limited,omitempty"`
	// NoSuccess is set when the level had no successful request in its window.
	NoSuccess bool `json:"no_success,omitempty"`
	// Reason explains a failure for people; empty when Pass.
	Reason string `json:"reason,omitempty"`
}

// Evaluate judges one level's Summary against o. It reads only s.
//
// Measured values: latency terms use the level's distributions in ms: the
// stored statistic (Mean, P50, P90, P95, P99, P999; p100 = Max) or, for any
// other percentile, the encoded histogram. error_rate uses s.ErrorRate and
// output_tps uses s.OutputTokensPerSecond. Error-adjusted distributions are
// not used: failures are judged by error_rate.
//
// The ttft rule (SPEC §5, "corrected is what the SLO uses when the client
// fell behind"): for open-loop profiles whose TTFTCorrected has samples,
// ttft is the larger of the TTFT and TTFT-corrected statistic; otherwise
// plain TTFT. Corrected is never below plain per request, and the two
// agree while the client keeps schedule, so this only bites when arrivals
// were late (client lag, or queueing behind --max-concurrency): then the
// user saw the corrected latency, as wrk2 argues. ttft_corrected always
// uses TTFTCorrected.
//
// A client-limited level (s.Client.ClientLimited) fails with the client's
// reason, and so does a level with zero successful requests, whatever the
// terms say. The empty Objective passes any level that is neither.
func (o Objective) Evaluate(s metrics.Summary) Verdict {
	v := Verdict{Pass: true, ClientLimited: s.Client.ClientLimited}
	var reasons []string
	if s.Client.ClientLimited {
		v.Pass = false
		r := "client-limited: the load generator fell behind, so latencies are not the server's"
		if s.Client.Reason != "" {
			r += " (" + s.Client.Reason + ")"
		}
		reasons = append(reasons, r)
	}
	if s.Requests.OK == 0 {
		v.Pass = false
		v.NoSuccess = true
		reasons = append(reasons, "no successful request in the window")
	}
	for _, t := range o.Terms {
		r := evaluateTerm(s, t)
		v.Terms = append(v.Terms, r)
		if !r.Pass {
			v.Pass = false
			v.Failing = append(v.Failing, t.String())
			reasons = append(reasons, failReason(r))
		}
	}
	v.Reason = strings.Join(reasons, "; ")
	return v
}

func evaluateTerm(s metrics.Summary, t Term) TermResult {
	r := TermResult{Term: t}
	var err error
	switch t.Metric {
	case MetricErrorRate:
		r.Measured = s.ErrorRate
	case MetricOutputTPS:
		r.Measured = s.OutputTokensPerSecond
	case MetricTTFT:
		r.Measured, err = statistic(s.TTFT, t)
		if s.Profile.Mode.OpenLoop() && s.TTFTCorrected.Count > 0 {
			c, cerr := statistic(s.TTFTCorrected, t)
			if cerr == nil && (err != nil || c > r.Measured) {
				r.Measured, err = c, nil
				r.Note = "TTFT corrected for coordinated omission (open loop)"
			}
		}
	default:
		r.Measured, err = statistic(latencyDistribution(s, t.Metric), t)
	}
	if err != nil {
		r.Measured = math.NaN()
		r.Note = err.Error()
		return r
	}
	r.Pass = t.Op.Holds(r.Measured, t.Threshold)
	return r
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

// failReason describes one violated term for people.
func failReason(r TermResult) string {
	t := r.Term
	if math.IsNaN(r.Measured) {
		return fmt.Sprintf("%s not measured: %s", t.Name(), r.Note)
	}
	var got string
	switch {
	case t.Metric.Latency():
		got = fmt.Sprintf("%.4gms", r.Measured)
	case t.Metric == MetricErrorRate:
		got = fmt.Sprintf("%.4g%%", r.Measured*100)
	default:
		got = fmt.Sprintf("%.4g tok/s", r.Measured)
	}
	return fmt.Sprintf("%s = %s, wanted %s%s", t.Name(), got, t.Op, t.ValueString())
}

// termResultJSON is TermResult on the wire: JSON has no NaN or infinity,
// so an unmeasured value is written as null and an infinite one (a level
// whose every request failed, error-adjusted) as the string "inf".
type termResultJSON struct {
	Term     Term            `json:"term"`
	Measured json.RawMessage `json:"measured"`
	Pass     bool            `json:"pass"`
	Note     string          `json:"note,omitempty"`
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
	return json.Marshal(termResultJSON{Term: r.Term, Measured: m, Pass: r.Pass, Note: r.Note})
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *TermResult) UnmarshalJSON(b []byte) error {
	var w termResultJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = TermResult{Term: w.Term, Pass: w.Pass, Note: w.Note, Measured: math.NaN()}
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
