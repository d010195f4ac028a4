package peer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
)

const recordsFormat = "AIPerf profile_export.jsonl"

// ReadAIPerfRecords is the Reader for AIPerf's per-request export,
// profile_export.jsonl: one JSON object per line, {"metadata": {...,
// "credit_phase"}, "metrics": {tag: {"value", "unit"}}, "error": null |
// {code, type, message}}. It gives one Level whose Samples hold every
// successful request's TTFT, ITL and E2E, and whose statistics are
// computed from them (nearest-rank percentiles, as gollm-bench's); ICL
// pools every request's inter_chunk_latency list. Only the "profiling"
// phase counts (warm-up records are skipped). A record with an error is a
// failure, except AIPerf's deliberate cancellations (type
// RequestCancellationError), which are incomplete, as gollm-bench counts a
// request cut off on purpose. Throughputs are over the span from the
// first request sent to the last response (min_request_timestamp,
// max_response_timestamp). The file holds no load settings: Mode is
// ModeUnknown; ReadDir attaches the samples to the JSON export of the
// same run instead.
func ReadAIPerfRecords(data []byte) (Result, error) {
	first := firstLine(data)
	var probe map[string]json.RawMessage
	if len(first) == 0 || first[0] != '{' || json.Unmarshal(first, &probe) != nil {
		return Result{}, &MismatchError{Format: recordsFormat, Reason: "the first line is not a JSON object"}
	}
	_, hasMeta := probe["metadata"]
	_, hasMetrics := probe["metrics"]
	_, hasErr := probe["error"]
	if !hasMeta || !(hasMetrics || hasErr) {
		return Result{}, &MismatchError{Format: recordsFormat, Reason: "the first line has no `metadata` with `metrics` or `error`"}
	}
	type metric struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	}
	type record struct {
		Metadata struct {
			Phase string `json:"credit_phase"`
		} `json:"metadata"`
		Metrics map[string]metric `json:"metrics"`
		Error   *struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	var (
		s                   = &Samples{Source: "profile_export.jsonl"}
		icl, isl, osl       []float64
		ok, failed, cut     int64
		firstSent, lastDone = math.Inf(1), math.Inf(-1)
		outTokens           float64
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxFileBytes)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var rec record
		if err := json.Unmarshal(b, &rec); err != nil {
			return Result{}, &ParseError{Format: recordsFormat, Line: line, Msg: "not a JSON record: " + err.Error()}
		}
		if rec.Metadata.Phase != "" && rec.Metadata.Phase != "profiling" {
			continue
		}
		if rec.Error != nil {
			if rec.Error.Type == "RequestCancellationError" {
				cut++
			} else {
				failed++
			}
			continue
		}
		num := func(tag string) (float64, bool) {
			m, found := rec.Metrics[tag]
			if !found {
				return 0, false
			}
			var v float64
			if json.Unmarshal(m.Value, &v) != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, false
			}
			return v * toMillis(m.Unit), true
		}
		ok++
		if v, found := num("ttft"); found {
			s.TTFT = append(s.TTFT, v)
		} else if v, found := num("time_to_first_token"); found {
			s.TTFT = append(s.TTFT, v)
		}
		if v, found := num("inter_token_latency"); found {
			s.ITL = append(s.ITL, v)
		}
		if v, found := num("request_latency"); found {
			s.E2E = append(s.E2E, v)
		}
		if m, found := rec.Metrics["inter_chunk_latency"]; found {
			var gaps []float64
			if json.Unmarshal(m.Value, &gaps) == nil {
				k := toMillis(m.Unit)
				for _, g := range gaps {
					icl = append(icl, g*k)
				}
			}
		}
		if m, found := rec.Metrics["input_sequence_length"]; found {
			var v float64
			if json.Unmarshal(m.Value, &v) == nil {
				isl = append(isl, v)
			}
		}
		if m, found := rec.Metrics["output_sequence_length"]; found {
			var v float64
			if json.Unmarshal(m.Value, &v) == nil {
				osl = append(osl, v)
				outTokens += v
			}
		}
		for tag, dst := range map[string]*float64{"min_request_timestamp": &firstSent, "max_response_timestamp": &lastDone} {
			m, found := rec.Metrics[tag]
			var v float64
			if !found || json.Unmarshal(m.Value, &v) != nil {
				continue
			}
			v /= 1e9 // ns → s
			if tag == "min_request_timestamp" {
				*dst = math.Min(*dst, v)
			} else {
				*dst = math.Max(*dst, v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Result{}, &ParseError{Format: recordsFormat, Line: line + 1, Msg: err.Error()}
	}
	lv := Level{Mode: ModeUnknown, Samples: s}
	lv.Label = label(lv)
	lv.Requests = Requests{Completed: Known(ok), Failed: Known(failed), Incomplete: Known(cut)}
	lv.TTFT, lv.ITL, lv.E2E, lv.ICL = statsOf(s.TTFT), statsOf(s.ITL), statsOf(s.E2E), statsOf(icl)
	lv.ISL, lv.OSL = statsOf(isl), statsOf(osl)
	lv.ICL.N = Count{} // pooled gaps, not requests
	lv.Definitions = Definitions{
		TTFT: defIf(lv.TTFT, "metrics.ttft", KindTTFT),
		ITL:  defIf(lv.ITL, "metrics.inter_token_latency", KindITLPerRequest),
		ICL:  defIf(lv.ICL, "metrics.inter_chunk_latency", KindICL),
		E2E:  defIf(lv.E2E, "metrics.request_latency", KindE2E),
	}
	if span := lastDone - firstSent; span > 0 && !math.IsInf(span, 0) {
		lv.OutputTokPerSec = Some(outTokens / span)
		lv.ReqPerSec = Some(float64(ok) / span)
		lv.Definitions.OutputTokPerSec = Definition{Source: "Σ output_sequence_length / (max_response_timestamp − min_request_timestamp)", Kind: KindTokPerSecWindow}
		lv.Definitions.ReqPerSec = Definition{Source: "records / (max_response_timestamp − min_request_timestamp)", Kind: KindReqPerSecWindow}
	}
	res := Result{Tool: "AIPerf", Layout: "profile_export.jsonl (per request)", Levels: []Level{lv}}
	if line == 0 || ok+failed+cut == 0 {
		res.Warnings = append(res.Warnings, metrics.Warning{Code: WarnNoRecords, Level: 0, Message: "the per-request export holds no profiling record"})
	}
	return res, nil
}

func defIf(s Stats, source string, k Kind) Definition {
	if s.Empty() {
		return Definition{}
	}
	return Definition{Source: source, Kind: k}
}

// toMillis converts AIPerf's time units to ms; 1 for other units.
func toMillis(unit string) float64 {
	switch strings.ToLower(unit) {
	case "ns":
		return 1e-6
	case "us", "µs":
		return 1e-3
	case "s", "sec":
		return 1e3
	}
	return 1
}

// firstLine is data's first non-blank line, trimmed.
func firstLine(data []byte) []byte {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var l []byte
		if i < 0 {
			l, data = data, nil
		} else {
			l, data = data[:i], data[i+1:]
		}
		if l = bytes.TrimSpace(l); len(l) > 0 {
			return l
		}
	}
	return nil
}
