package benchmark

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpproxy"

	"github.com/gollm-bench/gollm-bench/cost"
	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/workload"
)

// Command is what a benchmark does with its levels.
type Command string

const (
	// CommandRun runs the levels given (Profile, Rates), each judged
	// against the SLO, with no knee search.
	CommandRun Command = "run"
	// CommandSweep searches for the knee: a rate grid (or the Rates given),
	// then levels between the last pass and the first failure.
	CommandSweep Command = "sweep"
)

// Profiles returns the names of the load profiles (Settings.Profile) the
// command runs:
// run's one level of each kind, and sweep's knee search over a rate grid
// (sweep) or over the --rate levels given (constant, poisson, concurrent).
func (c Command) Profiles() []string {
	if c == CommandSweep {
		return []string{"sweep", "constant", "poisson", "concurrent"}
	}
	return []string{"synchronous", "concurrent", "throughput", "constant", "poisson"}
}

// Profile is a load profile (profile): how a level sends its requests.
type Profile string

// Load profiles (docs/metrics.md#load-profiles).
const (
	// ProfileSynchronous sends one request at a time (run only).
	ProfileSynchronous Profile = "synchronous"
	// ProfileConcurrent keeps Rates requests in flight, a closed loop.
	ProfileConcurrent Profile = "concurrent"
	// ProfileThroughput sends as fast as the server takes them (run
	// only), with Rates, when given, as the cap on requests in flight.
	ProfileThroughput Profile = "throughput"
	// ProfileConstant sends Rates req/s, evenly spaced, an open loop.
	ProfileConstant Profile = "constant"
	// ProfilePoisson sends Rates req/s with exponential gaps.
	ProfilePoisson Profile = "poisson"
	// ProfileSweep is a sweep's rate grid and knee search (sweep only).
	ProfileSweep Profile = "sweep"
)

// Endpoint is the API the requests call (endpoint).
type Endpoint string

// Endpoints.
const (
	EndpointCompletions Endpoint = "completions" // POST /v1/completions
	EndpointChat        Endpoint = "chat"        // POST /v1/chat/completions
)

// Format is an output of a run besides run.json, scorecard.json and the
// records (format).
type Format string

// Formats.
const (
	FormatConsole Format = "console" // the levels' table, on Options.Stdout
	FormatJSON    Format = "json"    // run.json and scorecard.json (always written with a folder)
	FormatCSV     Format = "csv"     // levels.csv
	FormatHTML    Format = "html"    // report.html
)

// PrefixCache is the declared prefix-cache state of synthetic prompts
// (prefix-cache, docs/metrics.md#isl-and-osl). The zero value is cold:
// every prompt starts with a unique leading token sequence.
type PrefixCache struct {
	// WarmTokens > 0 is warm: every prompt starts with the same
	// WarmTokens tokens, then a unique part; fewer tokens than the
	// prompts' (the flag's warm:N).
	WarmTokens int
}

// String spells p as ParsePrefixCache reads it: cold or warm:N.
func (p PrefixCache) String() string {
	if p.WarmTokens == 0 {
		return string(workload.PrefixCold)
	}
	return string(workload.PrefixWarm) + ":" + strconv.Itoa(p.WarmTokens)
}

// ParsePrefixCache reads a prefix-cache state: cold ("" too) or warm:N,
// N tokens > 0. Its errors quote s and say what to write.
func ParsePrefixCache(s string) (PrefixCache, error) {
	mode, n, hasN := strings.Cut(s, ":")
	switch workload.PrefixCache(mode) {
	case workload.PrefixCold, "":
		if hasN {
			return PrefixCache{}, fmt.Errorf("%q: cold takes no length", s)
		}
		return PrefixCache{}, nil
	case workload.PrefixWarm:
		v, err := strconv.Atoi(n)
		if !hasN || err != nil || v < 1 {
			return PrefixCache{}, fmt.Errorf("%q: warm needs the shared prefix length in tokens, e.g. warm:256", s)
		}
		return PrefixCache{WarmTokens: v}, nil
	}
	return PrefixCache{}, fmt.Errorf("%q: want cold or warm:N", s)
}

