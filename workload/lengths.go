package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// LengthSampler draws the input length (ISL, tokens) and the requested
// output length (OSL, tokens) of one request. Implementations must be
// deterministic given r and safe for concurrent use (r is per request).
type LengthSampler interface {
	Sample(r *rand.Rand) (isl, osl int)
}

// Data is GuideLLM's synthetic data spec (--data), all lengths in tokens:
// a normal distribution per length, clamped to [Min, Max]. A zero Stdev
// gives a fixed length. The zero Data is invalid: PromptTokens and
// OutputTokens must be set.
type Data struct {
	PromptTokens      int `json:"prompt_tokens"`
	PromptTokensStdev int `json:"prompt_tokens_stdev,omitempty"`
	PromptTokensMin   int `json:"prompt_tokens_min,omitempty"`
	PromptTokensMax   int `json:"prompt_tokens_max,omitempty"`
	OutputTokens      int `json:"output_tokens"`
	OutputTokensStdev int `json:"output_tokens_stdev,omitempty"`
	OutputTokensMin   int `json:"output_tokens_min,omitempty"`
	OutputTokensMax   int `json:"output_tokens_max,omitempty"`
}

// ParseData parses GuideLLM's token lengths spelling, a comma-separated list of
// key=value pairs: prompt_tokens, output_tokens (required), and
// prompt_tokens_stdev, prompt_tokens_min, prompt_tokens_max,
// output_tokens_stdev, output_tokens_min, output_tokens_max. Every problem
// is reported at once (errors.Join), each naming the token lengths and the
// key.
func ParseData(s string) (Data, error) {
	var d Data
	fields := map[string]*int{
		"prompt_tokens":       &d.PromptTokens,
		"prompt_tokens_stdev": &d.PromptTokensStdev,
		"prompt_tokens_min":   &d.PromptTokensMin,
		"prompt_tokens_max":   &d.PromptTokensMax,
		"output_tokens":       &d.OutputTokens,
		"output_tokens_stdev": &d.OutputTokensStdev,
		"output_tokens_min":   &d.OutputTokensMin,
		"output_tokens_max":   &d.OutputTokensMax,
	}
	_, errs := parseKeyInts(s, fields, "prompt_tokens, output_tokens, and their _stdev, _min, _max", "prompt_tokens=1024")
	for i, err := range errs {
		errs[i] = fmt.Errorf("token lengths: %w", err)
	}
	if len(errs) > 0 {
		return Data{}, errors.Join(errs...)
	}
	return d, d.Validate()
}

// Validate reports every inconsistency at once.
func (d Data) Validate() error {
	var errs []error
	check := func(name string, mean, stdev, lo, hi int) {
		if mean < 1 {
			errs = append(errs, fmt.Errorf("token lengths: %s must be at least 1 token, got %d", name, mean))
		}
		if stdev < 0 || lo < 0 || hi < 0 {
			errs = append(errs, fmt.Errorf("token lengths: %s_stdev, _min and _max must not be negative", name))
		}
		if hi > 0 && lo > hi {
			errs = append(errs, fmt.Errorf("token lengths: %s_min (%d) is above %s_max (%d)", name, lo, name, hi))
		}
		// A mean outside [min, max] would be clamped to the bound: every
		// request would get the bound, not the length asked for.
		if lo > 0 && mean > 0 && mean < lo {
			errs = append(errs, fmt.Errorf("token lengths: %s=%d is below %s_min=%d; every request would get %d; raise %s or lower %s_min", name, mean, name, lo, lo, name, name))
		}
		if hi > 0 && mean > hi {
			errs = append(errs, fmt.Errorf("token lengths: %s=%d is above %s_max=%d; every request would get %d; lower %s or raise %s_max", name, mean, name, hi, hi, name, name))
		}
	}
	check("prompt_tokens", d.PromptTokens, d.PromptTokensStdev, d.PromptTokensMin, d.PromptTokensMax)
	check("output_tokens", d.OutputTokens, d.OutputTokensStdev, d.OutputTokensMin, d.OutputTokensMax)
	return errors.Join(errs...)
}

