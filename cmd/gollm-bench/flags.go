package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// benchFlags are the flags shared by `run` and `sweep` (SPEC §2). Names
// follow GuideLLM and AIPerf where they have one.
type benchFlags struct {
	// Target and requests.
	target      string
	model       string
	endpoint    string
	apiKey      string
	headers     []string
	extraBody   string
	noStream    bool
	noIgnoreEOS bool
	minTokens   int
	temperature float64
	caCert      string // --ca-cert: PEM file of the CA that signed an https target's certificate
	insecure    bool   // --insecure: no TLS certificate verification
	rxClock     string // --receive-clock: auto, kernel or user

	// Load.
	profile        string
	rates          []string
	maxConcurrency int
	seed           uint64
	levels         int

	// Data.
	data                 string
	sequenceDistribution string
	dataset              string
	tokenizer            string
	prefixCache          string

	// Limits and windows.
	warmup         string
	cooldown       string
	maxSeconds     float64
	maxRequests    int64
	maxErrors      int64
	unreachable    int64 // --unreachable-after
	requestTimeout time.Duration
	idleTimeout    time.Duration
	maxLag         time.Duration
	drain          time.Duration

	// SLO, knee and statistics.
	slo           string
	precision     string
	precisionMax  float64
	repeat        int
	kneeTolerance float64
	maxLevels     int
	minSamples    int
	earlyStop     bool

	// Energy, cost, carbon.
	energy        string
	energyFilter  string
	engineMetrics string
	gpuCostEURh   float64
	openCost      string
	openCostNS    string
	currency      string
	pue           float64
	gridGCO2kWh   float64
	idleBaselineW float64
	stabilize     string

	// Metadata.
	engine         string
	modelRevision  string
	modelPrecision string
	hardware       string
	runID          string
	labels         []string

	// Output.
	outputDir  string
	formats    []string
	overwrite  bool
	gzip       bool
	quiet      bool
	mockPreset string

	// Distributed runs (SPEC §12).
	shard string

	changed map[string]bool // flags given on the command line
}

