package scorecard

import (
	"maps"
	"net/url"
	"strconv"
	"time"

	"github.com/gollm-bench/gollm-bench/machine"
)

// Metadata says what was measured, on what, and how
// (docs/outputs.md#the-twelve-mandatory-metadata). Twelve of its facts are
// mandatory (MandatoryFields lists them with their JSON keys); the rest are
// extras that help a reader compare rows.
//
// A missing string is "", a missing count is 0 (no mandatory count can
// legitimately be 0: a prompt has at least one token, a sweep runs at least
// one request at a time). Missing fields are omitted from JSON. Metadata is a
// plain value: safe for concurrent reads.
type Metadata struct {
	// Mandatory (docs/outputs.md#the-twelve-mandatory-metadata), in
	// MandatoryFields order.

	// Engine is the serving engine and its version, e.g. "vllm-0.9.1" (--engine).
	Engine string `json:"engine,omitempty"`
	// ModelRevision is the model's revision: a Hugging Face commit or tag (--model-revision).
	ModelRevision string `json:"model_revision,omitempty"`
	// Precision is the weights' (and KV cache's, if it differs) precision, e.g. "fp8" (--model-precision).
	Precision string `json:"precision,omitempty"`
	// Tokenizer names the tokenizer used to count and build prompts: a path or HF id (--tokenizer).
	Tokenizer string `json:"tokenizer,omitempty"`
	// TokenizerSHA256 is the hex SHA-256 of the tokenizer.json bytes (auto-filled).
	TokenizerSHA256 string `json:"tokenizer_sha256,omitempty"`
	// ISLTokens is the requested input sequence length, tokens (the mean of a
	// mix for --sequence-distribution; DataSpec holds the full spec).
	ISLTokens int `json:"isl_tokens,omitempty"`
	// OSLTokens is the requested output sequence length, tokens (mean of a mix).
	OSLTokens int `json:"osl_tokens,omitempty"`
	// Hardware describes the accelerators, e.g. "4xH100-SXM-80GB" (--hardware, or NVML/DCGM).
	Hardware string `json:"hardware,omitempty"`
	// MaxConcurrencyTested is the highest number of requests in flight the
	// sweep reached (closed loop: the largest N; open loop: the peak observed).
	MaxConcurrencyTested int `json:"max_concurrency_tested,omitempty"`
	// ToolVersion is gollm-bench's version (linker stamp), e.g. "v0.3.0".
	ToolVersion string `json:"tool_version,omitempty"`
	// ToolCommit is the git commit gollm-bench was built from.
	ToolCommit string `json:"tool_commit,omitempty"`
	// SLO is the service-level objective as given to --slo, e.g.
	// "ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%".
	SLO string `json:"slo,omitempty"`
	// Warmup is the warm-up: the per-level trim as given to --warmup (a
	// duration "30s", a request count "100" or a share "10%"), and, when
	// the run had one, its run-level warm-up phase after it, e.g. "10% per
	// level; run-level phase concurrent:4:60s ran 62.3 s, thermal gate
	// 30s,3W,5m0s passed (first held after 41.0 s)". WarmupPhase holds
	// the phase's facts one by one.
	Warmup string `json:"warmup,omitempty"`
	// RunID identifies the run; results live in OUTPUT-DIR/<run-id>/ (--run-id).
	RunID string `json:"run_id,omitempty"`

	// Extras.

	// Model is the served model name (--model, or the first id of GET /v1/models).
	Model string `json:"model,omitempty"`
	// Endpoint is "completions" or "chat".
	Endpoint string `json:"endpoint,omitempty"`
	// LoadMode is the pacing of the knee level: a loadgen.Mode
	// ("synchronous", "concurrent", "throughput", "constant", "poisson").
	LoadMode string `json:"load_mode,omitempty"`
	// Profile is the --profile given, e.g. "sweep".
	Profile string `json:"profile,omitempty"`
	// DataSpec is the --data, --sequence-distribution or --dataset value.
	DataSpec string `json:"data_spec,omitempty"`
	// ISLBasis says what ISLTokens counts: "prompt" (the prompt text in the
	// served tokenizer) or "chat_template" (server usage, template included).
	ISLBasis string `json:"isl_basis,omitempty"`
	// PrefixCache is "cold" or "warm:N" (--prefix-cache), or "dataset" for
	// a --dataset's prompts, which are sent unchanged; "sessions:" and one
	// of those for multi-turn sessions, whose later turns reuse the
	// conversation as their prefix; "trace" or "shared:GxS" for a Mooncake
	// trace or a shared-prefix workload (docs/workloads.md).
	PrefixCache string `json:"prefix_cache,omitempty"`
	// Seed seeds everything random; nil when unknown (0 is a valid seed).
	Seed *uint64 `json:"seed,omitempty"`
	// GPUCount is the number of GPUs serving the model; 0 when unknown.
	GPUCount int `json:"gpu_count,omitempty"`
	// Labels are the --label K=V pairs.
	Labels map[string]string `json:"labels,omitempty"`
	// TargetURL is the server's base URL without credentials, query or
	// fragment (see RedactURL).
	TargetURL string `json:"target_url,omitempty"`
	// StartedAt is the run's absolute start time (UTC).
	StartedAt time.Time `json:"started_at,omitzero"`
	// InsecureTLS is true when the run did not verify the target's TLS
	// certificate (--insecure): who answered was not checked.
	InsecureTLS bool `json:"insecure_tls,omitempty"`
	// Client is the machine that generated the load and its measured round
	// trip to the target; nil when not recorded.
	Client *machine.Info `json:"client,omitempty"`
	// WarmupPhase is the run-level warm-up phase sent before the first
	// level (--warmup-phase, --stabilize); nil when there was none.
	WarmupPhase *WarmupPhase `json:"warmup_phase,omitempty"`
}

