package peer

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
)

const inferencePerfFormat = "inference-perf lifecycle report"

// KindTokenGaps: every gap between consecutive output tokens, pooled over
// requests, where a chunk of several tokens gives gaps of a few
// microseconds between its tokens (inference-perf inter_token_latency,
// from one timestamp per output token). Not gollm-bench's ICL, which
// counts one gap per chunk: with several tokens a chunk the two differ.
const KindTokenGaps Kind = "token_gaps_pooled"

// UnsupportedError is returned by a Reader for a file it recognises as a
// known tool's output that gollm-bench does not read: Read stops there
// and reports it, rather than listing every format tried.
type UnsupportedError struct {
	// Tool and Version name the producer; Version is "" when the file
	// does not state it.
	Tool, Version string
	// What names the file kind ("prometheus_metrics.json") and Fix what
	// to give instead.
	What, Fix string
}

// Error implements error: "inference-perf (version not stated in the
// file) stage_N_prometheus_metrics.json is not supported: ...".
func (e *UnsupportedError) Error() string {
	v := e.Version
	if v == "" {
		v = "version not stated in the file"
	}
	return fmt.Sprintf("%s (%s) %s is not supported: %s", e.Tool, v, e.What, e.Fix)
}

// ReadInferencePerf is the Reader for the reports of inference-perf
// (kubernetes-sigs/inference-perf, the Kubernetes serving working
// group's benchmark): stage_N_lifecycle_metrics.json (one load stage: one
// Level at its requested_rate, or, for a concurrent stage, whose
// load_summary states a concurrency (0.7+), at that concurrency) and summary_lifecycle_metrics.json (every
// stage pooled: one Level whose load is not stated). Latencies are in
// seconds in the file, ms here. Mapping:
//
//   - TTFT ← successes.latency.time_to_first_token (streamed requests).
//   - ITL ← time_per_output_token, which inference-perf calls TPOT: per
//     request (last token − first token)/(output tokens − 1), our ITL.
//     TPOT holds the same figures.
//   - ICL ← inter_token_latency, marked KindTokenGaps: inference-perf
//     pools the gaps between consecutive tokens, so the tokens of one
//     chunk add gaps of microseconds; it is not compared like for like.
//   - E2E ← request_latency; normalized_time_per_output_token (E2E / OSL)
//     is not read.
//   - OutputTokPerSec, ReqPerSec ← successes.throughput; ISL ←
//     prompt_len (or prompt_tokens); OSL ← output_tokens (0.7+: the
//     server's usage count) or else output_len (the client's
//     re-tokenisation of the text).
//   - Completed ← successes.count, Failed ← failures.count.
//
// inference-perf's per-request and Prometheus reports are refused with an
// *UnsupportedError.
func ReadInferencePerf(data []byte) (Result, error) {
	tree, err := decodeTree(data)
	if err != nil {
		return Result{}, &MismatchError{Format: inferencePerfFormat, Reason: err.Error()}
	}
	var check fieldCheck
	root := strictNode(tree, &check)
	succ := root.get("successes")
	if !root.isObj() || !root.has("load_summary") || !succ.isObj() {
		if l := root.list(); len(l) > 0 && l[0].has("start_time") && l[0].has("end_time") && l[0].has("request") && l[0].has("info") {
			return Result{}, &UnsupportedError{Tool: "inference-perf", What: "per_request_lifecycle_metrics.json",
				Fix: "give its stage_N_lifecycle_metrics.json or summary_lifecycle_metrics.json, which hold the same requests' summaries"}
		}
		return Result{}, &MismatchError{Format: inferencePerfFormat, Reason: "no `load_summary` and `successes` objects"}
	}
	if !succ.get("latency").isObj() {
		if succ.has("time_to_first_token") || succ.has("request_latency") {
			return Result{}, &UnsupportedError{Tool: "inference-perf", What: "prometheus_metrics.json (the model server's own histograms scraped from Prometheus, not the client's measurements)",
				Fix: "give the lifecycle_metrics.json of the same stage"}
		}
		return Result{}, &MismatchError{Format: inferencePerfFormat, Reason: "no `successes.latency` object"}
	}
	res := Result{Tool: "inference-perf"}
	load := root.get("load_summary")
	var lv Level
	lv.Mode = ModeUnknown // constant or poisson arrivals: the report does not say
	rate := load.get("requested_rate")
	if r := rate.num(); r.OK && !(r.V > 0) {
		check.add(rate.path, fmt.Sprintf("is %g; a requested rate is positive (req/s)", r.V))
	}
	if c := load.get("concurrency").count(); c.OK && c.N > 0 {
		// A concurrent stage (load.type concurrent, 0.7+): N requests
		// kept in flight until num_requests were sent. Its
		// requested_rate is not a load: inference-perf fills it in
		// with num_requests / duration to size its scheduler.
		res.Layout = "stage_N_lifecycle_metrics.json (one load stage)"
		lv.Mode, lv.Concurrency = loadgen.ModeConcurrent, int(c.N)
		lv.Label = "stage at concurrency " + strconv.Itoa(int(c.N))
	} else if r := rate.num(); r.OK && r.V > 0 {
		res.Layout = "stage_N_lifecycle_metrics.json (one load stage)"
		lv.Rate = r
		lv.Label = "stage at " + strconv.FormatFloat(r.V, 'g', 6, 64) + " req/s"
	} else {
		res.Layout = "summary_lifecycle_metrics.json (every stage pooled)"
		lv.Label = "all stages"
		res.Warnings = append(res.Warnings, metrics.Warning{Code: WarnLoadNotStated,
			Message: "inference-perf summary_lifecycle_metrics.json pools every stage, so it states no load; give the stage_N_lifecycle_metrics.json files (or their folder) to compare stage by stage"})
	}
	if c := load.get("count").count(); c.OK {
		res.Workload.MaxRequests = c
		res.Workload.set("max_requests", "load_summary.count")
	}
	lv.Requests.Completed = succ.get("count").count()
	lv.Requests.Failed = root.get("failures", "count").count()
	n := lv.Requests.Completed
	if n.OK && n.N == 0 {
		res.Warnings = append(res.Warnings, metrics.Warning{Code: WarnNoSuccessfulRequests,
			Message: fmt.Sprintf("inference-perf %s: no successful request (failures: %s); its figures are not measurements and are left out", lv.Label, lv.Requests.Failed)})
		res.Levels = []Level{lv}
		return res, check.err()
	}
	lat := succ.get("latency")
	seconds := func(key string, perRequest bool) Stats {
		st := inferencePerfStats(lat.get(key), 1000)
		if perRequest && !st.Empty() {
			st.N = n
		}
		return st
	}
	if lv.TTFT = seconds("time_to_first_token", false); !lv.TTFT.Empty() {
		lv.Definitions.TTFT = Definition{Source: "successes.latency.time_to_first_token", Kind: KindTTFT}
		res.Workload.Stream = Stated(true) // TTFT is measured on streamed requests only
		res.Workload.set("stream", "successes.latency.time_to_first_token")
	}
	if lv.ITL = seconds("time_per_output_token", false); !lv.ITL.Empty() {
		lv.TPOT = lv.ITL
		lv.Definitions.ITL = Definition{Source: "successes.latency.time_per_output_token", Kind: KindITLPerRequest, Name: "TPOT"}
		lv.Definitions.TPOT = Definition{Source: "successes.latency.time_per_output_token", Kind: KindITLPerRequest}
	}
	if lv.ICL = seconds("inter_token_latency", false); !lv.ICL.Empty() {
		lv.Definitions.ICL = Definition{Source: "successes.latency.inter_token_latency", Kind: KindTokenGaps, Name: "ITL"}
	}
	if lv.E2E = seconds("request_latency", true); !lv.E2E.Empty() {
		lv.Definitions.E2E = Definition{Source: "successes.latency.request_latency", Kind: KindE2E}
	}
	tp := succ.get("throughput")
	if lv.OutputTokPerSec = tp.get("output_tokens_per_sec").num(); lv.OutputTokPerSec.OK {
		lv.Definitions.OutputTokPerSec = Definition{Source: "successes.throughput.output_tokens_per_sec", Kind: KindTokPerSecWindow}
	}
	if lv.ReqPerSec = tp.get("requests_per_sec").num(); lv.ReqPerSec.OK {
		lv.Definitions.ReqPerSec = Definition{Source: "successes.throughput.requests_per_sec", Kind: KindReqPerSecWindow}
	}
	lv.ISL = inferencePerfStats(succ.get("prompt_len"), 1)
	if lv.ISL.Empty() {
		lv.ISL = inferencePerfStats(succ.get("prompt_tokens"), 1)
	}
	// 0.7+ states the server's own count (usage, with the client's count
	// for a request the server did not count) beside output_len, the
	// client's re-tokenisation of the text: re-tokenised text is not the
	// tokens the server generated (a random model's text re-tokenises to
	// more), so the server's count is the OSL.
	if lv.OSL = inferencePerfStats(succ.get("output_tokens"), 1); lv.OSL.Empty() {
		lv.OSL = inferencePerfStats(succ.get("output_len"), 1)
	}
	if !lv.ISL.Empty() {
		lv.ISL.N = n
	}
	if !lv.OSL.Empty() {
		lv.OSL.N = n
	}
	res.Workload.Warmup, res.Workload.Cooldown = "0", "0" // every request of a stage is reported
	res.Workload.set("warmup", "load_summary.count")
	res.Levels = []Level{lv}
	return res, check.err()
}

