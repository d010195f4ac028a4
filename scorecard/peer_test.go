package scorecard

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/peer"
)

// TestDecodeSeedLayout: the scorecard-exporter layout (no schema_version,
// carbon as co2_per_1m_tokens_g) reads as a scorecard row.
func TestDecodeSeedLayout(t *testing.T) {
	sc, err := Read(filepath.Join("..", "testdata", "scorecards", "exporter", "sglang-h200-exporter.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key  string
		want float64
	}{{"goodput_tok_s", 2950}, {"cpm_eur_1m", 0.3672}, {"wh_per_token", 0.000594}, {"gco2_per_1m_tokens", 23.76}, {"ttft_p99_ms", 280}} {
		if v, ok := Figure(sc, c.key); !ok || v != c.want {
			t.Errorf("%s = %v, %v; want %v", c.key, v, ok, c.want)
		}
	}
	if sc.Status != StatusAnecdote || !strings.Contains(strings.Join(sc.Missing, ","), "model_revision") || sc.Metadata.Engine != "sglang-0.4.7" {
		t.Errorf("status %q missing %v metadata %+v", sc.Status, sc.Missing, sc.Metadata)
	}
	if len(sc.Warnings) == 0 || sc.Warnings[len(sc.Warnings)-1].Code != WarnSeedLayout {
		t.Errorf("warnings %v", sc.Warnings)
	}
	if _, err := Decode(strings.NewReader(`{"metadata": {}, "performance": {"goodput_tok_s": "x"}}`)); err == nil {
		t.Error("a broken exporter file was accepted")
	}
	if _, err := Decode(strings.NewReader(`{"hello": 1}`)); err == nil || !strings.Contains(err.Error(), "schema_version") {
		t.Errorf("a stranger: %v", err)
	}
}

// TestFromPeer: hand-picked figures of peer results as scorecard rows,
// anecdotes naming what they lack, figures defined differently left out.
func TestFromPeer(t *testing.T) {
	r, err := peer.ReadFile(filepath.Join("..", "testdata", "peers", "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	rows := FromPeer(r)
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	sc := rows[0]
	p := sc.Performance
	if *p.TTFTP99Ms != 66.76023583999999 || *p.OutputTokS != 1792.2310692134672 || *p.ErrorRate != 0 || math.Abs(*p.ITLP95Ms-9.3322) > 1e-4 || math.Abs(*p.GoodputReqS-6.8146) > 0.001 {
		t.Errorf("performance %+v", p)
	}
	m := sc.Metadata
	if sc.Status != StatusAnecdote || m.ToolVersion != "AIPerf 0.11.0" || m.MaxConcurrencyTested != 16 || m.Model != "qwen3-4b" || m.ISLTokens != 0 && m.ISLTokens < 1 ||
		m.RunID != "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.json#0" || m.Labels["source_tool"] != "AIPerf" {
		t.Errorf("metadata %+v", m)
	}
	for _, want := range []string{"engine", "hardware", "precision"} {
		if !strings.Contains(strings.Join(sc.Missing, ","), want) {
			t.Errorf("missing %v lacks %s", sc.Missing, want)
		}
	}
	g, err := peer.ReadFile(filepath.Join("..", "testdata", "peers", "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json"))
	if err != nil {
		t.Fatal(err)
	}
	gs := FromPeer(g)[0]
	if gs.Performance.ITLP95Ms != nil || gs.Performance.OutputTokS != nil {
		t.Errorf("GuideLLM's token-weighted ITL or rate-mean throughput kept: %+v", gs.Performance)
	}
	var codes []string
	for _, w := range gs.Warnings {
		codes = append(codes, string(w.Code))
	}
	if strings.Count(strings.Join(codes, ","), string(WarnPeerDefinition)) != 2 {
		t.Errorf("warnings %v", gs.Warnings)
	}
}

// TestParetoOursAndTheirs: one folder holding our scorecards, the
// exporter's layout and a peer's result gives one frontier: the
// exporter's row joins ours; the peer's rows are listed with what they lack.
func TestParetoOursAndTheirs(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "testdata", "scorecards", "results"), filepath.Join(dir, "results"))
	copyTree(t, filepath.Join("..", "testdata", "scorecards", "exporter"), filepath.Join(dir, "exporter"))
	data, err := os.ReadFile(filepath.Join("..", "testdata", "peers", "vllm-bench-serve-v0.25.1-cpu-opt125m-c2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "peers"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "peers", "vllm.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadDirs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 {
		t.Fatalf("%d rows, want 5 ours + 1 exporter + 1 vLLM", len(rows))
	}
	cards := make([]Scorecard, len(rows))
	for i, r := range rows {
		cards[i] = r.Scorecard
	}
	frontier, dropped := Pareto(cards, nil)
	var ids []string
	for _, f := range frontier {
		ids = append(ids, f.Metadata.RunID)
	}
	if strings.Join(ids, ",") != "exporter-sglang-h200,20260616T1500-vllm-fp8-b128,20260616T1200-vllm-fp8" {
		t.Errorf("frontier %v", ids)
	}
	found := false
	for _, d := range dropped {
		if d.Scorecard.Metadata.RunID == "vllm.json#0" {
			found = strings.Contains(d.Reason, "no SLO verdict")
		}
	}
	if !found {
		t.Errorf("the vLLM row is not listed with its reason: %+v", dropped)
	}
	frontier, dropped = Pareto(cards, CheckTerms(Term{Key: "ttft_p99_ms", Op: "<=", Limit: 1000}))
	for _, d := range dropped {
		if d.Scorecard.Metadata.RunID == "vllm.json#0" && !strings.Contains(d.Reason, "no cost figure (cpm_eur_1m); no energy figure (wh_per_token)") {
			t.Errorf("vLLM row under --slo: %q", d.Reason)
		}
	}
	// The row whose own verdict failed meets this looser SLO.
	ids = nil
	for _, f := range frontier {
		ids = append(ids, f.Metadata.RunID)
	}
	if !strings.HasPrefix(strings.Join(ids, ","), "exporter-sglang-h200,") || len(ids) != 4 {
		t.Errorf("frontier under --slo: %v", ids)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
