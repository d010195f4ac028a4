package peer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
)

const guideLLMFormat = "GuideLLM benchmarks.json"

// ReadGuideLLM is the Reader for GuideLLM's benchmarks.json and
// benchmarks.yaml (PyYAML, same tree), in every known layout: 0.2–0.3
// (top-level `benchmarks` only, per-benchmark `args` and `request_totals`),
// 0.4 (`args` + `benchmarks`), 0.5–0.6 (`metadata` v1) and 0.7+ (`metadata`
// v2 + `config`); 0.4+ benchmarks carry `config.strategy` and
// `metrics.request_totals`. Each benchmark becomes one Level, from the
// `successful` half of GuideLLM's status distributions:
//
//   - TTFT ← time_to_first_token_ms; p50 ← percentiles.p50, else median
//     (files before July 2025 have no p50).
//   - ITL ← inter_token_latency_ms, GuideLLM's per-request (last − first
//     token)/(OSL − 1). When the distribution's count exceeds the successful
//     requests (GuideLLM ≥ 0.4) it is token-weighted: KindITLTokenWeighted.
//   - TPOT ← time_per_output_token_ms, per request E2E / OSL: it includes the
//     first token (KindTPOTWithFirst).
//   - E2E ← request_latency, converted from s to ms.
//   - OutputTokPerSec ← output_tokens_per_second.successful.mean and
//     ReqPerSec ← requests_per_second.successful.mean: means of rate
//     distributions over the run, as GuideLLM's console prints them.
func ReadGuideLLM(data []byte) (Result, error) {
	tree, err := decodeTree(data)
	if err != nil {
		return Result{}, &MismatchError{Format: guideLLMFormat, Reason: err.Error()}
	}
	root := node{v: tree}
	benches := root.get("benchmarks")
	if !benches.isList() {
		return Result{}, &MismatchError{Format: guideLLMFormat, Reason: "no `benchmarks` array"}
	}
	list := benches.list()
	if len(list) > 0 && !list[0].get("metrics").isObj() {
		return Result{}, &MismatchError{Format: guideLLMFormat, Reason: "no `benchmarks[0].metrics` object"}
	}
	res := Result{Tool: "GuideLLM"}
	switch {
	case root.get("metadata").isObj():
		res.ToolVersion = root.get("metadata", "guidellm_version").str()
		v := root.get("metadata", "version").num()
		res.Layout = fmt.Sprintf("benchmarks.json, metadata version %s", v)
	case root.has("args"):
		res.Layout = "benchmarks.json, args + benchmarks (GuideLLM 0.4)"
	default:
		res.Layout = "benchmarks.json, benchmarks only (GuideLLM 0.2–0.3)"
	}
	if len(list) == 0 {
		res.Warnings = append(res.Warnings, metrics.Warning{Code: WarnNoLevels, Level: -1, Message: "GuideLLM file has an empty `benchmarks` array"})
	}
	for i, b := range list {
		res.Levels = append(res.Levels, guideLLMLevel(i, b))
	}
	res.Workload = guideLLMWorkload(root, list)
	return res, nil
}

