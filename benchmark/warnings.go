package benchmark

import "github.com/gollm-bench/gollm-bench/metrics"

// WarnNonceReused: the run's prompts repeat another run's byte for byte,
// cold prefixes included (Settings.Nonce is not the run id), so a server
// whose prefix cache still holds them serves them warm.
const WarnNonceReused metrics.WarningCode = "prompt_nonce_reused"
