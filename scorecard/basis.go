package scorecard

import "fmt"

// CostBasis names the cost per 1M output tokens that `aggregate` and
// `pareto` compare configurations on (--cost-basis).
type CostBasis string

// The cost bases.
const (
	// CostGPUHour is cost.cpm_eur_1m: the deployment's EUR per hour
	// (--gpu-cost-eur-h or OpenCost) over the knee's goodput.
	CostGPUHour CostBasis = "gpu_hour"
	// CostTokens is cost.tokens.cpm_eur_1m: the knee window's tokens at
	// --price, per 1M output tokens.
	CostTokens CostBasis = "tokens"
	// CostLiteLLM is cost.litellm.cpm_1m: a LiteLLM proxy's spend per 1M
	// output tokens, in its own price currency.
	CostLiteLLM CostBasis = "litellm"
)

// ParseCostBasis parses a cost basis's name: gpu_hour (the default, ""),
// tokens or litellm.
func ParseCostBasis(s string) (CostBasis, error) {
	switch b := CostBasis(s); b {
	case "":
		return CostGPUHour, nil
	case CostGPUHour, CostTokens, CostLiteLLM:
		return b, nil
	}
	return "", fmt.Errorf("cost basis %q: want gpu_hour (EUR per hour over goodput), tokens (the token prices) or litellm (the proxy's spend)", s)
}

// Key is the Figure key of the basis's CPM.
func (b CostBasis) Key() string {
	switch b {
	case CostTokens:
		return "token_cpm_eur_1m"
	case CostLiteLLM:
		return "litellm_cpm_1m"
	}
	return "cpm_eur_1m"
}

// Option configures Pareto, WriteParetoText and WriteCSV.
type Option func(*config)

type config struct {
	basis    CostBasis
	basisSet bool
}

func newConfig(opts []Option) config {
	c := config{basis: CostGPUHour}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithCostBasis compares on the CPM of basis b (default CostGPUHour).
// WriteCSV then adds two columns, cost_basis and cpm_1m, holding the
// basis and its figure.
func WithCostBasis(b CostBasis) Option {
	return func(c *config) {
		if b == "" {
			b = CostGPUHour
		}
		c.basis, c.basisSet = b, true
	}
}
