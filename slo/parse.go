package slo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseError is a problem in an SLO expression. Term is the offending term
// as written (trimmed), Column the 1-based byte column of the problem in
// the whole expression, and Msg says what is wrong and how to fix it.
type ParseError struct {
	Term   string
	Column int
	Msg    string
}

// Error implements error.
func (e *ParseError) Error() string {
	if e.Term == "" {
		return fmt.Sprintf("slo: column %d: %s", e.Column, e.Msg)
	}
	return fmt.Sprintf("slo: column %d, term %q: %s", e.Column, e.Term, e.Msg)
}

// validMetrics is the list error messages offer for an unknown metric.
const validMetrics = "ttft, ttft_corrected, itl, icl, e2e, ttfot (each with _pNN or _mean, e.g. ttft_p99, itl_p99.9, e2e_mean), error_rate, output_tps"

// Parse reads an SLO expression (docs/metrics.md#the-slo): comma-separated
// terms "metric_statistic op value[unit]", for example
//
//	ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%,output_tps>=1000
//
// Grammar and decisions:
//   - Metrics: ttft, ttft_corrected, itl, icl, e2e, ttfot take a statistic
//     suffix: _pN or _pN.N with N in (0, 100] (p50, p90, p95, p99, p99.9,
//     and any other such as p75 or p99.99), or _mean. "p999" is rejected (it
//     is out of range); write p99.9. error_rate and output_tps take none.
//   - Ops: <= and < for latency and error_rate (upper bounds); >= and > for
//     output_tps (a lower bound). Anything else is an error.
//   - Units: latency values need ms or s (a bare number is ambiguous and
//     rejected); error_rate takes % (0.5% = 0.005) or a bare fraction in
//     [0, 1]; output_tps is tokens/s, bare or with the suffix tok/s.
//   - Values are non-negative decimals without exponent or sign.
//   - Spaces and tabs are allowed around names, ops, values and units;
//     names and units are case-insensitive.
//   - The empty (or all-blank) expression is the empty Objective. An empty
//     term (",," or a trailing comma) is an error. Repeated terms are kept
//     (Objective.Validate refuses them).
//
// The first problem found is returned as a *ParseError.
func Parse(s string) (Objective, error) {
	if strings.TrimSpace(s) == "" {
		return Objective{}, nil
	}
	var o Objective
	start := 0
	for {
		end := strings.IndexByte(s[start:], ',')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		t, err := parseTerm(s[start:end], start)
		if err != nil {
			return Objective{}, err
		}
		o.Terms = append(o.Terms, t)
		if end == len(s) {
			return o, nil
		}
		start = end + 1
	}
}

// scanner walks one term; off is the term's byte offset in the expression.
type scanner struct {
	src  string
	pos  int
	off  int
	text string // trimmed term, for errors
}

func (sc *scanner) errAt(pos int, format string, args ...any) *ParseError {
	return &ParseError{Term: sc.text, Column: sc.off + pos + 1, Msg: fmt.Sprintf(format, args...)}
}

func (sc *scanner) skipSpace() {
	for sc.pos < len(sc.src) && (sc.src[sc.pos] == ' ' || sc.src[sc.pos] == '\t' || sc.src[sc.pos] == '\n' || sc.src[sc.pos] == '\r') {
		sc.pos++
	}
}

