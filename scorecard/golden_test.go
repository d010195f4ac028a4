package scorecard

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/golden"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// goldenDir holds the scorecard fixtures and golden outputs (shared with
// deploy/kubernetes docs; see its README).
const goldenDir = "../testdata/scorecards"

// sampleInputs are five configurations of one study: the example of
// docs/metrics.md#a-worked-example, a configuration it dominates, one that
// violates the SLO, a cheaper but slower trade-off, and an anecdote without
// energy figures.
func sampleInputs() []Inputs {
	start := time.Date(2026, 6, 16, 12, 0, 0, 0, time.UTC)
	base := func(runID, engine, precision string, ttft, goodput, joules, eurH float64, pass bool) Inputs {
		m := completeMetadata(runID)
		m.Engine, m.Precision = engine, precision
		m.Model, m.Endpoint, m.Profile, m.LoadMode = "Qwen/Qwen3-8B", "completions", "sweep", "constant"
		m.DataSpec, m.ISLBasis, m.PrefixCache = "prompt_tokens=1024,output_tokens=256", "prompt", "cold"
		m.Seed, m.GPUCount, m.TargetURL, m.StartedAt = ptr(uint64(42)), 4, "http://vllm.inference.svc:8000", start
		return Inputs{
			Metadata: m,
			Performance: Performance{
				KneeLevel: ptr(6), GoodputTokS: ptr(goodput), GoodputReqS: ptr(goodput / 256),
				OutputTokS: ptr(goodput * 1.02), TTFTP99Ms: ptr(ttft), ITLP95Ms: ptr(21.5), E2EP99Ms: ptr(ttft + 255*22),
				PeakOutputTokS: ptr(goodput * 1.3), KneeRateReqS: ptr(goodput / 256),
				KneeBracket: &Bracket{Low: goodput / 256, High: ptr(goodput / 256 * 1.05), Unit: "req_s"},
				SLOPass:     ptr(pass), ErrorRate: ptr(0.001), WindowS: ptr(100.0), OutputTokens: ptr(int64(goodput * 1.02 * 100)),
			},
			Energy:      EnergyReading{Source: "nvml", Valid: true, EnergyJ: joules, GPUName: "NVIDIA H100 80GB HBM3", GPUCount: 4},
			Cost:        CostRate{EURPerHour: eurH, Source: "flag"},
			PUE:         1.4,
			GridGCO2KWh: 40,
		}
	}
	fp8 := base("20260616T1200-vllm-fp8", "vllm-0.9.1", "fp8", 312.5, 3120, 492400*1.02, 10.8, true)
	fp8.Metadata.Labels = map[string]string{"team": "inference", "study": "precision"}
	fp16 := base("20260616T1300-vllm-bf16", "vllm-0.9.1", "bf16", 350, 2200, 480000, 10.8, true)
	fp16.Metadata.Labels = map[string]string{"study": "precision"}
	sglang := base("20260616T1400-sglang-fp8", "sglang-0.4.7", "fp8", 812, 3500, 470000, 10.8, false)
	sglang.Warnings = []metrics.Warning{{Code: "knee_not_reached", Level: -1, Message: "first level failed: knee not found"}}
	batch := base("20260616T1500-vllm-fp8-b128", "vllm-0.9.1", "fp8", 450, 3900, 520000*1.02, 10.8, true)
	batch.Metadata.Labels = map[string]string{"max_batch": "128"}
	trt := base("20260616T1600-trtllm-fp8", "trtllm-0.20", "fp8", 280, 3000, 0, 9.6, true)
	trt.Energy = EnergyReading{Source: "none"}
	trt.Metadata.TokenizerSHA256, trt.Metadata.ToolCommit = "", ""
	return []Inputs{fp8, fp16, sglang, batch, trt}
}

func sampleCards() []Scorecard {
	var cards []Scorecard
	for _, in := range sampleInputs() {
		cards = append(cards, Build(in))
	}
	return cards
}

// TestGoldenScorecards writes each sample with Write, compares it with
// testdata/scorecards/results/<run-id>/scorecard.json, and reads the files
// back with ReadDirs: what Write writes, Read reads, unchanged.
func TestGoldenScorecards(t *testing.T) {
	cards := sampleCards()
	for _, sc := range cards {
		var buf bytes.Buffer
		if err := Write(&buf, sc); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join(goldenDir, "results", sc.Metadata.RunID, FileName), buf.Bytes())
	}
	rows, err := ReadDirs(filepath.Join(goldenDir, "results"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(cards) {
		t.Fatalf("ReadDirs found %d scorecards, want %d", len(rows), len(cards))
	}
	for i, r := range rows {
		if want := filepath.Join(goldenDir, "results", cards[i].Metadata.RunID); r.Dir != filepath.Clean(want) {
			t.Errorf("row %d dir %q, want %q", i, r.Dir, want)
		}
		if !reflect.DeepEqual(r.Scorecard, cards[i]) {
			t.Errorf("%s: read back differs from what was written:\n got %+v\nwant %+v", r.Dir, r.Scorecard, cards[i])
		}
	}
}

func TestGoldenAggregateCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, sampleCards()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(goldenDir, "aggregate.csv"), buf.Bytes())
}

func TestGoldenParetoText(t *testing.T) {
	frontier, dropped := Pareto(sampleCards(), nil)
	var buf bytes.Buffer
	if err := WriteParetoText(&buf, frontier, dropped); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(goldenDir, "pareto.txt"), buf.Bytes())
}
