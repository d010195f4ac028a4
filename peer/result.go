package peer

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
)

// Value is a number that a result file may or may not carry. The zero Value
// is missing, so "absent" is never confused with a measured 0. Values are
// plain data, safe for concurrent reads. It encodes to JSON as a number, or
// null when missing.
type Value struct {
	V  float64 // the number; meaningless unless OK
	OK bool    // true when the file carried the number
}

// Some returns a present Value holding v. NaN and ±Inf are treated as missing.
func Some(v float64) Value {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Value{}
	}
	return Value{V: v, OK: true}
}

// Get returns the number and whether it is present.
func (v Value) Get() (float64, bool) { return v.V, v.OK }

// String formats v with up to 6 significant digits, or "—" when missing.
func (v Value) String() string {
	if !v.OK {
		return "—"
	}
	return strconv.FormatFloat(v.V, 'g', 6, 64)
}

// MarshalJSON encodes v as a number, or null when missing.
func (v Value) MarshalJSON() ([]byte, error) {
	if !v.OK {
		return []byte("null"), nil
	}
	return json.Marshal(v.V)
}

// UnmarshalJSON decodes a number, or null as missing.
func (v *Value) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = Value{}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*v = Some(f)
	return nil
}

// Count is a request count that a result file may or may not carry. The zero
// Count is missing. It encodes to JSON as an integer, or null when missing.
type Count struct {
	N  int64 // the count; meaningless unless OK
	OK bool  // true when the file carried the count
}

// Known returns a present Count holding n.
func Known(n int64) Count { return Count{N: n, OK: true} }

// String formats c, or "—" when missing.
func (c Count) String() string {
	if !c.OK {
		return "—"
	}
	return strconv.FormatInt(c.N, 10)
}

// MarshalJSON encodes c as an integer, or null when missing.
func (c Count) MarshalJSON() ([]byte, error) {
	if !c.OK {
		return []byte("null"), nil
	}
	return json.Marshal(c.N)
}

// UnmarshalJSON decodes an integer, or null as missing.
func (c *Count) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = Count{}
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*c = Known(n)
	return nil
}

// Bool is a yes/no fact that a result file may or may not state. The zero
// Bool is unknown. It encodes to JSON as true, false, or null when unknown.
type Bool struct {
	V  bool // the fact; meaningless unless OK
	OK bool // true when the file stated it
}

// Stated returns a known Bool holding v.
func Stated(v bool) Bool { return Bool{V: v, OK: true} }

// String is "yes", "no" or "—" when unknown.
func (b Bool) String() string {
	switch {
	case !b.OK:
		return "—"
	case b.V:
		return "yes"
	}
	return "no"
}

// MarshalJSON encodes b as a boolean, or null when unknown.
func (b Bool) MarshalJSON() ([]byte, error) {
	if !b.OK {
		return []byte("null"), nil
	}
	return json.Marshal(b.V)
}

// UnmarshalJSON decodes a boolean, or null as unknown.
func (b *Bool) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*b = Bool{}
		return nil
	}
	var v bool
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*b = Stated(v)
	return nil
}

// Stats summarises one distribution as a tool reported it: latencies in
// ms, lengths in tokens. Any statistic the tool did not write is missing
// (Value.OK false).
type Stats struct {
	Mean Value `json:"mean"`
	P50  Value `json:"p50"`
	P90  Value `json:"p90"`
	P95  Value `json:"p95"`
	P99  Value `json:"p99"`
	// Std is the standard deviation, in the same unit, where the tool
	// writes one (the tools differ on n or n − 1; at the sample sizes of a
	// benchmark the difference is negligible).
	Std Value `json:"std"`
	// N is the number of values summarised, where the tool says.
	N Count `json:"count"`
}

// Empty reports whether no statistic is present.
func (s Stats) Empty() bool { return !s.Mean.OK && !s.P50.OK && !s.P90.OK && !s.P95.OK && !s.P99.OK }

// Requests counts a level's requests by outcome, as the tool counted them
// (GuideLLM: request_totals; AIPerf: request_count, error_request_count;
// vLLM: completed, failed). Missing counts are not zero.
type Requests struct {
	Completed  Count `json:"completed"`  // finished successfully
	Failed     Count `json:"failed"`     // errored (AIPerf counts cancellations here)
	Incomplete Count `json:"incomplete"` // cut off at the level's end (GuideLLM only)
}

