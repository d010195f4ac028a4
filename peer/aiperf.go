package peer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
)

const aiperfFormat = "AIPerf/GenAI-Perf profile export"

// ReadAIPerf is the Reader for AIPerf's profile_export_aiperf.json and
// GenAI-Perf's profile_export_genai_perf.json, one Level per file:
//
//   - AIPerf ≤ 0.1.x: metrics under `records.<tag>` (TTFT tag `ttft`), load
//     in input_config.loadgen.
//   - AIPerf ≥ 0.8 (schema_version 1.x): one top-level object per metric
//     (TTFT tag `time_to_first_token`), load in input_config.phases.
//   - GenAI-Perf: top-level metric objects like AIPerf's flat layout, no
//     aiperf_version/schema_version, a flat input_config with concurrency
//     and request_rate.
//
// Mapping: TTFT ← ttft/time_to_first_token; ITL ← inter_token_latency
// ((E2E − TTFT)/(OSL − 1) per request, as ours); ICL ← inter_chunk_latency
// (AIPerf, pooled chunk gaps); E2E ← request_latency; OutputTokPerSec ←
// output_token_throughput.avg; ReqPerSec ← request_throughput.avg;
// Completed ← request_count.avg; Failed ← error_request_count.avg, else the
// sum of error_summary counts, less AIPerf's deliberate cancellations
// (RequestCancellationError), which are Incomplete as gollm-bench counts
// them.
// In a GenAI-Perf non-streaming run TTFT equals request latency; it is
// dropped with a warning.
func ReadAIPerf(data []byte) (Result, error) {
	tree, err := decodeTree(data)
	if err != nil {
		return Result{}, &MismatchError{Format: aiperfFormat, Reason: err.Error()}
	}
	root := node{v: tree}
	if !root.isObj() {
		return Result{}, &MismatchError{Format: aiperfFormat, Reason: "top level is not an object"}
	}
	metricsRoot, nested := root, false
	res := Result{}
	ttftKey := "time_to_first_token"
	switch {
	case root.get("records").isObj():
		metricsRoot, nested = root.get("records"), true
		res.Tool, res.Layout = "AIPerf", "profile_export_aiperf.json, records layout (AIPerf ≤ 0.1)"
		ttftKey = "ttft"
	case root.get("time_to_first_token").isObj() || root.get("request_latency").isObj() || root.get("request_throughput").isObj():
		cfg := root.get("input_config")
		if root.has("aiperf_version") || root.has("schema_version") || cfg.has("phases") || cfg.has("loadgen") || cfg.get("endpoint").isObj() {
			res.Tool, res.ToolVersion = "AIPerf", root.get("aiperf_version").str()
			res.Layout = "profile_export_aiperf.json, flat layout, schema_version " + root.get("schema_version").str()
		} else {
			res.Tool, res.Layout = "GenAI-Perf", "profile_export_genai_perf.json"
		}
	default:
		return Result{}, &MismatchError{Format: aiperfFormat, Reason: "no `records` object and no `time_to_first_token`, `request_latency` or `request_throughput` metric object"}
	}
	src := func(tag string) string {
		if nested {
			return "records." + tag
		}
		return tag
	}

	var lv Level
	aiperfLoad(&lv, root.get("input_config"))
	lv.Label = label(lv)
	lv.Requests.Completed = metricsRoot.get("request_count", "avg").count()
	lv.Requests.Failed = metricsRoot.get("error_request_count", "avg").count()
	if !lv.Requests.Failed.OK && root.get("error_summary").isList() {
		var n int64
		for _, e := range root.get("error_summary").list() {
			n += e.get("count").count().N
		}
		lv.Requests.Failed = Known(n)
	}
	// AIPerf counts its deliberate cancellations (--request-cancellation-rate)
	// as errors; gollm-bench counts a request cut off on purpose as
	// incomplete, not failed.
	var cancelled int64
	for _, e := range root.get("error_summary").list() {
		if e.get("error_details", "type").str() == "RequestCancellationError" {
			cancelled += e.get("count").count().N
		}
	}
	if cancelled > 0 && lv.Requests.Failed.OK && lv.Requests.Failed.N >= cancelled {
		lv.Requests.Failed = Known(lv.Requests.Failed.N - cancelled)
		lv.Requests.Incomplete = Known(cancelled)
	}

	lv.TTFT = aiperfStats(metricsRoot.get(ttftKey))
	if !lv.TTFT.Empty() {
		lv.Definitions.TTFT = Definition{Source: src(ttftKey), Kind: KindTTFT}
	}
	lv.ITL = aiperfStats(metricsRoot.get("inter_token_latency"))
	if !lv.ITL.Empty() {
		lv.Definitions.ITL = Definition{Source: src("inter_token_latency"), Kind: KindITLPerRequest}
	}
	lv.ICL = aiperfStats(metricsRoot.get("inter_chunk_latency"))
	if !lv.ICL.Empty() {
		lv.Definitions.ICL = Definition{Source: src("inter_chunk_latency"), Kind: KindICL}
	}
	lv.E2E = aiperfStats(metricsRoot.get("request_latency"))
	if !lv.E2E.Empty() {
		lv.Definitions.E2E = Definition{Source: src("request_latency"), Kind: KindE2E}
	}
	lv.OutputTokPerSec = metricsRoot.get("output_token_throughput", "avg").num()
	if lv.OutputTokPerSec.OK {
		lv.Definitions.OutputTokPerSec = Definition{Source: src("output_token_throughput") + ".avg", Kind: KindTokPerSecWindow}
	}
	lv.ReqPerSec = metricsRoot.get("request_throughput", "avg").num()
	if lv.ReqPerSec.OK {
		lv.Definitions.ReqPerSec = Definition{Source: src("request_throughput") + ".avg", Kind: KindReqPerSecWindow}
	}
	lv.ISL = aiperfStats(metricsRoot.get("input_sequence_length"))
	lv.OSL = aiperfStats(metricsRoot.get("output_sequence_length"))
	lv.GoodputReqPerSec = metricsRoot.get("goodput", "avg").num()
	if !lv.GoodputReqPerSec.OK {
		lv.GoodputReqPerSec = metricsRoot.get("request_goodput", "avg").num()
	}
	for _, st := range []*Stats{&lv.TTFT, &lv.ITL, &lv.E2E} {
		if !st.N.OK && !st.Empty() {
			st.N = lv.Requests.Completed // one value per successful request
		}
	}
	if res.Tool == "GenAI-Perf" {
		res.Workload = genaiPerfWorkload(root.get("input_config"))
	} else {
		res.Workload = aiperfWorkload(root.get("input_config"))
	}
	if res.Tool == "GenAI-Perf" && root.get("input_config", "streaming").v == false && !lv.TTFT.Empty() {
		lv.TTFT, lv.Definitions.TTFT = Stats{}, Definition{}
		res.Warnings = append(res.Warnings, metrics.Warning{Code: WarnNonStreamingTTFT, Level: 0,
			Message: "GenAI-Perf non-streaming run: its time_to_first_token equals request latency, so TTFT is left out"})
	}
	res.Levels = []Level{lv}
	return res, nil
}