func (f *benchFlags) register(fs *pflag.FlagSet, sweep bool) {
	fs.StringVar(&f.target, "target", "", "base URL of the server, e.g. http://127.0.0.1:8000 (default: start the built-in mock in-process)")
	fs.StringVar(&f.model, "model", "", "model name (default: the first id of GET /v1/models)")
	fs.StringVar(&f.endpoint, "endpoint", "completions", "API: completions (/v1/completions) or chat (/v1/chat/completions)")
	fs.StringVar(&f.apiKey, "api-key", "", "bearer token (default $OPENAI_API_KEY); never written to outputs")
	fs.StringArrayVar(&f.headers, "header", nil, "extra HTTP header K=V (repeatable)")
	fs.StringVar(&f.extraBody, "extra-body", "", "JSON object merged into every request body; it wins over every default")
	fs.BoolVar(&f.noStream, "no-stream", false, "send non-streaming requests (TTFT is then not reported)")
	fs.BoolVar(&f.noIgnoreEOS, "no-ignore-eos", false, "do not send ignore_eos (some chat templates, e.g. gpt-oss Harmony, break with it)")
	fs.IntVar(&f.minTokens, "min-tokens", 0, "send min_tokens (a vLLM extension) when > 0")
	fs.Float64Var(&f.temperature, "temperature", 0, "sampling temperature")
	fs.StringVar(&f.caCert, "ca-cert", "", "PEM file of the CA that signed an https --target's certificate (added to the system's roots)")
	fs.BoolVar(&f.insecure, "insecure", false, "do not verify the https --target's TLS certificate (a test server only; recorded in run.json and the scorecard)")
	fs.StringVar(&f.rxClock, "receive-clock", "auto", "clock of each received chunk: kernel (the kernel's receive time, Linux), user (when the client read it), or auto (kernel where available); run.json says which each level used")

	defProfile := "concurrent"
	if sweep {
		defProfile = "sweep"
	}
	fs.StringVar(&f.profile, "profile", defProfile, "load profile: synchronous|concurrent|throughput|constant|poisson|sweep")
	fs.StringSliceVar(&f.rates, "rate", nil, "levels: concurrency for concurrent/throughput, req/s for constant/poisson; a list, e.g. 1,2,4,8")
	fs.IntVar(&f.maxConcurrency, "max-concurrency", 0, "cap on requests in flight for rate modes (arrivals beyond it queue, counted as scheduling lag)")
	fs.Uint64Var(&f.seed, "seed", 42, "seed of everything random (prompts, lengths, Poisson arrivals); recorded")
	if sweep {
		fs.IntVar(&f.levels, "levels", 10, "grid levels of a rate sweep: synchronous, throughput, then levels-2 rates between them (GuideLLM)")
		fs.Float64Var(&f.kneeTolerance, "knee-tolerance", 0.05, "stop bisecting when the knee bracket is within this fraction")
		fs.IntVar(&f.maxLevels, "max-levels", 16, "level budget, grid and bisection together")
		fs.BoolVar(&f.earlyStop, "early-stop", false, "stop once two consecutive levels fail by a wide margin (declared in the output)")
	}

	fs.StringVar(&f.data, "data", "prompt_tokens=256,output_tokens=64", "synthetic lengths, GuideLLM spelling: prompt_tokens=N,output_tokens=M[,prompt_tokens_stdev=..,_min=..,_max=..]")
	fs.StringVar(&f.sequenceDistribution, "sequence-distribution", "", `AIPerf length mix "ISL|sd,OSL|sd:weight;...", e.g. "64|10,32|8:70;256|40,128|20:30"`)
	fs.StringVar(&f.dataset, "dataset", "", "prompts file: JSONL (one prompt per line, or {\"prompt\",\"output_tokens\"}) or ShareGPT JSON")
	fs.StringVar(&f.tokenizer, "tokenizer", "", "served model's tokenizer: tokenizer.json, a folder holding one, or a model id in the local HF cache")
	fs.StringVar(&f.prefixCache, "prefix-cache", "cold", "cold (a unique leading token sequence per request) or warm:N (a shared N-token prefix; N below the ISL: prompt_tokens, or the smallest ISL of --sequence-distribution)")

	fs.StringVar(&f.warmup, "warmup", "10%", "excluded from the window at each level's start: a duration (30s), a request count (100) or a share of the level (10%)")
	fs.StringVar(&f.cooldown, "cooldown", "10%", "excluded at each level's end: a duration, a request count or a share")
	fs.Float64Var(&f.maxSeconds, "max-seconds", 0, "length of each level, s (default 30 without --max-requests)")
	fs.Int64Var(&f.maxRequests, "max-requests", 0, "requests per level")
	fs.Int64Var(&f.maxErrors, "max-errors", 0, "stop a level once this many requests failed (0: never)")
	fs.Int64Var(&f.unreachable, "unreachable-after", defaultUnreachableAfter, "stop a level when its first N requests all fail to connect (refused, unknown host, TLS failure); 0: never")
	fs.DurationVar(&f.requestTimeout, "request-timeout", 5*time.Minute, "limit on one whole request")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 60*time.Second, "longest gap allowed between stream bytes")
	fs.DurationVar(&f.drain, "drain-timeout", 30*time.Second, "after a level's --max-seconds, let requests in flight finish for up to this long, so those sent in the window are measured to their end (0: cut them off as incomplete)")
	fs.DurationVar(&f.maxLag, "max-lag", 0, "scheduling-lag p99 above which a level is client-limited (default 5% of the tightest SLO latency, or 10ms)")

	fs.StringVar(&f.slo, "slo", "", `service-level objective, e.g. "ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%"`)
	fs.StringVar(&f.precision, "precision", "", `run each level until these 95% intervals are this tight relative to their estimate and every SLO term is decided, e.g. "ttft_p99:5%,itl_p95:3%" (run: bounded by --max-seconds, default 120s with it, or --max-requests; sweep: the grid runs --max-seconds and the levels that decide the knee run up to --precision-max-seconds)`)
	if sweep {
		fs.Float64Var(&f.precisionMax, "precision-max-seconds", 0, "with --precision, the longest a level that decides the knee may run, s (default 10 × --max-seconds; the grid runs --max-seconds)")
	}
	fs.IntVar(&f.repeat, "repeat", 1, "run each level this many times (seeds derived from --seed) and pool them, with the spread between runs")
	fs.IntVar(&f.minSamples, "min-samples", 0, "no effect: replaced by the confidence intervals every figure carries (see --precision)")
	_ = fs.MarkDeprecated("min-samples", "every figure now carries a 95% confidence interval and verdicts say when more requests are needed; use --precision to extend levels until decided")

	fs.StringVar(&f.energy, "energy", "auto", "GPU energy source: auto|nvml|dcgm=URL|prometheus=URL|none")
	fs.StringVar(&f.energyFilter, "energy-filter", "", "keep GPUs whose labels match, e.g. Hostname=gpu-node-01,namespace=inference")
	fs.StringVar(&f.engineMetrics, "engine-metrics", "", "scrape the engine's Prometheus /metrics (vLLM or SGLang) at window start and end: a URL, or 'target'")
	fs.Float64Var(&f.gpuCostEURh, "gpu-cost-eur-h", 0, "cost of the deployment, EUR per hour")
	fs.StringVar(&f.openCost, "opencost", "", "OpenCost base URL for EUR/h over the window (with --opencost-namespace)")
	fs.StringVar(&f.openCostNS, "opencost-namespace", "", "namespace whose OpenCost allocation is the deployment's cost")
	fs.StringVar(&f.currency, "currency", "EUR", "currency of OpenCost figures (OpenCost carries none)")
	fs.Float64Var(&f.pue, "pue", 0, "data-centre PUE for PUE-adjusted energy (e.g. 1.4)")
	fs.Float64Var(&f.gridGCO2kWh, "grid-gco2-kwh", 0, "grid carbon intensity, gCO2 per kWh")
	fs.Float64Var(&f.idleBaselineW, "idle-baseline-w", 0, "subtract this idle power, W, over the window (declared in the output)")
	fs.StringVar(&f.stabilize, "stabilize", "", "before measuring, wait until GPU power varies < band over a window: e.g. 30s,3W")
	fs.Lookup("stabilize").NoOptDefVal = "30s,3W"

	fs.StringVar(&f.engine, "engine", "", "metadata: engine and version, e.g. vllm-0.9.1")
	fs.StringVar(&f.modelRevision, "model-revision", "", "metadata: model revision (commit or tag)")
	fs.StringVar(&f.modelPrecision, "model-precision", "", "metadata: the model's numeric precision, e.g. fp8, bf16")
	fs.StringVar(&f.hardware, "hardware", "", "metadata: hardware, e.g. 4xH100-SXM-80GB (default: from NVML or DCGM when available)")
	fs.StringVar(&f.runID, "run-id", "", "run id (default: UTC time, e.g. 20260616T120000Z); results go to OUTPUT-DIR/RUN-ID")
	fs.StringArrayVar(&f.labels, "label", nil, "metadata label K=V (repeatable)")

	fs.StringVar(&f.outputDir, "output-dir", "results", "parent folder of results/<run-id>/")
	fs.StringSliceVar(&f.formats, "format", []string{"console", "json", "csv", "html"}, "outputs: console,json,csv,html")
	fs.BoolVar(&f.overwrite, "overwrite", false, "replace an existing results/<run-id>/")
	fs.BoolVar(&f.gzip, "gzip", false, "write requests.jsonl.gz instead of requests.jsonl")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines")
	fs.StringVar(&f.mockPreset, "mock-preset", "demo", "preset of the in-process mock used when --target is not given")
	fs.StringVar(&f.shard, "shard", "", "run shard I of N of a distributed run (`run` only): the same seeded plan, every N-th request, results in OUTPUT-DIR/RUN-ID/shard-I/; combine with `gollm-bench merge`")
}