// ModeUnknown is the Mode of a level whose load discipline the file does not
// state, or states in a way that has no gollm-bench equivalent (a vLLM gamma
// arrival process, a GuideLLM trace replay).
const ModeUnknown loadgen.Mode = ""

// Level is one load level of a peer result, in the tool-neutral model.
// Metrics are mapped onto gollm-bench's definitions (docs/metrics.md) where
// the tool measures the same thing under another name: ITL always holds a
// per-request (E2E − TTFT)/(OSL − 1) figure and ICL the pooled gaps between
// chunks, so vLLM's mean_itl_ms lands in ICL and its mean_tpot_ms in ITL.
// Definitions records which of the tool's keys filled each field and what it
// means. A Level is plain data, safe for concurrent reads.
type Level struct {
	// Label names the level for people, e.g. "concurrent 4" or
	// "poisson 10 req/s (max 64)".
	Label string `json:"label"`
	// Mode is the load discipline (loadgen.Mode*, or ModeUnknown).
	Mode loadgen.Mode `json:"mode"`
	// Concurrency is N for closed-loop modes (1 for synchronous); 0 when not
	// closed-loop or unknown.
	Concurrency int `json:"concurrency,omitempty"`
	// MaxConcurrency caps requests in flight for rate and throughput modes;
	// 0 when none or unknown.
	MaxConcurrency int `json:"max_concurrency,omitempty"`
	// Rate is the offered arrival rate, req/s, for open-loop modes; missing
	// for closed-loop modes and for vLLM's request_rate "inf".
	Rate Value `json:"rate_req_s"`

	Requests Requests `json:"requests"`

	TTFT Stats `json:"ttft_ms"` // time to first token, ms
	ITL  Stats `json:"itl_ms"`  // per-request (E2E − TTFT)/(OSL − 1), ms; see Definitions.ITL for weighting
	ICL  Stats `json:"icl_ms"`  // gaps between consecutive token-carrying chunks, pooled, ms (vLLM's "ITL")
	TPOT Stats `json:"tpot_ms"` // the tool's own "time per output token", ms; see Definitions.TPOT
	E2E  Stats `json:"e2e_ms"`  // request latency, send to last token, ms

	// OutputTokPerSec is the output token throughput, tokens/s.
	OutputTokPerSec Value `json:"output_tok_s"`
	// ReqPerSec is the successful request throughput, req/s.
	ReqPerSec Value `json:"req_s"`
	// GoodputReqPerSec is the request-level goodput, req/s: successful
	// requests that met every per-request threshold of the tool's SLO
	// (vLLM request_goodput, AIPerf goodput), where the tool reports it.
	GoodputReqPerSec Value `json:"goodput_req_s"`
	// GoodputTokPerSec is the same goodput in output tokens/s (gollm-bench).
	GoodputTokPerSec Value `json:"goodput_tok_s"`

	// ISL and OSL are the achieved prompt and output lengths of the
	// successful requests, tokens: mean and spread where the tool reports
	// them.
	ISL Stats `json:"isl_tokens"`
	OSL Stats `json:"osl_tokens"`

	// Definitions says where each metric came from and what it means.
	Definitions Definitions `json:"definitions"`

	// TokensPerChunk is the mean number of output tokens a
	// token-carrying chunk carried: 1 for a server that streams token by
	// token, more with speculative decoding (about its acceptance length)
	// or a server that batches its stream. Missing when the file does not
	// say (gollm-bench's run.json: tokens_per_chunk; vLLM with
	// speculative decoding: spec_decode_acceptance_length).
	TokensPerChunk Value `json:"tokens_per_chunk"`
	// SpecDecode holds the speculative-decoding figures the file reports;
	// nil when it reports none.
	SpecDecode *SpecDecode `json:"spec_decode,omitempty"`

	// Samples holds one value per successful request, when the file holds
	// every request the level measured (AIPerf profile_export.jsonl, vLLM
	// per-request arrays, a GuideLLM file whose samples are complete, our
	// requests.jsonl). nil otherwise. Not written to JSON.
	Samples *Samples `json:"-"`
	// Summary is gollm-bench's own summary of the level, with its
	// histograms and batch counts, when the level comes from our run.json;
	// nil for a peer's level. Not written to JSON.
	Summary *metrics.Summary `json:"-"`
}

