package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/cmdline"
)

// The flags of `run` and `sweep` set benchmark.Settings, one flag per
// field, named as the field's comment says; a flag whose field is not a
// string, a number or a named string sets its text (cmdline.SettingsText),
// parsed into the typed field. Names follow GuideLLM and
// AIPerf where they have one.

// register binds the flags of `run` (sweep false) or `sweep` to b's
// settings, with their defaults (benchmark.DefaultSettings).
func (b *bench) register(fs *pflag.FlagSet, sweep bool) {
	s := &b.s
	b.text = cmdline.NewSettingsText(b.s)
	fs.StringVar(&s.Target, "target", s.Target, "base URL of the server, e.g. http://127.0.0.1:8000 (default: start the built-in mock in-process)")
	fs.StringVar(&s.Model, "model", s.Model, "model name (default: the first id of GET /v1/models)")
	fs.StringVar((*string)(&s.Endpoint), "endpoint", string(s.Endpoint), "API: completions|chat (/v1/completions or /v1/chat/completions)")
	fs.StringVar(&s.APIKey, "api-key", s.APIKey, "bearer token (default $OPENAI_API_KEY); an Authorization --header or --target credentials win over both; never written to outputs")
	fs.StringArrayVar(&b.text.Headers, "header", b.text.Headers, "extra HTTP header K=V (repeatable)")
	fs.StringVar(&b.text.ExtraBody, "extra-body", b.text.ExtraBody, "JSON object merged into every request body; it wins over every default")
	fs.BoolVar(&s.NoStream, "no-stream", s.NoStream, "send non-streaming requests (TTFT is then not reported)")
	fs.BoolVar(&s.NoIgnoreEOS, "no-ignore-eos", s.NoIgnoreEOS, "do not send ignore_eos (some chat templates, e.g. gpt-oss Harmony, break with it)")
	fs.IntVar(&s.MinTokens, "min-tokens", s.MinTokens, "send min_tokens (a vLLM extension) when > 0")
	fs.Float64Var(&s.Temperature, "temperature", s.Temperature, "sampling temperature")
	fs.StringVar(&s.CACert, "ca-cert", s.CACert, "PEM file of the CA that signed an https --target's certificate (added to the system's roots)")
	fs.StringVar((*string)(&s.ReceiveClock), "receive-clock", string(s.ReceiveClock), "clock of each received chunk: auto|kernel|user (kernel: the kernel's receive time, Linux; user: when the client read it; auto: kernel where available); run.json says which each level used")
	fs.BoolVar(&s.Insecure, "insecure", s.Insecure, "do not verify the https --target's TLS certificate (a test server only; recorded in run.json and the scorecard)")

	fs.StringVar((*string)(&s.Profile), "profile", string(s.Profile), "load profile: "+strings.Join(s.Command.Profiles(), "|"))
	fs.StringSliceVar(&b.text.Rates, "rate", b.text.Rates, "levels: concurrency for concurrent/throughput, req/s for constant/poisson; a list, e.g. 1,2,4,8")
	fs.IntVar(&s.MaxConcurrency, "max-concurrency", s.MaxConcurrency, "cap on requests in flight for rate modes (arrivals beyond it queue, counted as scheduling lag)")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "seed of everything random (prompts, lengths, Poisson arrivals); recorded")
	fs.StringVar(&s.Nonce, "nonce", s.Nonce, "what makes the cold prefixes (each prompt's unique leading tokens) this run's own (default: the run id); a run.json given to --config reruns its prompts byte for byte with its nonce, --nonce= gives fresh ones")
	if sweep {
		fs.IntVar(&s.GridLevels, "levels", s.GridLevels, "grid levels of a rate sweep: synchronous, throughput, then levels-2 rates between them (GuideLLM)")
		fs.Float64Var(&s.KneeTolerance, "knee-tolerance", s.KneeTolerance, "stop bisecting when the knee bracket is within this fraction")
		fs.IntVar(&s.MaxLevels, "max-levels", s.MaxLevels, "level budget, grid and bisection together")
		fs.BoolVar(&s.EarlyStop, "early-stop", s.EarlyStop, "stop once two consecutive levels fail by a wide margin (declared in the output)")
	}

	fs.StringVar(&b.text.Data, "data", b.text.Data, "synthetic lengths, GuideLLM spelling: prompt_tokens=N,output_tokens=M[,prompt_tokens_stdev=..,_min=..,_max=..] (default "+benchmark.DefaultData+")")
	fs.StringVar(&b.text.SequenceDistribution, "sequence-distribution", b.text.SequenceDistribution, `AIPerf length mix "ISL|sd,OSL|sd:weight;...", e.g. "64|10,32|8:70;256|40,128|20:30"`)
	fs.StringVar(&s.Dataset, "dataset", s.Dataset, "prompts file: JSONL (one prompt per line, or {\"prompt\",\"output_tokens\"}) or ShareGPT JSON")
	fs.StringVar(&s.Tokenizer, "tokenizer", s.Tokenizer, "served model's tokenizer: tokenizer.json, a folder holding one, a model id ORG/NAME[@REVISION] (read from the local HF cache, else downloaded from the Hub: HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE), server (the server's /tokenize counts), words, or auto (default: the served model's id, else the server's counts, else words)")
	fs.StringVar(&b.text.Turns, "turns", b.text.Turns, `multi-turn chat sessions (needs --endpoint chat): N turns, "uniform:MIN:MAX", or "dataset" (every user turn of a ShareGPT --dataset); each turn sends the conversation so far with the server's replies and a new user message of --data's prompt_tokens; a session is one arrival, so --rate, --max-concurrency, --max-requests and request-count --warmup/--cooldown count sessions`)
	fs.StringVar(&b.text.ThinkTime, "think-time", b.text.ThinkTime, `with --turns: the pause between a turn's end and the next turn's intended send time: a duration (2s), "uniform:MIN:MAX" or "exponential:MEAN" (default 0)`)
	fs.IntVar(&s.MaxContext, "max-context", s.MaxContext, "with --turns: the served model's context window, tokens; sessions whose last turn would not fit at the declared lengths are refused before anything is sent (0: not checked)")
	fs.StringVar(&s.Trace, "trace", s.Trace, "replay this request trace's arrival times and lengths (run only): Mooncake JSONL, Azure LLM inference CSV or BurstGPT CSV; one level, one request per line")
	fs.StringVar((*string)(&s.TraceFormat), "trace-format", string(s.TraceFormat), "format of --trace: mooncake|azure|burstgpt (default: detected from the first line)")
	fs.Float64Var(&s.TraceSpeedup, "trace-speedup", s.TraceSpeedup, "play --trace this many times faster (0.5: half speed)")
	fs.StringVar((*string)(&s.TraceFailed), "trace-failed", string(s.TraceFailed), "--trace lines that describe requests that failed in the traced service (0 output tokens, as BurstGPT logs them): replay (send with 1 output token; the default), skip, or refuse")
	fs.StringVar(&b.text.TraceWindow, "trace-window", b.text.TraceWindow, "replay only the requests of --trace arriving in START,END (time since its first request: 10m,20m or 600,1200; either may be empty)")
	fs.StringVar(&b.text.Ramp, "ramp", b.text.Ramp, `raise the arrival rate within each level (run only), e.g. "linear:1->50:60s" or "exponential:2->64:2m" (req/s; constant arrivals, or Poisson with --profile poisson)`)
	fs.Float64Var(&s.Burstiness, "burstiness", s.Burstiness, "gamma-distributed gaps of this shape K with the level's mean rate (implies --profile poisson): 1 is Poisson, below 1 burstier (0.5: CV 1.41), above 1 smoother")
	fs.StringVar(&b.text.SharedPrefix, "shared-prefix", b.text.SharedPrefix, `groups of prompts sharing a prefix, e.g. "groups=8,prompts=64,prefix=2048,question=128,output=256" (tokens; prefix-cache state shared:GxS)`)
	fs.StringVar(&b.text.PrefixCache, "prefix-cache", b.text.PrefixCache, "cold (the default: a unique leading token sequence per request) or warm:N (a shared N-token prefix; N below the ISL: prompt_tokens, or the smallest ISL of --sequence-distribution)")

	fs.StringVar(&b.text.Warmup, "warmup", b.text.Warmup, "excluded from the window at each level's start: a duration (30s), a request count (100) or a share of the level (10%)")
	fs.StringVar(&b.text.Cooldown, "cooldown", b.text.Cooldown, "excluded at each level's end: a duration, a request count or a share")
	fs.StringVar(&b.text.WarmupPhase, "warmup-phase", b.text.WarmupPhase, "before the first level, send this load for this long, counted in no level: concurrent:N:DURATION, constant:R:DURATION or poisson:R:DURATION, e.g. concurrent:4:60s")
	fs.Float64Var(&b.text.MaxSeconds, "max-seconds", b.text.MaxSeconds, "length of each level, s (default 30 without --max-requests)")
	fs.Int64Var(&s.MaxRequests, "max-requests", s.MaxRequests, "requests per level")
	fs.Int64Var(&s.MaxErrors, "max-errors", s.MaxErrors, "stop a level once this many requests failed (0: never)")
	fs.Int64Var(&s.UnreachableAfter, "unreachable-after", s.UnreachableAfter, "stop a level when its first N requests all fail to connect (refused, unknown host, TLS failure); 0: never")
	fs.DurationVar(&s.RequestTimeout, "request-timeout", s.RequestTimeout, "limit on one whole request")
	fs.DurationVar(&s.IdleTimeout, "idle-timeout", s.IdleTimeout, "longest gap allowed between stream bytes")
	fs.IntVar(&s.MaxLineBytes, "max-line-bytes", s.MaxLineBytes, "longest stream line (or event) in bytes; a longer one fails the request as line_too_long")
	fs.DurationVar(&s.DrainTimeout, "drain-timeout", s.DrainTimeout, "after a level's --max-seconds, let requests in flight finish for up to this long, so those sent in the window are measured to their end (0: cut them off as incomplete)")
	fs.DurationVar(&s.MaxLag, "max-lag", s.MaxLag, "scheduling-lag p99 above which a level is client-limited (default 5% of the tightest TTFT, TTFOT or E2E threshold, or 10ms)")

	fs.StringVar(&b.text.SLO, "slo", b.text.SLO, `service-level objective, e.g. "ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%"`)
	fs.StringVar(&b.text.Precision, "precision", b.text.Precision, `run each level until every SLO term is decided ("decide"), or also until these 95% intervals are this tight relative to their estimate, e.g. "ttft_p99:5%,itl_p95:3%", or not at all ("quick") (run: bounded by --max-seconds, default 120s with it, or --max-requests; sweep: the grid runs --max-seconds and the levels that decide the knee run up to --precision-max-seconds; default: "decide" for a sweep with --slo, else "quick")`)
	if sweep {
		fs.Float64Var(&b.text.PrecisionMaxSeconds, "precision-max-seconds", b.text.PrecisionMaxSeconds, "with --precision, the longest a level that decides the knee may run, s (default 10 × --max-seconds; the grid runs --max-seconds)")
	}
	fs.IntVar(&b.text.Repeat, "repeat", b.text.Repeat, "run each level this many times (seeds derived from --seed) and pool them, with the spread between runs")
	fs.Func("min-samples", "no effect: replaced by the confidence intervals every figure carries (see --precision)", benchmark.CheckMinSamples)
	_ = fs.MarkDeprecated("min-samples", "every figure now carries a 95% confidence interval and verdicts say when more requests are needed; use --precision to extend levels until decided")

	fs.StringVar(&s.Energy, "energy", s.Energy, "GPU energy source: auto|nvml|dcgm=URL|prometheus=URL|none")
	fs.StringVar(&b.text.EnergyFilter, "energy-filter", b.text.EnergyFilter, "keep GPUs whose labels match, e.g. Hostname=gpu-node-01,namespace=inference")
	fs.StringVar(&s.EngineMetrics, "engine-metrics", s.EngineMetrics, "scrape the engine's Prometheus /metrics (vLLM, SGLang, llama.cpp or TGI) at window start and end: a URL, or 'target'")
	fs.Float64Var(&s.GPUCostEURh, "gpu-cost-eur-h", s.GPUCostEURh, "cost of the deployment, EUR per hour")
	fs.StringVar(&s.OpenCost, "opencost", s.OpenCost, "OpenCost base URL for EUR/h over the window (with --opencost-namespace)")
	fs.StringVar(&s.OpenCostNamespace, "opencost-namespace", s.OpenCostNamespace, "namespace whose OpenCost allocation is the deployment's cost")
	fs.StringVar(&s.Currency, "currency", s.Currency, "currency of OpenCost figures (OpenCost carries none)")
	fs.Float64Var(&s.PUE, "pue", s.PUE, "data-centre PUE for PUE-adjusted energy (e.g. 1.4)")
	fs.Float64Var(&s.GridGCO2KWh, "grid-gco2-kwh", s.GridGCO2KWh, "grid carbon intensity, gCO2 per kWh")
	fs.Float64Var(&s.IdleBaselineW, "idle-baseline-w", s.IdleBaselineW, "subtract this idle power, W, over the window (declared in the output)")
	fs.StringVar(&b.text.Stabilize, "stabilize", b.text.Stabilize, "hold the warm-up phase (default load concurrent:4) until every GPU's power stays within ±band over a window and its temperature stops rising, up to a timeout: WINDOW,BAND[,TIMEOUT], e.g. 30s,3W,5m")
	fs.Lookup("stabilize").NoOptDefVal = "30s,3W"
	fs.StringVar(&s.PodEnergy, "pod-energy", s.PodEnergy, `Kepler's energy of the benchmarked pod over each window, beside the GPU energy: "prometheus=URL,namespace=NS[,pod=NAME|pod=~RE][,container=NAME]" (or kepler=URL for Kepler's own /metrics)`)
	fs.StringVar(&s.LiteLLMMetrics, "litellm-metrics", s.LiteLLMMetrics, `a LiteLLM proxy's token and spend counters over each window: 'target', its /metrics URL or prometheus=URL, then filters, e.g. "target,requested_model=llama-70b"`)
	fs.StringVar(&b.text.Price, "price", b.text.Price, `token prices, EUR per 1M tokens, for cost by token type: "input=0.50,output=1.50[,cached_input=0.10]"`)
	fs.StringVar(&b.text.Reference, "reference", b.text.Reference, `a published energy per token to check Wh/token against (a factor of 2): "wh_per_token=0.00044,source=TEXT" or "tokens_per_j=N,source=TEXT" (source last), or @FILE holding that`)

	fs.StringVar(&s.Engine, "engine", s.Engine, "metadata: engine and version, e.g. vllm-0.9.1")
	fs.StringVar(&s.ModelRevision, "model-revision", s.ModelRevision, "metadata: model revision (commit or tag)")
	fs.StringVar(&s.ModelPrecision, "model-precision", s.ModelPrecision, "metadata: the model's numeric precision, e.g. fp8, bf16")
	fs.StringVar(&s.Hardware, "hardware", s.Hardware, "metadata: hardware, e.g. 4xH100-SXM-80GB (default: from NVML or DCGM when available)")
	fs.StringVar(&s.RunID, "run-id", s.RunID, "run id (default: UTC time, e.g. 20260616T120000Z); results go to OUTPUT-DIR/RUN-ID")
	fs.StringArrayVar(&b.text.Labels, "label", b.text.Labels, "metadata label K=V (repeatable)")

	fs.StringVar(&s.OutputDir, "output-dir", s.OutputDir, "parent folder of each run's folder OUTPUT-DIR/RUN-ID/")
	fs.StringSliceVar(&b.text.Formats, "format", b.text.Formats, "outputs: console,json,csv,html")
	fs.BoolVar(&s.Overwrite, "overwrite", s.Overwrite, "replace an existing OUTPUT-DIR/RUN-ID/")
	fs.BoolVar(&s.Gzip, "gzip", s.Gzip, "write requests.jsonl.gz instead of requests.jsonl")
	fs.BoolVar(&b.quiet, "quiet", false, "no progress lines")
	fs.StringVar(&s.MockPreset, "mock-preset", s.MockPreset, "preset of the in-process mock used when --target is not given")
	fs.IntVar(&s.MockPrefixCache, "mock-prefix-cache", s.MockPrefixCache, "the in-process mock's prefix cache capacity, tokens (on with 16-token blocks when the preset has none; 0: the preset's, demo-cache 65,536)")
	if !sweep {
		fs.StringVar(&b.text.Shard, "shard", b.text.Shard, "run shard `I/N` of a distributed run: the same seeded plan, every N-th request, results in OUTPUT-DIR/RUN-ID/shard-I/; combine with gollm-bench merge")
		fs.StringVar(&s.Like, "like", s.Like, "run the load of this result: a GuideLLM, AIPerf, GenAI-Perf, vLLM or inference-perf result file (or folder), or a gollm-bench results folder; its profile, rates, lengths or dataset, limits, warmup, streaming, endpoint, model and SLO become the defaults of the flags not given")
	}
}