// aiperfPhaseRate is a phase's request rate (req/s): request_rate up to
// 0.12, rate from 0.13 ({"type": "constant", "rate": 4}).
func aiperfPhaseRate(ph node) Value {
	if r := ph.get("request_rate").num(); r.OK {
		return r
	}
	return ph.get("rate").num()
}

// aiperfLoad fills the load discipline from an AIPerf or GenAI-Perf
// input_config.
func aiperfLoad(lv *Level, cfg node) {
	conc := cfg.get("concurrency").count()
	rate := cfg.get("request_rate").num()
	modeHint := ""
	if lg := cfg.get("loadgen"); lg.isObj() { // AIPerf ≤ 0.1
		conc, rate, modeHint = lg.get("concurrency").count(), lg.get("request_rate").num(), lg.get("request_rate_mode").str()
	}
	for _, ph := range cfg.get("phases").list() { // AIPerf ≥ 0.8: the profiling phase
		if ph.get("exclude_from_results").v == true || (ph.has("name") && ph.get("name").str() != "profiling") {
			continue
		}
		conc, rate, modeHint = ph.get("concurrency").count(), aiperfPhaseRate(ph), ph.get("type").str()
		if a := ph.get("arrival_pattern").str(); a != "" {
			modeHint = a
		}
		break
	}
	switch {
	case rate.OK && rate.V > 0 && modeHint == "gamma":
		lv.Mode, lv.Rate = ModeUnknown, rate // gamma arrivals: no gollm-bench equivalent
	case rate.OK && rate.V > 0:
		lv.Mode, lv.Rate = loadgen.ModePoisson, rate
		if modeHint == "constant" {
			lv.Mode = loadgen.ModeConstant
		}
		if conc.OK && conc.N > 0 {
			lv.MaxConcurrency = int(conc.N)
		}
	case conc.OK && conc.N == 1:
		lv.Mode, lv.Concurrency = loadgen.ModeSynchronous, 1
	case conc.OK && conc.N > 1:
		lv.Mode, lv.Concurrency = loadgen.ModeConcurrent, int(conc.N)
	default:
		lv.Mode = ModeUnknown
	}
}