// String returns the --data spelling of d.
func (d Data) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "prompt_tokens=%d,output_tokens=%d", d.PromptTokens, d.OutputTokens)
	for _, f := range []struct {
		k string
		v int
	}{
		{"prompt_tokens_stdev", d.PromptTokensStdev}, {"prompt_tokens_min", d.PromptTokensMin},
		{"prompt_tokens_max", d.PromptTokensMax}, {"output_tokens_stdev", d.OutputTokensStdev},
		{"output_tokens_min", d.OutputTokensMin}, {"output_tokens_max", d.OutputTokensMax},
	} {
		if f.v != 0 {
			fmt.Fprintf(&b, ",%s=%d", f.k, f.v)
		}
	}
	return b.String()
}

// Sample implements LengthSampler.
func (d Data) Sample(r *rand.Rand) (isl, osl int) {
	isl = normalLength(r, d.PromptTokens, d.PromptTokensStdev, d.PromptTokensMin, d.PromptTokensMax)
	osl = normalLength(r, d.OutputTokens, d.OutputTokensStdev, d.OutputTokensMin, d.OutputTokensMax)
	return isl, osl
}

// normalLength draws round(N(mean, stdev)) clamped to [max(lo,1), hi]. It
// always consumes one random number, so the stream stays aligned whatever
// the spec.
func normalLength(r *rand.Rand, mean, stdev, lo, hi int) int {
	z := r.NormFloat64()
	n := mean
	if stdev > 0 {
		n = int(math.Round(float64(mean) + z*float64(stdev)))
	}
	n = max(n, lo, 1)
	if hi > 0 {
		n = min(n, hi)
	}
	return n
}

// SequenceDistribution is AIPerf's sequence distribution: a weighted mix
// of (ISL, OSL) pairs, each with an optional standard deviation, in tokens.
type SequenceDistribution struct {
	Entries []SequenceEntry
}

// SequenceEntry is one (ISL, OSL) pair of a SequenceDistribution. Weight is
// its share, a percentage (ParseSequenceDistribution sets 1 for every
// entry of an unweighted mix, which gives equal shares).
type SequenceEntry struct {
	ISL, ISLStdev int
	OSL, OSLStdev int
	Weight        float64
}

// ParseSequenceDistribution parses AIPerf's grammar:
// "ISL[|stdev],OSL[|stdev][:weight];..." e.g.
// "64|10,32|8:70;256|40,128|20:20;1024|100,512|50:10". Weights are
// percentages, as in AIPerf: either every entry has one and they sum to
// 100 (within 0.01), or no entry has one and the entries get equal shares.
// A mix, or weights summing to anything else (a typo such as 70 and 20),
// is an error. Errors name the sequence distribution, and the entry
// (1-based) and its text.
func ParseSequenceDistribution(s string) (SequenceDistribution, error) {
	var sd SequenceDistribution
	var errs []error
	weighted, total := 0, 0.0
	for i, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		e, err := parseSequenceEntry(part)
		if err != nil {
			errs = append(errs, fmt.Errorf("sequence distribution: entry %d %q: %w", i+1, part, err))
			continue
		}
		if strings.Contains(part, ":") {
			weighted++
			total += e.Weight
		}
		sd.Entries = append(sd.Entries, e)
	}
	switch n := len(sd.Entries); {
	case len(errs) > 0:
	case n == 0:
		errs = append(errs, errors.New(`sequence distribution: empty; write e.g. "256,128:50;1024,512:50"`))
	case weighted > 0 && weighted < n:
		errs = append(errs, fmt.Errorf("sequence distribution: %d of %d entries have a weight: give every entry a weight (percentages summing to 100), or none for equal shares", weighted, n))
	case weighted > 0 && math.Abs(total-100) > 0.01:
		errs = append(errs, fmt.Errorf("sequence distribution: the weights sum to %g: they are percentages and must sum to 100, e.g. \"256,128:70;1024,512:30\"", total))
	}
	if len(errs) > 0 {
		return SequenceDistribution{}, errors.Join(errs...)
	}
	return sd, nil
}