// synthetic is p as workload.SyntheticConfig takes it; a negative
// WarmTokens is refused.
func (p PrefixCache) synthetic() (workload.PrefixCache, int, error) {
	switch {
	case p.WarmTokens < 0:
		return "", 0, fmt.Errorf("--prefix-cache %q: warm needs the shared prefix length in tokens, e.g. warm:256", p)
	case p.WarmTokens > 0:
		return workload.PrefixWarm, p.WarmTokens, nil
	}
	return workload.PrefixCold, 0, nil
}

// Settings are everything a benchmark is set up from: the target and its
// requests, the load, the data, the limits, the SLO and the knee search,
// telemetry, cost, metadata and outputs.
//
// The settings are typed values: levels as numbers, an slo.Objective,
// loadgen.Trims, time.Durations, the enumerations' constants (Profile,
// Endpoint, Format, ...), workload's lengths, an http.Header, cost's
// prices. A command line parses its text into them (package cmdline's
// SettingsText, with the parsers of the packages that own the types), so
// that a program sets values and New parses no flag grammar, except in
// the telemetry sources Energy, EngineMetrics, PodEnergy and
// LiteLLMMetrics, which are still the flag's grammar (URLs with filters,
// docs/cli.md) and are parsed by New. Strings that are names, paths or
// URLs (Target, Model, Dataset, Tokenizer, Trace, ...) are not grammars.
//
// Each setting has a key: the name of the `gollm-bench run`/`sweep` flag
// that sets it (the comment of each field gives it), which is also its
// key in a configuration file and in Given. Errors name a setting by its
// field (Settings.MaxDuration), or by its flag (--max-seconds) when
// Options.FlagNames is set, as a CLI does. New checks every setting and
// reports every bad one at once.
//
// The zero value of a field means its default where the comment gives
// one; DefaultSettings fills in the defaults a flag shows.
type Settings struct {
	Command Command

	// Target and requests.
	Target   string   // target: base URL; "" starts the built-in mock in-process
	Model    string   // model: "" asks GET /v1/models for its first id
	Endpoint Endpoint // endpoint: EndpointCompletions or EndpointChat
	APIKey   string   // api-key: bearer token, never written to an output
	// ProxyEnv is the environment's proxy settings (HTTP_PROXY,
	// HTTPS_PROXY, NO_PROXY, read as Go's http.ProxyFromEnvironment does);
	// the zero value uses no proxy. Credentials in it are never written.
	ProxyEnv httpproxy.Config
	// EnvAPIKey is the key the environment offers ($OPENAI_API_KEY): sent
	// only when no more explicit credential is given (an Authorization
	// --header, credentials in --target, --api-key), and then said once
	// on the log. Never written to an output.
	EnvAPIKey string
	// Headers (header) are extra HTTP headers sent with every request,
	// each value of each name (an Authorization header is the credential
	// sent, see EnvAPIKey); never written to an output.
	Headers http.Header
	// ExtraBody (extra-body) is a JSON object merged into every request
	// body, last, so that its members win over the defaults (nil: none),
	// e.g. json.RawMessage(`{"top_p":0.9}`); a program holding a Go value
	// marshals it (json.Marshal).
	ExtraBody   json.RawMessage
	NoStream    bool    // no-stream: non-streaming requests (no TTFT, no ITL)
	NoIgnoreEOS bool    // no-ignore-eos: do not send ignore_eos
	MinTokens   int     // min-tokens: min_tokens sent when > 0 (a vLLM extension)
	Temperature float64 // temperature
	CACert      string  // ca-cert: PEM file of the CA that signed the target's certificate
	Insecure    bool    // insecure: no TLS certificate verification
	// ReceiveClock is the clock of each received chunk (receive-clock):
	// openai.ReceiveKernel (the kernel's receive time, Linux),
	// ReceiveUser (when the client read it), or ReceiveAuto ("" too:
	// kernel where available).
	ReceiveClock openai.ReceiveClockMode

	// Load.
	Profile Profile // profile: ProfileSynchronous, ProfileConcurrent, ..., ProfileSweep (Command.Profiles)
	// Rates (rate) are the levels: concurrencies, whole numbers, for the
	// concurrent and throughput profiles; req/s for constant and poisson.
	// Each > 0.
	Rates          []float64
	MaxConcurrency int    // max-concurrency: requests in flight at most in rate modes (0: no cap)
	Seed           uint64 // seed: of prompts, lengths and arrivals
	// Nonce (nonce) makes the cold prefixes, the unique leading tokens of
	// every prompt, the run's own: "" is the run id, so that no two runs
	// share a cacheable prefix. A rerun that must send the same prompts
	// byte for byte gives the earlier run's (run.json's settings record it).
	Nonce         string
	GridLevels    int     // levels: a rate sweep's grid size, synchronous and throughput included
	KneeTolerance float64 // knee-tolerance: bisection stops when the bracket is within this fraction
	MaxLevels     int     // max-levels: level budget of a sweep (0: the grid plus the bisection)
	EarlyStop     bool    // early-stop: stop after two levels that fail by a wide margin

	// Data.
	// Data (data) is the synthetic prompts' lengths, tokens (nil:
	// DefaultData; workload.ParseData reads the flag's
	// prompt_tokens=256,output_tokens=64). With Dataset only OutputTokens
	// is read, the output length of the entries that give none, and
	// PromptTokens may be 0.
	Data *workload.Data
	// SequenceDistribution (sequence-distribution) is a weighted mix of
	// ISL/OSL pairs in its place (nil: none; the weights are shares of
	// their sum; workload.ParseSequenceDistribution reads the flag's
	// "64|10,32|8:70;256|40,128|20:30").
	SequenceDistribution *workload.SequenceDistribution
	Dataset              string      // dataset: a prompts file (JSONL or ShareGPT JSON)
	Tokenizer            string      // tokenizer: the served model's tokenizer.json, its folder, a model id (cache, else Hub), or TokenizerAuto ("" too), TokenizerServer, TokenizerWords
	PrefixCache          PrefixCache // prefix-cache: the zero value is cold
	// Turns (turns) makes each arrival a multi-turn chat session of this
	// many turns (nil: single requests; the zero TurnCount: every user
	// turn of a ShareGPT Dataset's conversations; workload.ParseTurnCount
	// reads the flag's N or uniform:MIN:MAX, and the command line's
	// "dataset" is the zero TurnCount).
	Turns        *workload.TurnCount
	ThinkTime    workload.ThinkTime   // think-time: with Turns, the pause before each next turn (workload.ParseThinkTime reads 2s, uniform:MIN:MAX, exponential:MEAN; zero: none)
	MaxContext   int                  // max-context: with Turns, the model's context window, tokens (0: not checked)
	Trace        string               // trace: replay this request trace's arrival times and lengths (run only)
	TraceFormat  workload.TraceFormat // trace-format: workload.TraceMooncake, TraceAzure or TraceBurstGPT ("": detected)
	TraceSpeedup float64              // trace-speedup: play the trace this many times faster (0: 1)
	TraceWindow  workload.TraceWindow // trace-window: the part of the trace to replay, times since its first request (zero: all of it)
	TraceFailed  workload.FailedRows  // trace-failed: lines describing failed requests (0 output tokens): FailedReplay ("" too), FailedSkip or FailedRefuse
	// Ramp (ramp) raises the rate within each level, run only (nil: no
	// ramp; loadgen.ParseRamp reads the flag's linear:1->50:60s).
	Ramp       *loadgen.Ramp
	Burstiness float64 // burstiness: gamma shape K of the gaps (0: none; implies profile poisson)
	// SharedPrefix (shared-prefix) is groups of prompts sharing a prefix
	// (nil: none; workload.ParseSharedPrefix reads the flag's
	// groups=G,prompts=P,prefix=S,question=Q,output=O).
	SharedPrefix *workload.SharedPrefixSpec

	// Limits and windows.
	// Warmup (warmup) is trimmed from each level's start, and Cooldown
	// (cooldown) from its end: a duration, a request count or a share of
	// the level (loadgen.ParseTrim reads the flags' "30s", "100", "10%").
	Warmup, Cooldown loadgen.Trim
	// WarmupPhase (warmup-phase) is load sent before the first level,
	// counted in no level (zero: none; harness.ParseWarmupPhase reads the
	// flag's PROFILE:LEVEL:DURATION, e.g. concurrent:4:60s). Its Gate is
	// Stabilize's: set that.
	WarmupPhase      harness.WarmupPhase
	MaxDuration      time.Duration // max-seconds: level length (0: 30s, or 8s for a sweep of the mock, or 120s for a run with Precision)
	MaxRequests      int64         // max-requests: requests per level (0: no limit)
	MaxErrors        int64         // max-errors: stop a level after this many failures (0: never)
	UnreachableAfter int64         // unreachable-after: stop a level whose first N requests fail to connect (0: never)
	RequestTimeout   time.Duration // request-timeout: limit on one request (0: none)
	IdleTimeout      time.Duration // idle-timeout: longest gap between stream bytes (0: none)
	MaxLineBytes     int           // max-line-bytes: longest stream line, bytes (openai.WithMaxLineBytes)
	DrainTimeout     time.Duration // drain-timeout: how long requests sent in the window may finish after it
	MaxLag           time.Duration // max-lag: scheduling-lag p99 above which a level is client-limited (0: from the SLO)

	// SLO and statistics.
	// SLO (slo) is the service-level objective each level is judged
	// against (slo.Parse reads the flag's ttft_p99<=500ms,itl_p95<=50ms);
	// the zero Objective judges nothing.
	SLO slo.Objective
	// Precision (precision) is how long each level runs: until every SLO
	// term is decided (Decide), until the intervals of Targets are that
	// tight too, or its plain length (the zero slo.Precision, "quick";
	// slo.ParsePrecision reads the flag's decide, quick or
	// ttft_p99:5%,itl_p95:3%). nil: decide for a sweep with an SLO, else
	// quick.
	Precision            *slo.Precision
	PrecisionMaxDuration time.Duration // precision-max-seconds: a sweep's bound on a level run to a decision (0: 10 × MaxDuration)
	Repeat               int           // repeat: runs of each level, pooled (0 or 1: once; New sets 0 to 1)

	// Energy, cost and carbon.
	Energy            string        // energy: auto, nvml, dcgm=URL, prometheus=URL or none
	EnergyFilter      energy.Filter // energy-filter: labels a GPU must carry, e.g. {"Hostname": "node-1"} (energy.ParseFilter reads Hostname=node-1)
	EngineMetrics     string        // engine-metrics: the engine's /metrics URL, or "target"
	GPUCostEURh       float64       // gpu-cost-eur-h: the deployment's cost, EUR/h
	OpenCost          string        // opencost: OpenCost base URL
	OpenCostNamespace string        // opencost-namespace: the namespace whose allocation is the cost
	Currency          string        // currency: of OpenCost figures
	PUE               float64       // pue: data-centre PUE (0: none declared)
	GridGCO2KWh       float64       // grid-gco2-kwh: grid carbon intensity, gCO2/kWh
	IdleBaselineW     float64       // idle-baseline-w: idle power subtracted, W
	// Stabilize (stabilize) holds the warm-up phase until GPU power
	// settles under its load (nil: no gate; energy.ParseStabilization
	// reads the flag's WINDOW,BAND[,TIMEOUT], e.g. 30s,3W,5m).
	Stabilize      *energy.Stabilization
	PodEnergy      string // pod-energy: Kepler's energy of the benchmarked pod (prometheus=URL,namespace=NS... or kepler=URL)
	LiteLLMMetrics string // litellm-metrics: a LiteLLM proxy's counters: target, a URL or prometheus=URL, then filters
	// Price (price) is the token prices by type, EUR per 1M tokens (nil:
	// none; cost.ParsePrices reads the flag's
	// input=..,output=..[,cached_input=..]).
	Price *cost.Prices
	// Reference (reference) is a published Wh/token to check the run's
	// against, with its source (nil: none; scorecard.ParseReference reads
	// the flag's text, which the command line also reads from @FILE).
	Reference *scorecard.Reference

	// Metadata.
	Engine         string            // engine: engine and version
	ModelRevision  string            // model-revision
	ModelPrecision string            // model-precision: the model's numeric precision, e.g. fp8
	Hardware       string            // hardware ("": from NVML or DCGM)
	RunID          string            // run-id ("": the UTC start time, with a suffix if taken)
	Labels         map[string]string // label: metadata labels, key to value

	// Outputs.
	// OutputDir (output-dir) is the parent of the run's folder
	// OUTPUT-DIR/RUN-ID/, where run.json, scorecard.json, the records and
	// the reports are written. "" writes nothing: no folder, no records
	// file; the run's figures are in Run's Outcome, and the console table
	// on Options.Stdout when Formats has "console". DefaultSettings gives
	// DefaultOutputDir, the command line's default.
	OutputDir  string
	Formats    []Format // format: FormatConsole, FormatJSON, FormatCSV, FormatHTML
	Overwrite  bool     // overwrite: replace an existing results folder
	Gzip       bool     // gzip: write requests.jsonl.gz
	MockPreset string   // mock-preset: the in-process mock's preset when Target is ""
	// MockPrefixCache (mock-prefix-cache) is the in-process mock's prefix
	// cache capacity, tokens; it turns the cache on (16-token blocks)
	// when the preset has none. 0: the preset's (demo-cache: 4,096
	// blocks of 16 tokens, 65,536 tokens).
	MockPrefixCache int

	// Distributed runs and peers.
	Shard loadgen.Shard // shard: this process's share of a distributed run, run only (zero: the whole run; loadgen.ParseShard reads the flag's I/N)
	Like  string        // like: the peer result whose load was reproduced (recorded)
	// ModelFromLike is set when Model came from the Like file, not from
	// the user: New then asks the target's GET /v1/models, and refuses
	// the run (an *InputError naming the file's model, the served ones
	// and --model) when the server lists models and not that one. A
	// server that does not answer /v1/models is not refused.
	ModelFromLike bool `json:"-"`

	// Given is a command line's: the keys of the settings given
	// explicitly (the flags the user gave, cmdline.Parser.Given), since a
	// flag given its default value is still given. Settings that imply
	// others (a trace sets the profile, rate and limits; a ramp the level
	// length; burstiness the profile) set only those not given, and refuse
	// those that clash. A library caller leaves it nil: a setting then
	// counts as given when its value differs from DefaultSettings(Command)'s
	// (an empty list as nil), so that starting from DefaultSettings and
	// setting fields is what giving their flags is.
	Given map[string]bool
}

