package telemetry_test

import (
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/enginemetrics"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/telemetry"
)

// Against an engine whose /metrics names were not known (llama.cpp's, then),
// a level warned "the engine counted 0 prompt tokens in the window, the
// client 16384": zeros compared as if measured. Now the level carries one
// warning saying the metrics were not recognised, and no mismatch.
func TestUnrecognisedEngineMetricsAreNotAMismatch(t *testing.T) {
	snap, err := enginemetrics.Parse(strings.NewReader("# TYPE other_tokens_total counter\nother_tokens_total 99\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := enginemetrics.Diff(snap, snap)
	r := &telemetry.LevelReading{Engine: &d}
	s := metrics.Summary{Level: 1, WindowSeconds: 16, InputTokensPerSecond: 1024, OutputTokensPerSecond: 256}
	ws := r.Warnings(s)
	if len(ws) != 1 || ws[0].Code != enginemetrics.WarnUnrecognised {
		t.Fatalf("warnings %v, want one %s", ws, enginemetrics.WarnUnrecognised)
	}
	if strings.Contains(ws[0].Message, "16384") {
		t.Errorf("warning %q compares the client's count with nothing", ws[0].Message)
	}
}