// aiperfStats reads an AIPerf/GenAI-Perf metric object ({avg, p50, p90, p95,
// p99, ...}); scalars with null percentiles give missing percentiles.
func aiperfStats(d node) Stats {
	if !d.isObj() {
		return Stats{}
	}
	return Stats{
		Mean: d.get("avg").num(),
		P50:  d.get("p50").num(),
		P90:  d.get("p90").num(),
		P95:  d.get("p95").num(),
		P99:  d.get("p99").num(),
		Std:  d.get("std").num(),
		N:    d.get("count").count(),
	}
}

// aiperfWorkload reads AIPerf's input_config: endpoint, model, tokenizer,
// prompt lengths or dataset, request count or duration, goodput SLOs,
// warm-up and request cancellation, in both the ≤ 0.1 (`loadgen`,
// `input`) and the ≥ 0.8 (`phases`, `datasets`) layouts.
func aiperfWorkload(cfg node) Workload {
	// AIPerf reports every request of its profiling phase; its warm-up is
	// a phase of its own (read below), and nothing is trimmed at the end.
	w := Workload{Cooldown: "0"}
	ep := cfg.get("endpoint")
	if t := ep.get("type").str(); t != "" {
		setStr(&w, "endpoint", "input_config.endpoint.type", aiperfEndpoint(t))
	}
	if v, ok := ep.get("streaming").v.(bool); ok {
		w.Stream = Stated(v)
	} else if ep.isObj() {
		w.Stream = Stated(false) // AIPerf streams only with --streaming
	}
	w.set("stream", "input_config.endpoint.streaming")
	if names := ep.get("model_names").list(); len(names) > 0 {
		setStr(&w, "model", "input_config.endpoint.model_names[0]", names[0].str())
	}
	if items := cfg.get("models", "items").list(); len(items) > 0 {
		setStr(&w, "model", "input_config.models.items[0].name", items[0].get("name").str())
	}
	if t := cfg.get("tokenizer", "name").str(); t != "" && t != "<redacted>" {
		setStr(&w, "tokenizer", "input_config.tokenizer.name", t)
	}
	// Prompt lengths: ISL and OSL means (AIPerf's defaults: ISL 550 ±0).
	isl := Value{}
	osl := cfg.get("input", "prompt", "output_tokens", "mean").num()
	islKey := "input_config.input.prompt"
	if v := cfg.get("input", "prompt", "input_tokens", "mean").num(); v.OK {
		isl, islKey = v, "input_config.input.prompt.input_tokens.mean"
	}
	for i, d := range cfg.get("datasets").list() {
		key := fmt.Sprintf("input_config.datasets[%d]", i)
		switch d.get("type").str() {
		case "synthetic", "":
			if v := d.get("prompts", "isl", "mean").num(); v.OK {
				isl, islKey = v, key+".prompts.isl.mean"
			}
			if v := d.get("prompts", "osl", "mean").num(); v.OK {
				osl = v
			}
		default:
			if p := d.get("path").str(); p != "" {
				setStr(&w, "dataset", key+".path", p)
			}
		}
		if c := d.get("random_seed").count(); c.OK {
			w.Seed = c
		}
	}
	if c := cfg.get("random_seed").count(); c.OK {
		w.Seed = c
	}
	if w.Dataset == "" && (isl.OK || osl.OK) {
		// AIPerf's synthetic prompts default to 550 tokens.
		if !isl.OK {
			isl, islKey = Some(550), "AIPerf's default ISL"
		}
		spec := fmt.Sprintf("prompt_tokens=%s", isl)
		if osl.OK {
			spec += fmt.Sprintf(",output_tokens=%s", osl)
		}
		setStr(&w, "data", islKey, spec)
	}
	// Limits: AIPerf ≤ 0.1's loadgen, ≥ 0.8's profiling phase.
	if lg := cfg.get("loadgen"); lg.isObj() {
		w.Profile = aiperfProfile(lg.get("request_rate_mode").str(), lg.get("request_rate").num(), lg.get("concurrency").count())
		w.set("profile", "input_config.loadgen")
		if c := lg.get("request_count").count(); c.OK {
			w.MaxRequests = c
			w.set("max_requests", "input_config.loadgen.request_count")
		}
		if v := lg.get("benchmark_duration").num(); v.OK {
			w.MaxSeconds = v
			w.set("max_seconds", "input_config.loadgen.benchmark_duration")
		}
		if c := lg.get("warmup_request_count").count(); c.OK {
			w.Warmup = strconv.FormatInt(c.N, 10)
		}
		if v, ok := lg.get("request_cancellation_rate").num().Get(); ok && v > 0 {
			w.Unsupported = append(w.Unsupported, Setting{Key: "input_config.loadgen.request_cancellation_rate", Value: strconv.FormatFloat(v, 'f', -1, 64) + "%",
				Reason: "AIPerf cancelled that share of its requests on purpose; gollm-bench does not cancel requests"})
		}
	}
	phases := cfg.get("phases").list()
	if len(phases) > 0 {
		w.Warmup = "0"
	}
	for i, ph := range phases {
		key := fmt.Sprintf("input_config.phases[%d]", i)
		if ph.get("name").str() == "warmup" || ph.get("exclude_from_results").v == true {
			if c := ph.get("requests").count(); c.OK {
				w.Warmup = strconv.FormatInt(c.N, 10)
			} else if v, ok := ph.get("duration").num().Get(); ok {
				w.Warmup = strconv.FormatFloat(v, 'f', -1, 64) + "s"
			}
			continue
		}
		w.Profile = aiperfProfile(ph.get("type").str(), aiperfPhaseRate(ph), ph.get("concurrency").count())
		w.set("profile", key+".type")
		if c := ph.get("requests").count(); c.OK {
			w.MaxRequests = c
			w.set("max_requests", key+".requests")
		}
		if v := ph.get("duration").num(); v.OK {
			w.MaxSeconds = v
			w.set("max_seconds", key+".duration")
		}
	}
	if slos := cfg.get("slos"); slos.isObj() {
		w.SLO, w.From = aiperfSLO(slos), withKey(w.From, "slo", "input_config.slos")
	}
	if w.Dataset != "" {
		w.PrefixCache = "dataset"
	}
	return w
}

func withKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// aiperfSLO maps AIPerf's goodput SLOs ({metric tag: ms}) onto ours.
func aiperfSLO(slos node) string {
	var parts []string
	for _, k := range []string{"time_to_first_token", "ttft", "inter_token_latency", "request_latency"} {
		if v, ok := slos.get(k).num().Get(); ok {
			parts = append(parts, fmt.Sprintf("%s:%s", k, strconv.FormatFloat(v, 'f', -1, 64)))
		}
	}
	s, err := GoodputSLO(strings.Join(parts, " "))
	if err != nil {
		return ""
	}
	return s
}

// aiperfEndpoint maps AIPerf's and GenAI-Perf's endpoint types onto ours.
func aiperfEndpoint(t string) string {
	switch t {
	case "chat", "completions":
		return t
	}
	return t
}

// aiperfProfile names the load profile of a phase or loadgen section.
func aiperfProfile(mode string, rate Value, conc Count) string {
	switch {
	case rate.OK && rate.V > 0 && mode == "gamma":
		return "gamma"
	case rate.OK && rate.V > 0 && mode == "constant":
		return "constant"
	case rate.OK && rate.V > 0:
		return "poisson"
	case conc.OK && conc.N == 1:
		return "synchronous"
	case conc.OK && conc.N > 1:
		return "concurrent"
	}
	return ""
}

