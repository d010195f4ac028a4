package harness

import "github.com/gollm-bench/gollm-bench/metrics"

// Warning codes this package raises (metrics.Warning.Code).
const (
	// WarnTelemetryFailed: a telemetry source (GPU energy, engine metrics)
	// failed to read over a level's window.
	WarnTelemetryFailed metrics.WarningCode = "telemetry_failed"
	// WarnDrained: before a level, the server was still busy with the
	// requests the previous level cut off (Config.SettleProbe).
	WarnDrained metrics.WarningCode = "drained"
	// WarnUnreachable: a level stopped because its first requests all
	// failed to connect (Limits.UnreachableAfter).
	WarnUnreachable metrics.WarningCode = "target_unreachable"
	// WarnRunToRunVariance: a figure of a repeated level moved more from
	// run to run than its within-run interval accounts for; verdicts and
	// the scorecard then use the between-run interval, the wider.
	WarnRunToRunVariance metrics.WarningCode = "run_to_run_variance"
	// WarnPodEnergyFailed: Kepler's pod energy could not be read over a
	// level's window.
	WarnPodEnergyFailed metrics.WarningCode = "pod_energy_failed"
	// WarnLiteLLMFailed: a LiteLLM proxy's counters could not be read over
	// a level's window.
	WarnLiteLLMFailed metrics.WarningCode = "litellm_failed"
	// WarnWarmupErrors: requests of the run-level warm-up phase failed, so
	// the server may not have been warm when the first level started.
	WarnWarmupErrors metrics.WarningCode = "warmup_errors"
)
