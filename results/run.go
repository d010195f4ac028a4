package results

import (
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/enginemetrics"
	"github.com/gollm-bench/gollm-bench/litellm"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/sweep"
	"github.com/gollm-bench/gollm-bench/workload"
)

// SchemaVersion is the version of run.json's layout. It changes when a
// field changes meaning or goes away; adding a field does not change it.
// Version 2 made telemetry flat and typed (telemetry[i].energy is the
// reading itself; version 1 nested it as telemetry[i].energy.energy) and
// verdicts three-valued; Decode reads version 1 too.
const SchemaVersion = 2

// Run is the full result of one `gollm-bench run` or `sweep`: what run.json
// holds (docs/outputs.md#runjson). Everything a report shows is in it, so
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
	// Settings is the effective configuration: every setting of the run
	// or sweep by its flag name (the keys of a configuration file), with
	// the value given or defaulted, so that `gollm-bench run --config
	// run.json --run-id NEW` reruns it with the same seed, load, lengths,
	// limits and SLO. Numbers are JSON numbers, switches booleans, lists
	// lists, durations strings ("5m0s"). Never a secret: the API key is
	// left out; credential headers and URL credentials read REDACTED.
	Settings Settings `json:"settings,omitempty"`
	// SettingsGiven lists, sorted, the settings that were given (on the
	// command line, in a configuration file, or by --like); the others
	// held their defaults.
	SettingsGiven []string `json:"settings_given,omitempty"`
	// Metadata is the scorecard's metadata
	// (docs/outputs.md#the-twelve-mandatory-metadata): the twelve mandatory
	// facts, declared or observed, and the extras.
	Metadata scorecard.Metadata `json:"metadata"`
	// Result holds the levels with their summaries and SLO verdicts, the
	// knee (sweep only) and every warning. For `run` it has no knee.
	Result sweep.Result `json:"result"`
	// WarmupPhase is the run-level warm-up phase sent before the first
	// level (--warmup-phase, or the load --stabilize waits under); nil
	// when there was none. Its requests count in no level's figures.
	WarmupPhase *WarmupPhase `json:"warmup_phase,omitempty"`
	// Timelines holds, per level, output tokens/s and requests in flight
	// over time, for plots.
	Timelines []metrics.Timeline `json:"timelines,omitempty"`
	// Telemetry holds what was read beside the load: GPU energy and engine
	// metrics, per level, in the same windows.
	Telemetry []LevelTelemetry `json:"telemetry,omitempty"`
	// CostRate is the deployment's cost rate the scorecard prices tokens
	// at (--gpu-cost-eur-h, or OpenCost's allocation over the run); nil
	// when unknown.
	CostRate *scorecard.CostRate `json:"cost_rate,omitempty"`
	// Prices are the token prices, EUR per 1M tokens by type, the
	// scorecard prices the knee window's tokens at (--price); nil: none.
	Prices *scorecard.TokenPrices `json:"prices,omitempty"`
	// Reference is the published energy per token the scorecard checks
	// Wh/token against (--reference); nil: none.
	Reference *scorecard.Reference `json:"reference,omitempty"`
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
	MockPrefixCache      int       `json:"mock_prefix_cache_tokens,omitempty"`
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
	// TokenizerSource says where the tokenizer.json came from: "file" (a
	// path), "cache" (a model id in the local Hugging Face cache) or "hub"
	// (a model id downloaded from the Hub for this run); or, with no
	// tokenizer.json, "server" (prompts sized with the server's tokenize
	// endpoint, TokenizerEndpoint) or "words" (sized in whitespace words,
	// the ISL left to the server's usage). Empty in runs before these.
	TokenizerSource string `json:"tokenizer_source,omitempty"`
	// TokenizerModel is the model id (ORG/NAME) the tokenizer was looked
	// up by, for sources "cache" and "hub".
	TokenizerModel string `json:"tokenizer_model,omitempty"`
	// TokenizerCommit is the Hub commit (40 hex digits) of the cache
	// snapshot the tokenizer.json was read from.
	TokenizerCommit string `json:"tokenizer_commit,omitempty"`
	// TokenizerEndpoint is the server's tokenize endpoint that sized the
	// prompts when TokenizerSource is "server", e.g. "llama.cpp POST
	// /tokenize" (openai.TokenizeAPI).
	TokenizerEndpoint string `json:"tokenizer_endpoint,omitempty"`
	// ChatTemplate is the tokenizer_config.json whose chat template was
	// rendered around each /chat/completions prompt, so that the ISL
	// includes it; empty when none was.
	ChatTemplate string `json:"chat_template,omitempty"`
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
	PrecisionMaxS float64 `json:"precision_max_s,omitempty"`
	Repeat        int     `json:"repeat,omitempty"`
	SLO           string  `json:"slo,omitempty"`
	Energy        string  `json:"energy,omitempty"`
	// PUE, IdleBaselineW and GridGCO2KWh are the declared energy factors
	// (--pue, --idle-baseline-w, --grid-gco2-kwh); 0 when not declared.
	PUE           float64           `json:"pue,omitempty"`
	IdleBaselineW float64           `json:"idle_baseline_w,omitempty"`
	GridGCO2KWh   float64           `json:"grid_gco2_kwh,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	// Shard is "i/n" when this run is shard i of a distributed run of n
	// (docs/cli.md#distributed-runs, --shard); its summaries then describe
	// the shard's share of each level. Empty otherwise.
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
	// Like is the result whose load --like reproduced (a peer's file, or
	// another run's folder); "" without --like.
	Like string `json:"like,omitempty"`
	// Sessions declares a multi-turn session workload (--turns,
	// --think-time): each arrival is a session, and Data (or Dataset)
	// gives each turn's new user message and output length; nil for
	// single requests.
	Sessions *workload.SessionSpec `json:"sessions,omitempty"`
	// Arrivals describes a trace replay, a ramp, gamma arrivals or a
	// shared-prefix workload (--trace, --ramp, --burstiness,
	// --shared-prefix); nil when none was used.
	Arrivals *Arrivals `json:"arrivals,omitempty"`
	// WarmupPhase is --warmup-phase as run ("concurrent:4:60s"), and
	// Stabilize --stabilize ("30s,3W,5m0s"); "" when not given.
	WarmupPhase string `json:"warmup_phase,omitempty"`
	Stabilize   string `json:"stabilize,omitempty"`
	// ReceiveClock is the --receive-clock mode: auto, kernel or user.
	// Each level's summary says which clock its latencies used.
	ReceiveClock string `json:"receive_clock,omitempty"`
	// Proxy is the proxy the requests to the target went through (from
	// HTTP_PROXY or HTTPS_PROXY), credentials redacted; "" for none.
	Proxy string `json:"proxy,omitempty"`
}

// sessionSpec is c.Sessions spelt out ("" without sessions).
func (c Config) sessionSpec() string {
	if c.Sessions == nil {
		return ""
	}
	return c.Sessions.String()
}

// LevelTelemetry is what the telemetry sources read over the window of one
// level (or one run of a repeated level). A field is nil when its source
// was off or failed.
type LevelTelemetry struct {
	Level int `json:"level"`
	// Repeat is the run of a repeated level (--repeat); 0 otherwise.
	Repeat int `json:"repeat,omitempty"`
	// Energy is the GPU energy over the window (NVML, DCGM or a
	// Prometheus query): per GPU and in all, J, with its power figures.
	Energy *energy.Reading `json:"energy,omitempty"`
	// Engine is the engine's /metrics counters over the window (tokens,
	// requests, peak KV-cache use and queue).
	Engine *enginemetrics.Delta `json:"engine,omitempty"`
	// Pod is Kepler's energy of the benchmarked pod over the window, and
	// PodGap its GPU part set beside Energy's GPU counters.
	Pod    *energy.PodReading `json:"pod_energy,omitempty"`
	PodGap *energy.PodGap     `json:"pod_gap,omitempty"`
	// LiteLLM is a LiteLLM proxy's accounting of the window: tokens and
	// spend.
	LiteLLM *litellm.Reading `json:"litellm,omitempty"`
}