// inferencePerfStats reads one of inference-perf's summaries (mean,
// median, p90, p95, p99, ...), scaling each by k (1000: s to ms). A
// null summary (no value) is empty.
func inferencePerfStats(o node, k float64) Stats {
	get := func(key string) Value {
		v := o.get(key).num()
		if v.OK {
			v.V *= k
		}
		return v
	}
	return Stats{Mean: get("mean"), P50: get("median"), P90: get("p90"), P95: get("p95"), P99: get("p99")}
}

// inferencePerfRunConfig completes res, an inference-perf report read
// from a file in folder dir, from the config.yaml that inference-perf
// (0.7+) writes beside its reports: the run's resolved configuration.
// The stage report states neither the arrival process nor the request
// settings; the config does, for every stage of the run: load.type
// (constant, poisson or concurrent) settles the arrival process of the
// stage levels, api.type the endpoint (completion or chat), api.streaming
// the streaming, server.model_name the model, server.ignore_eos the
// ignore_eos, load.base_seed the seed and
// tokenizer.pretrained_model_name_or_path the tokenizer. A missing or
// unreadable config changes nothing.
func inferencePerfRunConfig(res *Result, dir string) {
	if res.Tool != "inference-perf" {
		return
	}
	b, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil || len(b) > MaxFileBytes {
		return
	}
	tree, err := decodeTree(b)
	if err != nil {
		return
	}
	cfg := node{v: tree}
	w := &res.Workload
	switch t := cfg.get("api", "type").str(); t {
	case "completion":
		setStr(w, "endpoint", "config.yaml api.type", "completions")
	case "chat":
		setStr(w, "endpoint", "config.yaml api.type", "chat")
	case "":
	default:
		setStr(w, "endpoint", "config.yaml api.type", t)
	}
	if v, ok := cfg.get("api", "streaming").v.(bool); ok {
		w.Stream = Stated(v)
		w.set("stream", "config.yaml api.streaming")
	}
	if m := cfg.get("server", "model_name").str(); m != "" {
		setStr(w, "model", "config.yaml server.model_name", m)
	}
	if v, ok := cfg.get("server", "ignore_eos").v.(bool); ok {
		w.IgnoreEOS = Stated(v)
		w.set("ignore_eos", "config.yaml server.ignore_eos")
	}
	if c := cfg.get("load", "base_seed").count(); c.OK {
		w.Seed = c
		w.set("seed", "config.yaml load.base_seed")
	}
	if t := cfg.get("tokenizer", "pretrained_model_name_or_path").str(); t != "" {
		setStr(w, "tokenizer", "config.yaml tokenizer.pretrained_model_name_or_path", t)
	}
	var mode loadgen.Mode
	switch cfg.get("load", "type").str() {
	case "constant":
		mode = loadgen.ModeConstant
	case "poisson":
		mode = loadgen.ModePoisson
	case "concurrent":
		// The stages state their concurrency; the run's profile is
		// concurrent when every stage read is.
		for _, lv := range res.Levels {
			if lv.Mode != loadgen.ModeConcurrent {
				return
			}
		}
		if len(res.Levels) > 0 && res.Workload.Profile == "" {
			setStr(w, "profile", "config.yaml load.type", string(loadgen.ModeConcurrent))
		}
		return
	default:
		return // trace replay has no equivalent
	}
	for i := range res.Levels {
		if lv := &res.Levels[i]; lv.Mode == ModeUnknown && lv.Rate.OK {
			lv.Mode = mode
			res.Workload.Profile = string(mode)
			res.Workload.set("profile", "config.yaml load.type")
		}
	}
}
