package compare

import "github.com/gollm-bench/gollm-bench/metrics"

// Warning codes this package raises (metrics.Warning.Code).
const (
	// WarnPartialInput: a compared run is partial (interrupted): its
	// levels are what was measured before it stopped.
	WarnPartialInput metrics.WarningCode = "partial_input"
	// WarnSameInput: A and B are one file or folder, so every delta is
	// zero by construction.
	WarnSameInput metrics.WarningCode = "same_input"
)