func guideLLMLevel(i int, b node) Level {
	m := b.get("metrics")
	path := func(metric string) string {
		return fmt.Sprintf("benchmarks[%d].metrics.%s.successful", i, metric)
	}
	var lv Level

	// Load discipline: 0.4+ keep it in config.strategy, 0.2–0.3 in args.strategy.
	strat := b.get("config", "strategy")
	if !strat.isObj() {
		strat = b.get("args", "strategy")
	}
	switch strat.get("type_").str() {
	case "synchronous":
		lv.Mode, lv.Concurrency = loadgen.ModeSynchronous, 1
	case "concurrent":
		lv.Mode = loadgen.ModeConcurrent
		if c := strat.get("streams").count(); c.OK {
			lv.Concurrency = int(c.N)
		} else if c := strat.get("max_concurrency").count(); c.OK {
			lv.Concurrency = int(c.N)
		}
	case "throughput":
		lv.Mode = loadgen.ModeThroughput
		if c := strat.get("max_concurrency").count(); c.OK {
			lv.MaxConcurrency = int(c.N)
		}
	case "constant", "poisson":
		lv.Mode = loadgen.Mode(strat.get("type_").str())
		lv.Rate = strat.get("rate").num()
		if c := strat.get("max_concurrency").count(); c.OK {
			lv.MaxConcurrency = int(c.N)
		}
	default:
		lv.Mode = ModeUnknown
	}
	lv.Label = label(lv)

	// Request totals: per benchmark in 0.2–0.3, under metrics from 0.4.
	tot := m.get("request_totals")
	if !tot.isObj() {
		tot = b.get("request_totals")
	}
	if tot.isObj() {
		lv.Requests = Requests{
			Completed:  tot.get("successful").count(),
			Failed:     tot.get("errored").count(),
			Incomplete: tot.get("incomplete").count(),
		}
	} else {
		lat := m.get("request_latency")
		lv.Requests = Requests{
			Completed:  lat.get("successful", "count").count(),
			Failed:     lat.get("errored", "count").count(),
			Incomplete: lat.get("incomplete", "count").count(),
		}
	}

	lv.TTFT = guideLLMStats(m.get("time_to_first_token_ms", "successful"), 1)
	if !lv.TTFT.Empty() {
		lv.Definitions.TTFT = Definition{Source: path("time_to_first_token_ms"), Kind: KindTTFT}
	}
	itl := m.get("inter_token_latency_ms", "successful")
	lv.ITL = guideLLMStats(itl, 1)
	if !lv.ITL.Empty() {
		kind := KindITLPerRequest
		if n, ok := itl.get("count").num().Get(); ok && lv.Requests.Completed.OK && n > float64(lv.Requests.Completed.N) {
			kind = KindITLTokenWeighted
			lv.ITL.N, lv.ITL.Std = Count{}, Value{} // counts and spreads token gaps, not requests
		}
		lv.Definitions.ITL = Definition{Source: path("inter_token_latency_ms"), Kind: kind}
	}
	lv.TPOT = guideLLMStats(m.get("time_per_output_token_ms", "successful"), 1)
	if !lv.TPOT.Empty() {
		lv.Definitions.TPOT = Definition{Source: path("time_per_output_token_ms"), Kind: KindTPOTWithFirst}
	}
	lv.E2E = guideLLMStats(m.get("request_latency", "successful"), 1000) // s → ms
	if !lv.E2E.Empty() {
		lv.Definitions.E2E = Definition{Source: path("request_latency") + " (s, ×1000)", Kind: KindE2E}
	}
	lv.OutputTokPerSec = m.get("output_tokens_per_second", "successful", "mean").num()
	if lv.OutputTokPerSec.OK {
		lv.Definitions.OutputTokPerSec = Definition{Source: path("output_tokens_per_second") + ".mean", Kind: KindTokPerSecRateMean}
	}
	lv.ReqPerSec = m.get("requests_per_second", "successful", "mean").num()
	if lv.ReqPerSec.OK {
		lv.Definitions.ReqPerSec = Definition{Source: path("requests_per_second") + ".mean", Kind: KindReqPerSecRateMean}
	}
	lv.ISL = guideLLMStats(m.get("prompt_token_count", "successful"), 1)
	lv.OSL = guideLLMStats(m.get("output_token_count", "successful"), 1)
	lv.Samples = guideLLMSamples(b, lv.Requests.Completed)
	return lv
}

// guideLLMSamples reads the per-request values of a benchmark's
// successful requests, when the file holds them all: GuideLLM caps the
// samples it saves (--sample-requests) and, with a warm-up, saves the
// warm-up's requests too, so a list whose length differs from the
// measured count is not the measured sample and is not used.
func guideLLMSamples(b node, completed Count) *Samples {
	reqs := b.get("requests", "successful").list()
	if len(reqs) == 0 || !completed.OK || int64(len(reqs)) != completed.N {
		return nil
	}
	s := &Samples{Source: "GuideLLM requests.successful"}
	for _, r := range reqs {
		if v, ok := r.get("time_to_first_token_ms").num().Get(); ok {
			s.TTFT = append(s.TTFT, v)
		}
		if v, ok := r.get("inter_token_latency_ms").num().Get(); ok {
			s.ITL = append(s.ITL, v)
		}
		if v, ok := r.get("request_latency").num().Get(); ok {
			s.E2E = append(s.E2E, v*1000)
		}
	}
	return s
}