// defaultUnreachableAfter is the default --unreachable-after: enough
// requests that a refused connection is not a one-off, few enough that a
// dead target costs a fraction of a second per level.
const defaultUnreachableAfter = 10

// windowTrim is a parsed --warmup or --cooldown value: exactly one field is
// set, or none.
type windowTrim struct {
	dur      time.Duration
	requests int64
	fraction float64
}

// parseWindowTrim parses "30s", "100" (requests) or "10%".
func parseWindowTrim(flag, s string) (windowTrim, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "0":
		return windowTrim{}, nil
	case strings.HasSuffix(s, "%"):
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || v < 0 || v >= 50 {
			return windowTrim{}, fmt.Errorf("--%s %q: a share must be a percentage in [0, 50), e.g. 10%%", flag, s)
		}
		return windowTrim{fraction: v / 100}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return windowTrim{}, fmt.Errorf("--%s %q: a request count must not be negative", flag, s)
		}
		return windowTrim{requests: n}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return windowTrim{}, fmt.Errorf("--%s %q: want a duration (30s), a request count (100) or a share (10%%)", flag, s)
	}
	return windowTrim{dur: d}, nil
}

// parseKV parses repeatable K=V flags. A bad --header is not quoted, since
// it may hold a secret ("Authorization: Bearer ...").
func parseKV(flag string, kvs []string) (map[string]string, error) {
	out := map[string]string{}
	var errs []error
	for i, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			switch {
			case flag != "header":
				errs = append(errs, fmt.Errorf("--%s %q: want KEY=VALUE", flag, kv))
			case strings.Contains(kv, ":"):
				name, _, _ := strings.Cut(kv, ":")
				errs = append(errs, fmt.Errorf("--header %q (value not shown): want NAME=VALUE, with '=' where curl has ':', e.g. --header '%s=...'", strings.TrimSpace(name)+": ...", strings.TrimSpace(name)))
			default:
				errs = append(errs, fmt.Errorf("--header number %d (not shown, it may be a secret): want NAME=VALUE, e.g. --header 'X-Tenant=a'", i+1))
			}
			continue
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, errors.Join(errs...)
}
