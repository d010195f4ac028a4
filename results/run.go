package results

import (
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// SchemaVersion is the version of run.json's layout. It changes when a
// field changes meaning or goes away; adding a field does not change it.
const SchemaVersion = 1

// Run is the full result of one `gollm-bench run` or `sweep`: what
// run.json holds (SPEC §10). Everything a report shows is in it, so
// `gollm-bench report DIR` re-renders a run offline.
type Run struct {
	SchemaVersion int    `json:"schema_version"`
	RunID         string `json:"run_id"`
	Tool          Tool   `json:"tool"`
	// Command is the exact command line, with secrets (--api-key,
	// Authorization headers) replaced by "REDACTED".
	Command    []string  `json:"command"`
	StartedAt  time.Time `json:"started_at"` // wall-clock time of the run's monotonic zero; record offsets count from it
	FinishedAt time.Time `json:"finished_at"`
	// Partial is true when the run was interrupted (Ctrl-C, a hangup, a
	// dead server, a full disk): the levels present are kept, the last
	// one may be cut.
	Partial bool `json:"partial"`
	// PartialReason says why a partial run stopped, e.g. "interrupted
	// (hangup)" or the write that failed and the space left; "" when
	// the run is complete or the reason is not known.
	PartialReason string `json:"partial_reason,omitempty"`
	Config        Config `json:"config"`
	// Metadata is the scorecard's metadata (SPEC §10): the twelve
	// mandatory facts, declared or observed, and the extras.
	Metadata scorecard.Metadata `json:"metadata"`
	// Result holds the levels with their summaries and SLO verdicts, the
	// knee (sweep only) and every warning. For `run` it has no knee.
	Result sweep.Result `json:"result"`
	// Timelines holds, per level, output tokens/s and requests in flight
	// over time, for plots.
	Timelines []metrics.Timeline `json:"timelines,omitempty"`
	// Telemetry holds what was read beside the load: GPU energy and engine
	// metrics, per level, in the same windows.
	Telemetry []LevelTelemetry `json:"telemetry,omitempty"`
}

// Tool identifies the build that produced a run.
type Tool struct {
	Name    string `json:"name"`    // "gollm-bench"
	Version string `json:"version"` // release or "dev"
	Commit  string `json:"commit,omitempty"`
	Go      string `json:"go,omitempty"` // Go toolchain version
}

// Config is what was asked for, as plain values (no secrets).
type Config struct {
	Command              string    `json:"command"` // "run" or "sweep"
	Target               string    `json:"target"`  // base URL, without credentials
	MockPreset           string    `json:"mock_preset,omitempty"`
	Endpoint             string    `json:"endpoint"` // "completions" or "chat"
	Model                string    `json:"model"`
	Stream               bool      `json:"stream"`
	IgnoreEOS            bool      `json:"ignore_eos"`
	Profile              string    `json:"profile"`
	Rates                []float64 `json:"rates,omitempty"`
	MaxConcurrency       int       `json:"max_concurrency,omitempty"`
	Seed                 uint64    `json:"seed"`
	Data                 string    `json:"data,omitempty"` // GuideLLM --data spelling
	SequenceDistribution string    `json:"sequence_distribution,omitempty"`
	Dataset              string    `json:"dataset,omitempty"`
	Tokenizer            string    `json:"tokenizer,omitempty"` // resolved tokenizer.json path
	TokenizerSHA256      string    `json:"tokenizer_sha256,omitempty"`
	// ISLMeaning says what the ISL figures count: "prompt tokens in the
	// served tokenizer, without the chat template" or the server's usage.
	ISLMeaning      string  `json:"isl_meaning,omitempty"`
	PrefixCache     string  `json:"prefix_cache"`
	Warmup          string  `json:"warmup"`
	Cooldown        string  `json:"cooldown"`
	MaxSeconds      float64 `json:"max_seconds,omitempty"`
	MaxRequests     int64   `json:"max_requests,omitempty"`
	MaxErrors       int64   `json:"max_errors,omitempty"`
	RequestTimeoutS float64 `json:"request_timeout_s"`
	IdleTimeoutS    float64 `json:"idle_timeout_s"`
	MaxLagMs        float64 `json:"max_lag_ms"`
	// Precision is --precision as parsed ("ttft_p99:5%"), Repeat --repeat.
	Precision string `json:"precision,omitempty"`
	// PrecisionMaxS bounds a sweep's levels run to a decision, s.
	PrecisionMaxS float64           `json:"precision_max_s,omitempty"`
	Repeat        int               `json:"repeat,omitempty"`
	SLO           string            `json:"slo,omitempty"`
	Energy        string            `json:"energy,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	// Shard is "i/n" when this run is shard i of a distributed run of n
	// (SPEC §12, --shard); its summaries then describe the shard's share
	// of each level. Empty otherwise.
	Shard string `json:"shard,omitempty"`
	// Shards is the number of shards `gollm-bench merge` combined into
	// this result (0 for a run that was not merged).
	Shards int `json:"shards,omitempty"`
	// UnreachableAfter is --unreachable-after: a level stopped once its
	// first this-many requests all failed to connect (0: never).
	UnreachableAfter int64 `json:"unreachable_after,omitempty"`
	// CACert is the --ca-cert file an https target's certificate was
	// verified against (besides the system's roots).
	CACert string `json:"ca_cert,omitempty"`
	// Insecure is true when --insecure turned TLS certificate
	// verification off.
	Insecure bool `json:"insecure,omitempty"`
	// ReceiveClock is the --receive-clock mode: auto, kernel or user.
	// Each level's summary says which clock its latencies used.
	ReceiveClock string `json:"receive_clock,omitempty"`
}

// LevelTelemetry is what the telemetry sources read during one level's
// window. Fields are nil when the source was off.
type LevelTelemetry struct {
	Level  int `json:"level"`
	Energy any `json:"energy,omitempty"` // an energy reading (see package energy)
	Engine any `json:"engine,omitempty"` // engine /metrics deltas (see package enginemetrics)
}