// guideLLMWorkload reads the run's settings: `args` (0.4–0.6), `config`
// (0.7+: a BenchmarkScenario whose spec holds backend, profile,
// constraints, data and seed), or each benchmark's args, request_loader
// and worker (0.2–0.3).
func guideLLMWorkload(root node, benches []node) Workload {
	var w Workload
	str := func(fact, key string, v string) {
		if v != "" {
			setStr(&w, fact, key, v)
		}
	}
	args := root.get("args")
	spec := root.get("config", "spec")
	var first node
	if len(benches) > 0 {
		first = benches[0]
	}
	switch {
	case args.isObj(): // 0.4–0.6
		str("profile", "args.profile", guideLLMProfile(args.get("profile").str()))
		str("model", "args.model", args.get("model").str())
		str("tokenizer", "args.processor", args.get("processor").str())
		str("endpoint", "args.request_format", guideLLMEndpoint(args.get("request_format").str()))
		for _, d := range args.get("data").list() {
			guideLLMData(&w, "args.data", d)
		}
		if v := args.get("max_seconds").num(); v.OK {
			w.MaxSeconds = v
			w.set("max_seconds", "args.max_seconds")
		}
		if c := args.get("max_requests").count(); c.OK {
			w.MaxRequests = c
			w.set("max_requests", "args.max_requests")
		}
		w.Warmup, w.Cooldown = guideLLMTrim(args.get("warmup")), guideLLMTrim(args.get("cooldown"))
		w.set("warmup", "args.warmup")
		w.set("cooldown", "args.cooldown")
		if c := args.get("random_seed").count(); c.OK {
			w.Seed = c
		}
	case spec.isObj(): // 0.7+
		str("profile", "config.spec.profile.kind", guideLLMProfile(spec.get("profile", "kind").str()))
		str("model", "config.spec.backend.model", spec.get("backend", "model").str())
		str("endpoint", "config.spec.backend.request_format", guideLLMEndpoint(spec.get("backend", "request_format").str()))
		tok := spec.get("tokenizer")
		for _, k := range []string{"source", "pretrained_model_name_or_path", "processor", "name", "model"} { // 0.8.1: model
			if v := tok.get(k).str(); v != "" {
				str("tokenizer", "config.spec.tokenizer."+k, v)
				break
			}
		}
		for i, d := range spec.get("data").list() {
			guideLLMData(&w, fmt.Sprintf("config.spec.data[%d]", i), d)
		}
		for i, c := range spec.get("constraints").list() {
			key := fmt.Sprintf("config.spec.constraints[%d]", i)
			switch c.get("kind").str() {
			case "max_duration", "max_seconds":
				w.MaxSeconds = c.get("seconds").num()
				w.set("max_seconds", key)
			case "max_requests", "max_number":
				w.MaxRequests = c.get("count").count()
				w.set("max_requests", key)
			}
		}
		if c := spec.get("seed", "value").count(); c.OK {
			w.Seed = c
		}
		if v, ok := spec.get("backend", "stream").v.(bool); ok {
			w.Stream = Stated(v)
			w.set("stream", "config.spec.backend.stream")
		}
		if len(benches) > 0 {
			w.Warmup = guideLLMTrimObj(first.get("config", "warmup"))
			w.Cooldown = guideLLMTrimObj(first.get("config", "cooldown"))
		}
	default: // 0.2–0.3
		ba := first.get("args")
		str("profile", "benchmarks[0].args.profile.type_", guideLLMProfile(ba.get("profile", "type_").str()))
		str("model", "benchmarks[0].worker.backend_model", first.get("worker", "backend_model").str())
		str("tokenizer", "benchmarks[0].request_loader.processor", first.get("request_loader", "processor").str())
		guideLLMData(&w, "benchmarks[0].request_loader.data", first.get("request_loader", "data"))
		if v := ba.get("max_duration").num(); v.OK {
			w.MaxSeconds = v
			w.set("max_seconds", "benchmarks[0].args.max_duration")
		}
		if c := ba.get("max_number").count(); c.OK {
			w.MaxRequests = c
			w.set("max_requests", "benchmarks[0].args.max_number")
		}
		if ba.isObj() {
			w.Warmup = guideLLMTrimPair(ba.get("warmup_number"), ba.get("warmup_duration"))
			w.Cooldown = guideLLMTrimPair(ba.get("cooldown_number"), ba.get("cooldown_duration"))
		}
		if c := ba.get("profile", "random_seed").count(); c.OK {
			w.Seed = c
		}
		// The request type of a saved sample names the API.
		for _, r := range first.get("requests", "successful").list() {
			str("endpoint", "benchmarks[0].requests.successful[0].request_type", guideLLMEndpoint(r.get("request_type").str()))
			break
		}
	}
	// What a saved request sent: streaming and ignore_eos (0.4+ keep the
	// request body in request_args).
	if saved := first.get("requests", "successful").list(); len(saved) > 0 {
		r := saved[0]
		body := node{}
		if raw := r.get("request_args").str(); raw != "" {
			if t, err := decodeTree([]byte(raw)); err == nil {
				body = node{v: t}.get("body")
			}
		}
		if v, ok := body.get("stream").v.(bool); ok {
			w.Stream = Stated(v)
			w.set("stream", "benchmarks[0].requests.successful[0].request_args.body.stream")
		}
		if v, ok := body.get("ignore_eos").v.(bool); ok {
			w.IgnoreEOS = Stated(v)
			w.set("ignore_eos", "benchmarks[0].requests.successful[0].request_args.body.ignore_eos")
		}
	}
	if w.Dataset != "" && w.PrefixCache == "" {
		w.PrefixCache = "dataset"
	}
	return w
}

