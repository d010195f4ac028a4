package peer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
)

const vllmFormat = "vLLM serving benchmark result"

// ReadVLLM is the Reader for vLLM's serving benchmark results: the flat JSON
// object written by benchmarks/benchmark_serving.py --save-result and by
// `vllm bench serve --save-result` (one Level), and the JSON list of such
// objects that `vllm bench sweep serve` writes as summary.json (one Level
// each). Mapping, so that like meets like:
//
//   - TTFT ← {mean,median,p90,p95,p99}_ttft_ms.
//   - ITL ← *_tpot_ms: vLLM's TPOT is per request (E2E − TTFT)/(OSL − 1),
//     which is our ITL. TPOT holds the same figures.
//   - ICL ← *_itl_ms: vLLM's ITL is every gap between chunks, pooled — our
//     ICL.
//   - E2E ← *_e2el_ms (only with --percentile-metrics including e2el).
//   - OutputTokPerSec ← output_throughput; ReqPerSec ← request_throughput.
//   - Completed ← completed; Failed ← failed, or the number of non-empty
//     `errors` entries in legacy files.
//
// A file with completed == 0 reports 0.0 for every metric; those zeros are
// not measurements, so latencies and throughputs are left missing and a
// warning is added.
func ReadVLLM(data []byte) (Result, error) {
	tree, err := decodeTree(data)
	if err != nil {
		return Result{}, &MismatchError{Format: vllmFormat, Reason: err.Error()}
	}
	var check fieldCheck
	root := strictNode(tree, &check)
	res := Result{Tool: "vLLM"}
	var objs []node
	switch {
	case root.isObj():
		objs = []node{root}
	case root.isList():
		objs = root.list()
		res.Layout = "vllm bench sweep serve summary.json"
	}
	if len(objs) == 0 || !isVLLM(objs[0]) {
		return Result{}, &MismatchError{Format: vllmFormat, Reason: "no `completed` count with `mean_ttft_ms`, `output_throughput` or `request_throughput`"}
	}
	if res.Layout == "" {
		switch {
		case root.has("request_goodput:") || root.has("best_of"):
			res.Layout = "benchmark_serving.py save_result JSON (legacy)"
		case root.has("run_number"):
			res.Layout = "vllm bench sweep serve run=N.json"
		default:
			res.Layout = "vllm bench serve save_result JSON"
		}
	}
	res.Workload = vllmWorkload(objs[0])
	for i, o := range objs {
		if !isVLLM(o) {
			return Result{}, fmt.Errorf("vLLM sweep summary entry %d: no `completed` count with `mean_ttft_ms`, `output_throughput` or `request_throughput`", i)
		}
		lv, warn := vllmLevel(i, o)
		if warn != nil {
			res.Warnings = append(res.Warnings, *warn)
		}
		res.Levels = append(res.Levels, lv)
	}
	return res, check.err()
}

func isVLLM(o node) bool {
	return o.has("completed") && (o.has("mean_ttft_ms") || o.has("output_throughput") || o.has("request_throughput"))
}