// Samples are per-request values of one level, in file order: only the
// successful requests, latencies in ms. A request without a value (ITL
// needs two output tokens) is left out of that slice.
type Samples struct {
	TTFT []float64 // time to first token, ms
	ITL  []float64 // (E2E − TTFT)/(OSL − 1), ms
	E2E  []float64 // request latency, ms
	// Source names where they came from, e.g. "profile_export.jsonl".
	Source string
}

// Headline holds a result's one-row figures, those of its scorecard:
// the knee and what the deployment delivers there. Every field is
// missing (or zero) when the result does not hold it; peers' files rarely
// do. Plain data.
type Headline struct {
	// KneeLevel indexes Result.Levels: the level the figures below
	// describe; -1 when there is none.
	KneeLevel int `json:"knee_level"`
	// Knee is the highest load that met the SLO, in KneeUnit ("req/s" or
	// "concurrency"), with its bracket [last passing, first failing]
	// load; Bracket.Hi is +Inf when no level failed (knee not reached).
	Knee     Value          `json:"knee"`
	KneeUnit string         `json:"knee_unit,omitempty"`
	Bracket  stats.Interval `json:"knee_bracket,omitzero"`
	// GoodputTokPerSec is the knee level's goodput, tokens/s, with its
	// 95 % interval.
	GoodputTokPerSec   Value          `json:"goodput_tok_s"`
	GoodputTokPerSecCI stats.Interval `json:"goodput_tok_s_ci,omitzero"`
	// CPM is the cost per 1M output tokens at goodput, in Currency.
	CPM      Value          `json:"cpm_eur_1m"`
	CPMCI    stats.Interval `json:"cpm_eur_1m_ci,omitzero"`
	Currency string         `json:"currency,omitempty"`
	// WhPerToken is the GPU energy per output token, Wh.
	WhPerToken   Value          `json:"wh_per_token"`
	WhPerTokenCI stats.Interval `json:"wh_per_token_ci,omitzero"`
	// TTFTP99 and ITLP95 are the knee level's, ms.
	TTFTP99   Value          `json:"ttft_p99_ms"`
	TTFTP99CI stats.Interval `json:"ttft_p99_ms_ci,omitzero"`
	ITLP95    Value          `json:"itl_p95_ms"`
	ITLP95CI  stats.Interval `json:"itl_p95_ms_ci,omitzero"`
	// Goodput and energy as per-level constants, for decisions on CPM and
	// Wh/token: CPM = CostK / goodput tok/s and Wh/token = EnergyK /
	// output tok/s at the knee level. 0 when unknown.
	CostK   float64 `json:"-"`
	EnergyK float64 `json:"-"`
}

// Result is one peer result file in the tool-neutral model. It is plain data,
// safe for concurrent reads.
type Result struct {
	// Tool is the producing tool: "GuideLLM", "AIPerf", "GenAI-Perf", "vLLM"
	// (or "gollm-bench" for our own run.json, read by a Reader the caller
	// supplies).
	Tool string `json:"tool"`
	// ToolVersion is the tool's version as the file states it; empty when the
	// file does not say.
	ToolVersion string `json:"tool_version,omitempty"`
	// Layout names the file layout that was recognised, e.g.
	// "benchmarks.json, metadata v1 (GuideLLM 0.5–0.6)".
	Layout string `json:"layout"`
	// File is the name the result was read from.
	File string `json:"file"`
	// Levels are the file's load levels, in file order.
	Levels []Level `json:"levels"`
	// Workload is what the file says about the load beyond each level's
	// discipline: endpoint, streaming, lengths, limits, SLO.
	Workload Workload `json:"workload"`
	// Headline holds the scorecard figures where the result has them.
	Headline Headline `json:"headline"`
	// Warnings are caveats found while reading (data, never printed by peer).
	Warnings []metrics.Warning `json:"warnings,omitempty"`
}

// SpecDecode is what a result reports of the server's speculative
// decoding (vLLM's spec_decode_* keys, read from the server's metrics).
type SpecDecode struct {
	// AcceptanceRate is the fraction of draft tokens accepted (0.72 for
	// vLLM's 72.0).
	AcceptanceRate Value `json:"acceptance_rate"`
	// AcceptanceLength is the mean number of tokens a decode step yields:
	// 1 + the accepted draft tokens per draft.
	AcceptanceLength Value `json:"acceptance_length"`
	// Drafts, DraftTokens and AcceptedTokens are the server's counts.
	Drafts         Count `json:"drafts"`
	DraftTokens    Count `json:"draft_tokens"`
	AcceptedTokens Count `json:"accepted_tokens"`
}
