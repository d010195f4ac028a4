package cost

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/internal/spelling"
)

// Prices are token prices in EUR per 1M tokens (--price), one per token
// type, with LiteLLM's meanings × 1e6:
//
//	Input       = input_cost_per_token       × 1e6: a prompt token not read from a cache
//	Output      = output_cost_per_token      × 1e6: a generated token
//	CachedInput = cache_read_input_token_cost × 1e6: a prompt token the server read from its prefix cache
//
// Without a CachedInput price (HasCachedInput false) cached prompt tokens
// are charged as Input. A Prices is a plain value.
type Prices struct {
	Input          float64 `json:"input_eur_1m"`
	Output         float64 `json:"output_eur_1m"`
	CachedInput    float64 `json:"cached_input_eur_1m,omitempty"`
	HasCachedInput bool    `json:"-"`
}

// ParsePrices parses token prices: "input=0.50,output=1.50" with an
// optional "cached_input=0.10", EUR per 1M tokens, each a finite number
// >= 0. input and output are required. Every problem is reported at once
// (errors.Join), each naming the prices.
func ParsePrices(s string) (Prices, error) {
	const example = `e.g. "input=0.50,output=1.50,cached_input=0.10" (EUR per 1M tokens)`
	var p Prices
	var errs []error
	seen := map[string]bool{}
	named := map[string]bool{} // given, with a good value or a bad one
	for i, term := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(term, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !ok || k == "" {
			errs = append(errs, fmt.Errorf("prices: term %d %q: want TYPE=EUR_PER_1M, %s", i+1, strings.TrimSpace(term), example))
			continue
		}
		named[k] = true
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			errs = append(errs, fmt.Errorf("prices: %s=%q: want a price >= 0 in EUR per 1M tokens, %s", k, v, example))
			continue
		}
		if seen[k] {
			errs = append(errs, fmt.Errorf("prices: %s is given twice", k))
			continue
		}
		seen[k] = true
		switch k {
		case "input":
			p.Input = f
		case "output":
			p.Output = f
		case "cached_input":
			p.CachedInput, p.HasCachedInput = f, true
		default:
			if near := spelling.Nearest(k, tokenTypes); near != "" {
				named[near] = true // reported here: not "near= is required" too
				errs = append(errs, fmt.Errorf("prices: %q is not a token type (did you mean %s?): the types are input, output and cached_input", k, near))
				continue
			}
			errs = append(errs, fmt.Errorf("prices: %q is not a token type: the types are input, output and cached_input", k))
		}
	}
	for _, k := range []string{"input", "output"} {
		if !named[k] { // a bad value, or a misspelled name, was reported as such
			errs = append(errs, fmt.Errorf("prices %q: %s= is required, %s", s, k, example))
		}
	}
	if len(errs) > 0 {
		return Prices{}, errors.Join(errs...)
	}
	return p, nil
}

// tokenTypes are the token types a price is given for.
var tokenTypes = []string{"input", "output", "cached_input"}

// String returns the prices in the flag's form.
func (p Prices) String() string {
	m := map[string]float64{"input": p.Input, "output": p.Output}
	if p.HasCachedInput {
		m["cached_input"] = p.CachedInput
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + strconv.FormatFloat(m[k], 'f', -1, 64)
	}
	return strings.Join(keys, ",")
}

// cached returns the price of a cached prompt token, EUR per 1M.
func (p Prices) cached() float64 {
	if p.HasCachedInput {
		return p.CachedInput
	}
	return p.Input
}

// TokenCost is what a number of tokens of each type costs at some Prices,
// EUR. Cached is the part of the input tokens read from a cache.
type TokenCost struct {
	Input       float64 // (input − cached) × Input / 1e6
	CachedInput float64 // cached × CachedInput / 1e6
	Output      float64 // output × Output / 1e6
}

// Total is Input + CachedInput + Output, EUR.
func (c TokenCost) Total() float64 { return c.Input + c.CachedInput + c.Output }

// Cost prices input prompt tokens, of which cached came from a cache
// (clamped to [0, input]), and output generated tokens.
func (p Prices) Cost(input, cached, output float64) TokenCost {
	cached = min(max(cached, 0), max(input, 0))
	return TokenCost{
		Input:       (input - cached) * p.Input / 1e6,
		CachedInput: cached * p.cached() / 1e6,
		Output:      output * p.Output / 1e6,
	}
}