func vllmLevel(i int, o node) (Level, *metrics.Warning) {
	var lv Level
	rate := o.get("request_rate").loose()
	r := rate.num()
	if s := strings.ToLower(rate.str()); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			r = Some(f) // "inf" parses to +Inf, which Some treats as missing
		}
	}
	maxConc := o.get("max_concurrency").count()
	switch {
	case r.OK && r.V > 0:
		lv.Rate = r
		lv.Mode = loadgen.ModePoisson // burstiness 1: Poisson arrivals
		if b, ok := o.get("burstiness").num().Get(); ok && math.Abs(b-1) > 1e-9 {
			lv.Mode = ModeUnknown // gamma arrivals: no gollm-bench equivalent
		}
		if maxConc.OK && maxConc.N > 0 {
			lv.MaxConcurrency = int(maxConc.N)
		}
	case maxConc.OK && maxConc.N == 1:
		lv.Mode, lv.Concurrency = loadgen.ModeSynchronous, 1
	case maxConc.OK && maxConc.N > 1:
		lv.Mode, lv.Concurrency = loadgen.ModeConcurrent, int(maxConc.N)
	default: // infinite rate, no cap: every request at once
		lv.Mode = loadgen.ModeThroughput
	}
	lv.Label = label(lv)
	if d := o.get("date").str(); d != "" {
		lv.Label += " @" + d
	}

	lv.Requests.Completed = o.get("completed").count()
	lv.Requests.Failed = o.get("failed").count()
	if !lv.Requests.Failed.OK && o.get("errors").isList() {
		var n int64
		for _, e := range o.get("errors").list() {
			if e.str() != "" {
				n++
			}
		}
		lv.Requests.Failed = Known(n)
	}
	if lv.Requests.Completed.OK && lv.Requests.Completed.N == 0 {
		return lv, &metrics.Warning{Code: WarnNoSuccessfulRequests, Level: i,
			Message: fmt.Sprintf("vLLM level %q completed no request (failed: %s); its 0.0 metrics are not measurements and are left out", lv.Label, lv.Requests.Failed)}
	}

	n := lv.Requests.Completed
	stats := func(metric string) (Stats, string) {
		med := o.get("median_" + metric + "_ms").num()
		if !med.OK {
			med = o.get("p50_" + metric + "_ms").num()
		}
		st := Stats{
			Mean: o.get("mean_" + metric + "_ms").num(),
			P50:  med,
			P90:  o.get("p90_" + metric + "_ms").num(),
			P95:  o.get("p95_" + metric + "_ms").num(),
			P99:  o.get("p99_" + metric + "_ms").num(),
			Std:  o.get("std_" + metric + "_ms").num(),
		}
		if metric != "itl" && !st.Empty() {
			st.N = n // one value per completed request (ICL pools chunk gaps)
		}
		return st, "*_" + metric + "_ms"
	}
	var s string
	if lv.TTFT, s = stats("ttft"); !lv.TTFT.Empty() {
		lv.Definitions.TTFT = Definition{Source: s, Kind: KindTTFT}
	}
	if lv.ITL, s = stats("tpot"); !lv.ITL.Empty() {
		lv.TPOT = lv.ITL
		lv.Definitions.ITL = Definition{Source: s, Kind: KindITLPerRequest, Name: "TPOT"}
		lv.Definitions.TPOT = Definition{Source: s, Kind: KindITLPerRequest}
	}
	if lv.ICL, s = stats("itl"); !lv.ICL.Empty() {
		lv.Definitions.ICL = Definition{Source: s, Kind: KindICL, Name: "ITL"}
	}
	if lv.E2E, s = stats("e2el"); !lv.E2E.Empty() {
		lv.Definitions.E2E = Definition{Source: s, Kind: KindE2E}
	}
	if lv.OutputTokPerSec = o.get("output_throughput").num(); lv.OutputTokPerSec.OK {
		lv.Definitions.OutputTokPerSec = Definition{Source: "output_throughput", Kind: KindTokPerSecWindow}
	}
	if lv.ReqPerSec = o.get("request_throughput").num(); lv.ReqPerSec.OK {
		lv.Definitions.ReqPerSec = Definition{Source: "request_throughput", Kind: KindReqPerSecWindow}
	}
	lv.GoodputReqPerSec = o.get("request_goodput").num()
	if !lv.GoodputReqPerSec.OK {
		lv.GoodputReqPerSec = o.get("request_goodput:").num() // the legacy key's typo
	}
	lv.ISL = vllmLengths(o, "input_lens", "total_input_tokens", n)
	lv.OSL = vllmLengths(o, "output_lens", "total_output_tokens", n)
	lv.Samples = vllmSamples(o)
	if sd := vllmSpecDecode(o); sd != nil {
		lv.SpecDecode = sd
		lv.TokensPerChunk = sd.AcceptanceLength
	}
	return lv, nil
}

// vllmSpecDecode reads the spec_decode_* keys `vllm bench serve` writes
// when the server runs speculative decoding: acceptance rate (%),
// acceptance length (tokens per step) and the draft counts; nil when
// none is present. A rate outside [0, 100] % or a length below 1 token
// is recorded in o's check.
func vllmSpecDecode(o node) *SpecDecode {
	sd := SpecDecode{
		AcceptanceRate:   o.get("spec_decode_acceptance_rate").num(),
		AcceptanceLength: o.get("spec_decode_acceptance_length").num(),
		Drafts:           o.get("spec_decode_num_drafts").count(),
		DraftTokens:      o.get("spec_decode_draft_tokens").count(),
		AcceptedTokens:   o.get("spec_decode_accepted_tokens").count(),
	}
	if r := sd.AcceptanceRate; r.OK && !(r.V >= 0 && r.V <= 100) && o.check != nil {
		o.check.add(o.get("spec_decode_acceptance_rate").path, fmt.Sprintf("is %g; an acceptance rate lies in [0, 100] %%", r.V))
	}
	if l := sd.AcceptanceLength; l.OK && !(l.V >= 1 && l.V <= 1e6) && o.check != nil {
		o.check.add(o.get("spec_decode_acceptance_length").path, fmt.Sprintf("is %g; a decode step yields at least 1 token", l.V))
	}
	if sd.AcceptanceRate.OK {
		sd.AcceptanceRate.V /= 100
	}
	if !sd.AcceptanceRate.OK && !sd.AcceptanceLength.OK && !sd.Drafts.OK {
		return nil
	}
	return &sd
}