// genaiPerfWorkload reads GenAI-Perf's flat input_config.
func genaiPerfWorkload(cfg node) Workload {
	var w Workload
	if v, ok := cfg.get("streaming").v.(bool); ok {
		w.Stream = Stated(v)
		w.set("stream", "input_config.streaming")
	}
	if t := cfg.get("endpoint_type").str(); t != "" {
		setStr(&w, "endpoint", "input_config.endpoint_type", aiperfEndpoint(t))
	}
	if ms := cfg.get("model").list(); len(ms) > 0 {
		setStr(&w, "model", "input_config.model[0]", ms[0].str())
	}
	if t := cfg.get("tokenizer").str(); t != "" {
		setStr(&w, "tokenizer", "input_config.tokenizer", t)
	}
	switch src := cfg.get("prompt_source").str(); src {
	case "synthetic", "":
		if v, ok := cfg.get("synthetic_input_tokens_mean").num().Get(); ok {
			spec := fmt.Sprintf("prompt_tokens=%s", strconv.FormatFloat(v, 'f', -1, 64))
			if sd, ok := cfg.get("synthetic_input_tokens_stddev").num().Get(); ok && sd > 0 {
				spec += fmt.Sprintf(",prompt_tokens_stdev=%s", strconv.FormatFloat(sd, 'f', -1, 64))
			}
			if o, ok := cfg.get("output_tokens_mean").num().Get(); ok && o > 0 {
				spec += fmt.Sprintf(",output_tokens=%s", strconv.FormatFloat(o, 'f', -1, 64))
				if sd, ok := cfg.get("output_tokens_stddev").num().Get(); ok && sd > 0 {
					spec += fmt.Sprintf(",output_tokens_stdev=%s", strconv.FormatFloat(sd, 'f', -1, 64))
				}
			}
			setStr(&w, "data", "input_config.synthetic_input_tokens_mean", spec)
		}
	default:
		if files := cfg.get("input_file").str(); files != "" {
			setStr(&w, "dataset", "input_config.input_file", files)
		} else {
			setStr(&w, "dataset", "input_config.prompt_source", src)
		}
		w.PrefixCache = "dataset"
	}
	w.Profile = aiperfProfile("", cfg.get("request_rate").num(), cfg.get("concurrency").count())
	w.set("profile", "input_config.concurrency")
	if c := cfg.get("request_count").count(); c.OK && c.N > 0 {
		w.MaxRequests = c
		w.set("max_requests", "input_config.request_count")
	}
	if c := cfg.get("warmup_request_count").count(); c.OK {
		w.Warmup = strconv.FormatInt(c.N, 10)
	}
	if c := cfg.get("random_seed").count(); c.OK {
		w.Seed = c
	}
	if g := cfg.get("goodput"); g.isObj() {
		var parts []string
		for _, k := range []string{"time_to_first_token", "inter_token_latency", "request_latency"} {
			if v, ok := g.get(k).num().Get(); ok {
				parts = append(parts, fmt.Sprintf("%s:%s", k, strconv.FormatFloat(v, 'f', -1, 64)))
			}
		}
		if s, err := GoodputSLO(strings.Join(parts, " ")); err == nil && s != "" {
			setStr(&w, "slo", "input_config.goodput", s)
		}
	}
	return w
}
