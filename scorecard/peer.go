package scorecard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
)

// Warning codes of scorecards read from other tools' files.
const (
	// WarnPeerResult: the row was read from a peer tool's result file;
	// gollm-bench did not measure it.
	WarnPeerResult metrics.WarningCode = "peer_result"
	// WarnSeedLayout: the row was read from the scorecard-exporter
	// layout (no schema_version, carbon as co2_per_1m_tokens_g).
	WarnSeedLayout metrics.WarningCode = "seed_scorecard_layout"
	// WarnPeerDefinition: a peer figure is defined differently from the
	// scorecard's and was left out.
	WarnPeerDefinition metrics.WarningCode = "peer_definition"
)

// FromPeer reads a peer tool's result (GuideLLM, AIPerf, GenAI-Perf, vLLM;
// package peer) as scorecard rows, one per level, so that `aggregate` and
// `pareto` can hold theirs beside ours. A row is an anecdote: a peer file
// lacks most of the mandatory metadata (engine, hardware, precision, ...),
// and Missing names them. Its run id is the file's name and the level;
// Labels carry the tool ("source_tool"), the file ("source_file") and the
// level ("source_level"). Performance holds what the file measured with
// gollm-bench's definitions: TTFT P99, E2E P99, ITL P95 when the tool's
// ITL is per request (GuideLLM's is token-weighted: left out, with a
// warning), output tok/s over the benchmark window (GuideLLM's mean of a
// rate distribution is left out likewise), goodput where the tool counts
// it, and the error rate. No peer file holds cost or energy, so a peer row
// never reaches a Pareto frontier on its own; it is listed with the
// figures it lacks.
func FromPeer(r peer.Result) []Scorecard {
	var out []Scorecard
	base := filepath.Base(r.File)
	tool := r.Tool
	if r.ToolVersion != "" {
		tool += " " + r.ToolVersion
	}
	w := r.Workload
	for i, l := range r.Levels {
		m := Metadata{
			ToolVersion: tool,
			SLO:         w.SLO,
			Warmup:      w.Warmup,
			RunID:       fmt.Sprintf("%s#%d", base, i),
			Model:       w.Model,
			Endpoint:    w.Endpoint,
			LoadMode:    string(l.Mode),
			Profile:     w.Profile,
			Tokenizer:   w.Tokenizer,
			Labels:      map[string]string{"source_tool": r.Tool, "source_file": r.File, "source_level": l.Label},
		}
		switch {
		case w.Data != "":
			m.DataSpec = w.Data
		case w.Dataset != "":
			m.DataSpec = "dataset=" + w.Dataset
		}
		if v, ok := l.ISL.Mean.Get(); ok && v >= 0.5 {
			m.ISLTokens, m.ISLBasis = int(math.Round(v)), "prompt"
		}
		if v, ok := l.OSL.Mean.Get(); ok && v >= 0.5 {
			m.OSLTokens = int(math.Round(v))
		}
		switch {
		case l.Mode == loadgen.ModeSynchronous:
			m.MaxConcurrencyTested = 1
		case l.Concurrency > 0:
			m.MaxConcurrencyTested = l.Concurrency
		case l.MaxConcurrency > 0:
			m.MaxConcurrencyTested = l.MaxConcurrency
		}
		if w.Seed.OK && w.Seed.N >= 0 {
			s := uint64(w.Seed.N)
			m.Seed = &s
		}
		sc := Scorecard{SchemaVersion: SchemaVersion, Metadata: m}
		sc.Warnings = append(sc.Warnings, metrics.Warning{Code: WarnPeerResult, Level: i,
			Message: fmt.Sprintf("read from %s's result %s, level %q: not measured by gollm-bench; no cost or energy figures", tool, r.File, l.Label)})
		p := &sc.Performance
		p.TTFTP99Ms = peerNum(l.TTFT.P99)
		p.E2EP99Ms = peerNum(l.E2E.P99)
		if l.Definitions.ITL.Kind == peer.KindITLPerRequest {
			p.ITLP95Ms = peerNum(l.ITL.P95)
		} else if l.ITL.P95.OK {
			sc.Warnings = append(sc.Warnings, metrics.Warning{Code: WarnPeerDefinition, Level: i,
				Message: fmt.Sprintf("itl_p95_ms left out: %s's ITL is %s", r.Tool, l.Definitions.ITL.Kind.Describe())})
		}
		if l.Definitions.OutputTokPerSec.Kind == peer.KindTokPerSecWindow {
			p.OutputTokS = peerNum(l.OutputTokPerSec)
		} else if l.OutputTokPerSec.OK {
			sc.Warnings = append(sc.Warnings, metrics.Warning{Code: WarnPeerDefinition, Level: i,
				Message: fmt.Sprintf("output_tok_s left out: %s's is the %s", r.Tool, l.Definitions.OutputTokPerSec.Kind.Describe())})
		}
		p.GoodputReqS = peerNum(l.GoodputReqPerSec)
		p.GoodputTokS = peerNum(l.GoodputTokPerSec)
		if c := l.Requests; c.Completed.OK && c.Failed.OK && c.Completed.N+c.Failed.N > 0 {
			p.ErrorRate = Num(float64(c.Failed.N) / float64(c.Completed.N+c.Failed.N))
		}
		sc.Status, sc.Missing = sc.Metadata.Status(), sc.Metadata.Missing()
		out = append(out, sc)
	}
	return out
}

func peerNum(v peer.Value) *float64 {
	if !v.OK {
		return nil
	}
	return Num(v.V)
}

// decodeSeed reads the scorecard-exporter layout: the scorecard's
// sections (metadata, performance, cost, energy, carbon) without a
// schema_version, carbon as co2_per_1m_tokens_g (grams per 1M tokens,
// our gco2_per_1m_tokens). Keys it shares with scorecard.json are read as
// such; Status and Missing come from the metadata as for any scorecard.
// It returns false when data is not that layout (no metadata and
// performance objects).
func decodeSeed(data []byte) (Scorecard, bool, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return Scorecard{}, false, nil
	}
	isObj := func(k string) bool { return len(bytes.TrimSpace(probe[k])) > 0 && bytes.TrimSpace(probe[k])[0] == '{' }
	if !isObj("metadata") || !isObj("performance") {
		return Scorecard{}, false, nil
	}
	var sc Scorecard
	if err := json.Unmarshal(data, &sc); err != nil {
		return Scorecard{}, true, positioned(data, err)
	}
	var carbon struct {
		CO2Per1MTokensG *float64 `json:"co2_per_1m_tokens_g"`
	}
	if raw, ok := probe["carbon"]; ok {
		if err := json.Unmarshal(raw, &carbon); err != nil {
			return Scorecard{}, true, fmt.Errorf("carbon: %w", err)
		}
		if sc.Carbon.GCO2Per1MTokens == nil {
			sc.Carbon.GCO2Per1MTokens = carbon.CO2Per1MTokensG
		}
	}
	sc.SchemaVersion = SchemaVersion
	sc.Status, sc.Missing = sc.Metadata.Status(), sc.Metadata.Missing()
	sc.Warnings = append(sc.Warnings, metrics.Warning{Code: WarnSeedLayout, Level: -1,
		Message: "read from the scorecard-exporter layout (no schema_version): keys it shares with scorecard.json are read as such, carbon.co2_per_1m_tokens_g as gco2_per_1m_tokens"})
	return sc, true, nil
}

// errNotScorecard is returned by readAny for a file that is neither a
// scorecard (ours, or the exporter's layout) nor a peer result.
var errNotScorecard = errors.New("neither a scorecard nor a peer result")