// DefaultSettings returns the settings of `gollm-bench <command>` with
// no flag given: the defaults the flags show.
func DefaultSettings(command Command) Settings {
	s := Settings{
		Command:          command,
		Endpoint:         EndpointCompletions,
		ReceiveClock:     openai.ReceiveAuto,
		Profile:          ProfileConcurrent,
		Seed:             42,
		GridLevels:       10,
		KneeTolerance:    0.05,
		MaxLevels:        16,
		Warmup:           loadgen.Trim{Fraction: 0.1},
		Cooldown:         loadgen.Trim{Fraction: 0.1},
		UnreachableAfter: DefaultUnreachableAfter,
		RequestTimeout:   5 * time.Minute,
		IdleTimeout:      60 * time.Second,
		MaxLineBytes:     openai.DefaultMaxLineBytes,
		DrainTimeout:     30 * time.Second,
		Repeat:           1,
		Energy:           "auto",
		Currency:         "EUR",
		OutputDir:        DefaultOutputDir,
		Formats:          []Format{FormatConsole, FormatJSON, FormatCSV, FormatHTML},
		MockPreset:       "demo",
		TraceSpeedup:     1,
	}
	if command == CommandSweep {
		s.Profile = ProfileSweep
	}
	return s
}

// DefaultOutputDir is the default OutputDir: a folder of its own in the
// working directory, named so that it is not mistaken for (or written
// into) the results package's folder of gollm-bench's source tree.
const DefaultOutputDir = "gollm-bench-results"

// DefaultUnreachableAfter is the default UnreachableAfter: enough requests
// that a refused connection is not a one-off, few enough that a dead target
// costs a fraction of a second per level.
const DefaultUnreachableAfter = 10

// DefaultData is the synthetic lengths used when Settings.Data,
// SequenceDistribution and Dataset are all unset, as --data spells them.
const DefaultData = "prompt_tokens=256,output_tokens=64"