func setStr(w *Workload, fact, key, v string) {
	switch fact {
	case "profile":
		w.Profile = v
	case "model":
		w.Model = v
	case "tokenizer":
		w.Tokenizer = v
	case "endpoint":
		w.Endpoint = v
	case "data":
		w.Data = v
	case "dataset":
		w.Dataset = v
	case "slo":
		w.SLO = v
	}
	w.set(fact, key)
}

// guideLLMProfile maps GuideLLM's profile names onto ours (they agree).
func guideLLMProfile(p string) string {
	switch p {
	case "synchronous", "concurrent", "throughput", "constant", "poisson", "sweep":
		return p
	case "":
		return ""
	}
	return p + " (GuideLLM)"
}

// guideLLMEndpoint maps a request format or request type onto our endpoint.
func guideLLMEndpoint(f string) string {
	switch {
	case f == "":
		return ""
	case strings.Contains(f, "chat"):
		return "chat"
	case strings.Contains(f, "completions"):
		return "completions"
	}
	return f
}

// guideLLMData reads one data source: a synthetic spec string
// ("prompt_tokens=256,output_tokens=128") or object ({kind:
// synthetic_text, prompt_tokens, ...}), else a file or dataset.
func guideLLMData(w *Workload, key string, d node) {
	if s := strings.TrimSpace(d.str()); s != "" {
		if strings.Contains(s, "prompt_tokens") && strings.Contains(s, "=") && !strings.ContainsAny(s, "/{") {
			setStr(w, "data", key, guideLLMSessionKeys(w, key, s))
		} else if strings.HasPrefix(s, "{") {
			if t, err := decodeTree([]byte(s)); err == nil {
				guideLLMData(w, key, node{v: t})
			}
		} else {
			setStr(w, "dataset", key, s)
		}
		return
	}
	if !d.isObj() {
		return
	}
	if v, ok := d.get("prompt_tokens").num().Get(); ok {
		spec := fmt.Sprintf("prompt_tokens=%s", strconv.FormatFloat(v, 'f', -1, 64))
		for _, k := range []string{"prompt_tokens_stdev", "prompt_tokens_min", "prompt_tokens_max", "output_tokens", "output_tokens_stdev", "output_tokens_min", "output_tokens_max"} {
			if x, ok := d.get(k).num().Get(); ok {
				spec += fmt.Sprintf(",%s=%s", k, strconv.FormatFloat(x, 'f', -1, 64))
			}
		}
		setStr(w, "data", key, spec)
		if c := d.get("turns").count(); c.OK {
			w.Turns = c
			w.set("turns", key+".turns")
		}
		for _, b := range d.get("prefix_buckets").list() {
			bucket := PrefixBucket{Weight: 100, Count: 1}
			if c := b.get("bucket_weight").count(); c.OK {
				bucket.Weight = int(c.N)
			}
			if c := b.get("prefix_count").count(); c.OK {
				bucket.Count = int(c.N)
			}
			if c := b.get("prefix_tokens").count(); c.OK {
				bucket.Tokens = int(c.N)
			}
			w.Prefixes = append(w.Prefixes, bucket)
			w.set("prefixes", key+".prefix_buckets")
		}
		if c := d.get("prefix_tokens").count(); c.OK && c.N > 0 && len(w.Prefixes) == 0 {
			w.Prefixes = []PrefixBucket{{Weight: 100, Count: 1, Tokens: int(c.N)}}
			w.set("prefixes", key+".prefix_tokens")
		}
		return
	}
	for _, k := range []string{"source", "path", "data_files", "name"} {
		if s := d.get(k).str(); s != "" {
			setStr(w, "dataset", key+"."+k, s)
			return
		}
	}
	if kind := d.get("kind").str(); kind != "" {
		w.Unsupported = append(w.Unsupported, Setting{Key: key + ".kind", Value: kind, Reason: "a data source gollm-bench cannot read"})
		setStr(w, "dataset", key+".kind", kind)
	}
}

