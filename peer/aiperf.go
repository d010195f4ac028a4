package peer

import (
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
// sum of error_summary counts (AIPerf counts cancelled requests as errors).
// In a GenAI-Perf non-streaming run TTFT equals request latency; it is
// dropped with a warning.
func ReadAIPerf(data []byte) (Result, error) {
	tree, err := decodeTree(data)
	if err != nil {
		return Result{}, &MismatchError{Format: aiperfFormat, Reason: err.Error()}
	}
	root := node{tree}
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
	if res.Tool == "GenAI-Perf" && root.get("input_config", "streaming").v == false && !lv.TTFT.Empty() {
		lv.TTFT, lv.Definitions.TTFT = Stats{}, Definition{}
		res.Warnings = append(res.Warnings, metrics.Warning{Code: WarnNonStreamingTTFT, Level: 0,
			Message: "GenAI-Perf non-streaming run: its time_to_first_token equals request latency, so TTFT is left out"})
	}
	res.Levels = []Level{lv}
	return res, nil
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
		conc, rate, modeHint = ph.get("concurrency").count(), ph.get("request_rate").num(), ph.get("type").str()
		if a := ph.get("arrival_pattern").str(); a != "" {
			modeHint = a
		}
		break
	}
	switch {
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
	}
}
