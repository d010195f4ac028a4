package peer

import (
	"fmt"

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
	root := node{tree}
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
	return lv
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