// guideLLMSessionKeys takes the turns and prefix keys out of a synthetic
// spec string ("prompt_tokens=128,output_tokens=64,turns=2,
// prefix_tokens=16,prefix_count=4") into w, and returns the lengths
// alone, which --data reads.
func guideLLMSessionKeys(w *Workload, key, spec string) string {
	var keep []string
	bucket := PrefixBucket{Weight: 100, Count: 1}
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		switch strings.TrimSpace(k) {
		case "turns":
			if err == nil {
				w.Turns = Known(int64(n))
				w.set("turns", key+" turns")
			}
		case "prefix_tokens":
			if err == nil {
				bucket.Tokens = n
			}
		case "prefix_count":
			if err == nil {
				bucket.Count = n
			}
		default:
			keep = append(keep, kv)
		}
	}
	if bucket.Tokens > 0 {
		w.Prefixes = append(w.Prefixes, bucket)
		w.set("prefixes", key+" prefix_tokens")
	}
	return strings.Join(keep, ",")
}

// guideLLMTrim maps GuideLLM's --warmup/--cooldown (0.4–0.6: a fraction
// below 1, else seconds; null for none) onto our spelling.
func guideLLMTrim(v node) string {
	if v.v == nil {
		return "0"
	}
	x, ok := v.num().Get()
	switch {
	case !ok:
		return ""
	case x <= 0:
		return "0"
	case x < 1:
		return strconv.FormatFloat(x*100, 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(x, 'f', -1, 64) + "s"
}

// guideLLMTrimObj reads a benchmark config's {percent, value, mode}.
func guideLLMTrimObj(v node) string {
	if !v.isObj() {
		return ""
	}
	if p, ok := v.get("percent").num().Get(); ok && p > 0 {
		return strconv.FormatFloat(p*100, 'f', -1, 64) + "%"
	}
	if x, ok := v.get("value").num().Get(); ok && x > 0 {
		return guideLLMTrim(node{v: x})
	}
	return "0"
}

// guideLLMTrimPair reads 0.2–0.3's warmup_number / warmup_duration.
func guideLLMTrimPair(number, duration node) string {
	if c := number.count(); c.OK && c.N > 0 {
		return strconv.FormatInt(c.N, 10)
	}
	if d, ok := duration.num().Get(); ok && d > 0 {
		return strconv.FormatFloat(d, 'f', -1, 64) + "s"
	}
	if number.v == nil && duration.v == nil {
		return "0"
	}
	return ""
}

// guideLLMStats reads a GuideLLM DistributionSummary, scaling every figure
// by scale (1000 for seconds → ms).
func guideLLMStats(d node, scale float64) Stats {
	if !d.isObj() {
		return Stats{}
	}
	p := d.get("percentiles")
	p50 := p.get("p50").num()
	if !p50.OK {
		p50 = d.get("median").num()
	}
	return Stats{
		Mean: scaled(d.get("mean").num(), scale),
		P50:  scaled(p50, scale),
		P90:  scaled(p.get("p90").num(), scale),
		P95:  scaled(p.get("p95").num(), scale),
		P99:  scaled(p.get("p99").num(), scale),
		Std:  scaled(d.get("std_dev").num(), scale),
		N:    d.get("count").count(),
	}
}

func scaled(v Value, k float64) Value {
	if !v.OK || k == 1 {
		return v
	}
	return Some(v.V * k)
}

// label names a level for people from its load discipline.
func label(lv Level) string {
	capStr := ""
	if lv.MaxConcurrency > 0 {
		capStr = fmt.Sprintf(" (max %d)", lv.MaxConcurrency)
	}
	switch lv.Mode {
	case loadgen.ModeSynchronous:
		return "synchronous"
	case loadgen.ModeConcurrent:
		return fmt.Sprintf("concurrent %d", lv.Concurrency)
	case loadgen.ModeThroughput:
		return "throughput" + capStr
	case loadgen.ModeConstant, loadgen.ModePoisson:
		return fmt.Sprintf("%s %s req/s%s", lv.Mode, lv.Rate, capStr)
	}
	if lv.Rate.OK {
		return fmt.Sprintf("rate %s req/s%s", lv.Rate, capStr)
	}
	return "unknown load" + capStr
}