func parseSequenceEntry(s string) (SequenceEntry, error) {
	e := SequenceEntry{Weight: 1}
	pair, weight, hasWeight := strings.Cut(s, ":")
	if hasWeight {
		w, err := strconv.ParseFloat(strings.TrimSpace(weight), 64)
		if err != nil || w <= 0 || math.IsInf(w, 0) || math.IsNaN(w) {
			return e, fmt.Errorf("weight %q must be a positive number", weight)
		}
		e.Weight = w
	}
	in, out, ok := strings.Cut(pair, ",")
	if !ok {
		return e, errors.New("want ISL,OSL (e.g. 256,128 or 256|20,128|10)")
	}
	var err error
	if e.ISL, e.ISLStdev, err = parseLengthStdev(in); err != nil {
		return e, fmt.Errorf("ISL: %w", err)
	}
	if e.OSL, e.OSLStdev, err = parseLengthStdev(out); err != nil {
		return e, fmt.Errorf("OSL: %w", err)
	}
	return e, nil
}

func parseLengthStdev(s string) (mean, stdev int, err error) {
	m, sd, hasSD := strings.Cut(strings.TrimSpace(s), "|")
	if mean, err = strconv.Atoi(strings.TrimSpace(m)); err != nil || mean < 1 {
		return 0, 0, fmt.Errorf("%q is not a positive token count", m)
	}
	if hasSD {
		if stdev, err = strconv.Atoi(strings.TrimSpace(sd)); err != nil || stdev < 0 {
			return 0, 0, fmt.Errorf("stdev %q is not a non-negative token count", sd)
		}
	}
	return mean, stdev, nil
}

// Sample implements LengthSampler: it picks an entry by weight, then draws
// both lengths from it.
func (sd SequenceDistribution) Sample(r *rand.Rand) (isl, osl int) {
	total := 0.0
	for _, e := range sd.Entries {
		total += e.Weight
	}
	x := r.Float64() * total
	e := sd.Entries[len(sd.Entries)-1]
	for _, c := range sd.Entries {
		if x < c.Weight {
			e = c
			break
		}
		x -= c.Weight
	}
	isl = normalLength(r, e.ISL, e.ISLStdev, 0, 0)
	osl = normalLength(r, e.OSL, e.OSLStdev, 0, 0)
	return isl, osl
}

// String returns the AIPerf spelling of sd, which
// ParseSequenceDistribution reads back: a zero stdev is left out, and so
// are the weights of an unweighted mix (every weight 1, as
// ParseSequenceDistribution gives it), which are not percentages.
func (sd SequenceDistribution) String() string {
	unweighted := true
	for _, e := range sd.Entries {
		unweighted = unweighted && e.Weight == 1
	}
	length := func(n, stdev int) string {
		if stdev == 0 {
			return strconv.Itoa(n)
		}
		return fmt.Sprintf("%d|%d", n, stdev)
	}
	parts := make([]string, len(sd.Entries))
	for i, e := range sd.Entries {
		parts[i] = length(e.ISL, e.ISLStdev) + "," + length(e.OSL, e.OSLStdev)
		if !unweighted {
			parts[i] += ":" + strconv.FormatFloat(e.Weight, 'g', -1, 64)
		}
	}
	return strings.Join(parts, ";")
}

// Validate reports every entry that cannot be sampled: an ISL or OSL
// below 1 token, a negative stdev, a weight that is not a positive
// number; and an empty mix. The weights are shares of their sum (a
// mix built in Go need not sum to 100, as the grammar's percentages do).
func (sd SequenceDistribution) Validate() error {
	if len(sd.Entries) == 0 {
		return errors.New(`sequence distribution: empty; write e.g. "256,128:50;1024,512:50"`)
	}
	var errs []error
	for i, e := range sd.Entries {
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Errorf("sequence distribution: entry %d: "+format, append([]any{i + 1}, a...)...))
		}
		if e.ISL < 1 || e.OSL < 1 {
			bad("ISL %d and OSL %d must be at least 1 token", e.ISL, e.OSL)
		}
		if e.ISLStdev < 0 || e.OSLStdev < 0 {
			bad("stdevs %d and %d must not be negative", e.ISLStdev, e.OSLStdev)
		}
		if !(e.Weight > 0) || math.IsInf(e.Weight, 0) {
			bad("weight %v must be a positive number", e.Weight)
		}
	}
	return errors.Join(errs...)
}