// vllmLengths reads a level's achieved lengths: the per-request list when
// saved (--save-detailed, or the legacy script), else total / completed.
func vllmLengths(o node, list, total string, n Count) Stats {
	var vals []float64
	errs := o.get("errors").list()
	for i, v := range o.get(list).list() {
		if i < len(errs) && errs[i].str() != "" {
			continue
		}
		if x, ok := v.num().Get(); ok {
			vals = append(vals, x)
		}
	}
	if len(vals) > 0 {
		return statsOf(vals)
	}
	t, ok := o.get(total).num().Get()
	if !ok || !n.OK || n.N <= 0 {
		return Stats{}
	}
	return Stats{Mean: Some(t / float64(n.N)), N: n}
}

// vllmSamples reads the per-request arrays of a detailed result (ttfts and
// itls in seconds), successful requests only: TTFT, E2E = TTFT + Σ gaps,
// and ITL = Σ gaps / (OSL − 1).
func vllmSamples(o node) *Samples {
	ttfts := o.get("ttfts").list()
	if len(ttfts) == 0 {
		return nil
	}
	itls, outs, errs := o.get("itls").list(), o.get("output_lens").list(), o.get("errors").list()
	s := &Samples{Source: "vLLM ttfts/itls"}
	for i, t := range ttfts {
		if i < len(errs) && errs[i].str() != "" {
			continue
		}
		ttft, ok := t.num().Get()
		if !ok {
			continue
		}
		s.TTFT = append(s.TTFT, ttft*1000)
		if i >= len(itls) {
			continue
		}
		var sum float64
		for _, g := range itls[i].list() {
			v, _ := g.num().Get()
			sum += v
		}
		s.E2E = append(s.E2E, (ttft+sum)*1000)
		if i < len(outs) {
			if osl, ok := outs[i].num().Get(); ok && osl >= 2 {
				s.ITL = append(s.ITL, sum*1000/(osl-1))
			}
		}
	}
	if len(s.TTFT) == 0 {
		return nil
	}
	return s
}

// statsOf summarises values: mean, sample standard deviation, count, and
// the nearest-rank percentiles.
func statsOf(vals []float64) Stats {
	s := stats.NewSorted(vals)
	if s.Len() == 0 {
		return Stats{}
	}
	mean, sd := stats.MeanSD(s)
	return Stats{
		Mean: Some(mean), Std: Some(sd), N: Known(s.Len()),
		P50: Some(stats.Quantile(s, 0.50)), P90: Some(stats.Quantile(s, 0.90)),
		P95: Some(stats.Quantile(s, 0.95)), P99: Some(stats.Quantile(s, 0.99)),
	}
}

// vllmWorkload reads what a vLLM result says about its load.
func vllmWorkload(o node) Workload {
	var w Workload
	ep := o.get("endpoint_type").str()
	key := "endpoint_type"
	if ep == "" {
		ep, key = o.get("backend").str(), "backend"
	}
	switch {
	case strings.Contains(ep, "chat"):
		setStr(&w, "endpoint", key, "chat")
	case ep == "openai" || ep == "vllm":
		setStr(&w, "endpoint", key, "completions")
	case ep != "":
		setStr(&w, "endpoint", key, ep)
	}
	if ep != "" {
		w.Stream = Stated(true) // vLLM's serving benchmark streams every request
		w.set("stream", key)
	}
	setStr(&w, "model", "model_id", o.get("model_id").str())
	if t := o.get("tokenizer_id").str(); t != "" {
		setStr(&w, "tokenizer", "tokenizer_id", t)
	}
	if c := o.get("num_prompts").count(); c.OK {
		w.MaxRequests = c
		w.set("max_requests", "num_prompts")
	}
	w.Warmup, w.Cooldown = "0", "0" // every request is measured
	w.set("warmup", "num_prompts")
	return w
}