// WarmupPhase is the run-level warm-up phase as the scorecard states it.
type WarmupPhase struct {
	// Profile is its load's mode: "concurrent", "constant" or "poisson".
	Profile string `json:"profile"`
	// Level is its concurrency (concurrent) or rate, req/s.
	Level float64 `json:"level"`
	// DurationS is how long it ran, s.
	DurationS float64 `json:"duration_s"`
	// Gate is the thermal gate's outcome: "passed", "not_passed" (it timed
	// out: the GPUs may still have been warming), or "none".
	Gate string `json:"gate"`
}

// Field describes one mandatory metadata fact
// (docs/outputs.md#the-twelve-mandatory-metadata).
type Field struct {
	// Key is the JSON key in Metadata, as Missing reports it.
	Key string
	// Setting is the key of the benchmark setting that declares it (the
	// name of the gollm-bench flag, without its dashes, and its key in a
	// configuration file), or "" when the tool fills it in itself
	// (tokenizer hash, tool version and commit).
	Setting string
	// Description says what it holds.
	Description string
}

// MandatoryFields returns the twelve mandatory metadata
// (docs/outputs.md#the-twelve-mandatory-metadata) in a fixed order. Two of
// them are recorded as two keys each: the tokenizer with the SHA-256 of its
// tokenizer.json, and the tool version with its git commit; ISL and OSL are
// both declared by the data setting. A fresh slice is returned on every call.
func MandatoryFields() []Field {
	return []Field{
		{"engine", "engine", "engine version, e.g. vllm-0.9.1"},
		{"model_revision", "model-revision", "model revision (commit or tag)"},
		{"precision", "model-precision", "precision, e.g. fp8"},
		{"tokenizer", "tokenizer", "tokenizer (path or Hugging Face id)"},
		{"tokenizer_sha256", "", "SHA-256 of tokenizer.json (auto-filled from the tokenizer)"},
		{"isl_tokens", "data", "input sequence length, tokens"},
		{"osl_tokens", "data", "output sequence length, tokens"},
		{"hardware", "hardware", "hardware, e.g. 4xH100-SXM-80GB"},
		{"max_concurrency_tested", "max-concurrency", "highest concurrency tested"},
		{"tool_version", "", "gollm-bench version (auto-filled)"},
		{"tool_commit", "", "gollm-bench git commit (auto-filled)"},
		{"slo", "slo", "service-level objective"},
		{"warmup", "warmup", "excluded warmup"},
		{"run_id", "run-id", "run id"},
	}
}

// Missing returns the JSON keys of the mandatory fields (MandatoryFields)
// that m lacks, in MandatoryFields order; nil when m is complete. A
// scorecard whose metadata misses any of them is an anecdote, not data.
func (m Metadata) Missing() []string {
	var missing []string
	for _, f := range MandatoryFields() {
		if m.Value(f.Key) == "" {
			missing = append(missing, f.Key)
		}
	}
	return missing
}

// Value returns the mandatory field with JSON key key as text, "" when it
// is missing (a count of 0 is missing) or key is not a mandatory field.
func (m Metadata) Value(key string) string {
	count := func(n int) string {
		if n <= 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	switch key {
	case "engine":
		return m.Engine
	case "model_revision":
		return m.ModelRevision
	case "precision":
		return m.Precision
	case "tokenizer":
		return m.Tokenizer
	case "tokenizer_sha256":
		return m.TokenizerSHA256
	case "isl_tokens":
		return count(m.ISLTokens)
	case "osl_tokens":
		return count(m.OSLTokens)
	case "hardware":
		return m.Hardware
	case "max_concurrency_tested":
		return count(m.MaxConcurrencyTested)
	case "tool_version":
		return m.ToolVersion
	case "tool_commit":
		return m.ToolCommit
	case "slo":
		return m.SLO
	case "warmup":
		return m.Warmup
	case "run_id":
		return m.RunID
	}
	return ""
}

// Status is a scorecard's standing (docs/outputs.md#scorecardjson).
type Status string

// Statuses.
const (
	// StatusAuditable: every mandatory metadatum is present.
	StatusAuditable Status = "auditable"
	// StatusAnecdote: at least one is missing (listed in Scorecard.Missing).
	StatusAnecdote Status = "anecdote"
)

// Status returns StatusAuditable when m has every mandatory field, else
// StatusAnecdote.
func (m Metadata) Status() Status {
	if len(m.Missing()) == 0 {
		return StatusAuditable
	}
	return StatusAnecdote
}

// RedactURL returns raw without user info, query and fragment, so that no
// credential (user:password@, ?api_key=) reaches an output. A string that
// does not parse as a URL yields "" rather than risk leaking it.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.User = nil
	u.RawQuery = ""
	u.ForceQuery = false
	u.Fragment = ""
	u.RawFragment = ""
	return u.String()
}

// clone returns m sharing no memory with m (labels, seed).
func (m Metadata) clone() Metadata {
	m.Labels = maps.Clone(m.Labels)
	if m.Seed != nil {
		v := *m.Seed
		m.Seed = &v
	}
	return m
}