// span consumes bytes while ok holds and returns them.
func (sc *scanner) span(ok func(byte) bool) string {
	b := sc.pos
	for sc.pos < len(sc.src) && ok(sc.src[sc.pos]) {
		sc.pos++
	}
	return sc.src[b:sc.pos]
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isNumberByte(c byte) bool { return c == '.' || ('0' <= c && c <= '9') }

func isUnitByte(c byte) bool {
	return c == '%' || c == '/' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isOpByte(c byte) bool { return c == '<' || c == '>' || c == '=' || c == '!' }

func parseTerm(src string, off int) (Term, error) {
	sc := &scanner{src: src, off: off, text: strings.TrimSpace(src)}
	sc.skipSpace()
	if sc.pos == len(src) {
		return Term{}, sc.errAt(sc.pos, "empty term: remove the extra comma, or write a term such as ttft_p99<=500ms")
	}
	termStart := sc.pos
	t := Term{Text: sc.text, Column: off + termStart + 1}

	// Left-hand side: metric and statistic.
	namePos := sc.pos
	name := sc.span(isNameByte)
	if name == "" {
		if isOpByte(src[sc.pos]) {
			return Term{}, sc.errAt(sc.pos, "missing metric before the operator: write e.g. ttft_p99<=500ms; valid metrics are %s", validMetrics)
		}
		return Term{}, sc.errAt(sc.pos, "unexpected %q: a term is metric_statistic op value[unit], e.g. ttft_p99<=500ms", rune(src[sc.pos]))
	}
	if err := parseName(sc, namePos, strings.ToLower(name), &t); err != nil {
		return Term{}, err
	}

	// Operator.
	sc.skipSpace()
	opPos := sc.pos
	op := sc.span(isOpByte)
	if op == "" {
		if sc.pos == len(src) {
			return Term{}, sc.errAt(sc.pos, "missing comparison after %q: write <= or < (upper bound) or >= or > (lower bound), e.g. %s<=500ms", name, name)
		}
		return Term{}, sc.errAt(sc.pos, "unexpected %q after %q: expected a comparison <=, <, >= or >; metric names use letters, digits, _ and .", rune(src[sc.pos]), name)
	}
	switch Op(op) {
	case OpLE, OpLT, OpGE, OpGT:
		t.Op = Op(op)
	default:
		return Term{}, sc.errAt(opPos, "operator %q is not allowed: use <= or < for an upper bound, >= or > for a lower bound", op)
	}
	lower := t.Metric == MetricOutputTPS
	if lower && t.Op.upper() {
		return Term{}, sc.errAt(opPos, "%s is a lower bound: use >= or >, e.g. output_tps>=1000", t.Metric)
	}
	if !lower && !t.Op.upper() {
		return Term{}, sc.errAt(opPos, "%s is an upper bound: use <= or <, e.g. %s<=%s", t.Name(), t.Name(), example(t.Metric))
	}

	// Value.
	sc.skipSpace()
	valPos := sc.pos
	if sc.pos == len(src) {
		return Term{}, sc.errAt(sc.pos, "missing value after %q: write e.g. %s%s%s", op, t.Name(), op, example(t.Metric))
	}
	if src[sc.pos] == '-' {
		return Term{}, sc.errAt(sc.pos, "negative threshold: thresholds are >= 0")
	}
	num := sc.span(isNumberByte)
	if num == "" {
		return Term{}, sc.errAt(sc.pos, "missing value after %q: write e.g. %s%s%s", op, t.Name(), op, example(t.Metric))
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || strings.Count(num, ".") > 1 {
		return Term{}, sc.errAt(valPos, "bad number %q: write a plain decimal such as 500 or 0.5", num)
	}

	// Unit.
	sc.skipSpace()
	unitPos := sc.pos
	unit := strings.ToLower(sc.span(isUnitByte))
	if err := applyUnit(sc, &t, v, num, unit, valPos, unitPos); err != nil {
		return Term{}, err
	}
	sc.skipSpace()
	if sc.pos != len(src) {
		return Term{}, sc.errAt(sc.pos, "unexpected %q after the value: a term is metric_statistic op value[unit]; separate terms with commas", src[sc.pos:])
	}
	if err := t.check(); err != nil {
		return Term{}, sc.errAt(termStart, "%v", err) // Validate's rules; the checks above catch each first
	}
	return t, nil
}

// parseName fills t.Metric, t.Percentile and t.Mean from the lower-cased name.
func parseName(sc *scanner, pos int, name string, t *Term) error {
	switch Metric(name) {
	case MetricErrorRate, MetricOutputTPS:
		t.Metric = Metric(name)
		return nil
	}
	if strings.HasPrefix(name, string(MetricErrorRate)+"_") || strings.HasPrefix(name, string(MetricOutputTPS)+"_") {
		base := name[:strings.LastIndexByte(name, '_')]
		return sc.errAt(pos, "%s takes no statistic: write e.g. %s%s", base, base, map[string]string{"error_rate": "<=0.5%", "output_tps": ">=1000"}[base])
	}
	if Metric(name).Latency() {
		return sc.errAt(pos+len(name), "%s needs a statistic: write %s_p99, %s_p99.9 or %s_mean", name, name, name, name)
	}
	i := strings.LastIndexByte(name, '_')
	if i < 0 || !Metric(name[:i]).Latency() {
		return sc.errAt(pos, "unknown metric %q: valid metrics are %s", name, validMetrics)
	}
	t.Metric = Metric(name[:i])
	stat := name[i+1:]
	statPos := pos + i + 1
	if stat == "mean" {
		t.Mean = true
		return nil
	}
	digits := strings.TrimPrefix(stat, "p")
	if len(digits) == len(stat) || digits == "" || !validPercentileDigits(digits) {
		return sc.errAt(statPos, "bad statistic %q: use pN or pN.N (p50, p90, p95, p99, p99.9) or mean, e.g. %s_p99", stat, t.Metric)
	}
	p, err := strconv.ParseFloat(digits, 64)
	if err != nil {
		return sc.errAt(statPos, "bad statistic %q: use pN or pN.N (p50, p90, p95, p99, p99.9) or mean", stat)
	}
	if p <= 0 || p > 100 {
		hint := ""
		if p > 100 && !strings.Contains(digits, ".") && strings.HasPrefix(digits, "99") {
			hint = fmt.Sprintf("; for the %s.%sth percentile write p%s.%s", digits[:2], digits[2:], digits[:2], digits[2:])
		}
		return sc.errAt(statPos, "percentile %s is out of range: it must be in (0, 100], e.g. p50, p99 or p99.9%s", stat, hint)
	}
	t.Percentile = p
	return nil
}

// validPercentileDigits accepts N or N.N (digits, at most one inner dot).
func validPercentileDigits(s string) bool {
	dot := strings.IndexByte(s, '.')
	if dot < 0 {
		return allDigits(s)
	}
	return dot > 0 && dot < len(s)-1 && allDigits(s[:dot]) && allDigits(s[dot+1:])
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// example is a sample value with unit for the metric, for error messages.
func example(m Metric) string {
	switch m {
	case MetricErrorRate:
		return "0.5%"
	case MetricOutputTPS:
		return "1000"
	default:
		return "500ms"
	}
}

// applyUnit converts v (as written: num) with unit into t.Threshold.
func applyUnit(sc *scanner, t *Term, v float64, num, unit string, valPos, unitPos int) error {
	switch {
	case t.Metric.Latency():
		switch unit {
		case "ms":
			t.Threshold = v
		case "s":
			t.Threshold = v * 1000
		case "":
			return sc.errAt(unitPos, "missing unit after %s: latency needs ms or s, e.g. %sms or %ss", num, num, num)
		default:
			return sc.errAt(unitPos, "bad unit %q for %s: use ms or s, e.g. %s<=500ms", unit, t.Name(), t.Name())
		}
	case t.Metric == MetricErrorRate:
		switch unit {
		case "%":
			if v > 100 {
				return sc.errAt(valPos, "error_rate %s%% is above 100%%: write a percentage in [0, 100], e.g. error_rate<=0.5%%", num)
			}
			t.Threshold = v / 100
		case "":
			if v > 1 {
				return sc.errAt(valPos, "error_rate %s is not a fraction in [0, 1]: for a percentage write %s%%", num, num)
			}
			t.Threshold = v
		default:
			return sc.errAt(unitPos, "bad unit %q for error_rate: use %% or a bare fraction, e.g. error_rate<=0.5%% or error_rate<=0.005", unit)
		}
	default: // output_tps
		switch unit {
		case "", "tok/s":
			t.Threshold = v
		default:
			return sc.errAt(unitPos, "bad unit %q for output_tps: it is tokens/s, written bare or with tok/s, e.g. output_tps>=1000", unit)
		}
	}
	if math.IsInf(t.Threshold, 0) || math.IsNaN(t.Threshold) {
		return sc.errAt(valPos, "threshold %s is too large", num)
	}
	return nil
}
