package report

import (
	"bytes"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/peer"
)

// TestWriteComparison: one aligned table; figures rounded as in the
// console report; a matched pair named by its load; levels only one side
// has labelled "only in A" / "only in B" with "-" for the other side,
// including a level with none of the compared metrics.
func TestWriteComparison(t *testing.T) {
	lat := func(p50, p99 float64) peer.Stats { return peer.Stats{P50: peer.Some(p50), P99: peer.Some(p99)} }
	a := peer.Result{Tool: "gollm-bench", ToolVersion: "0.3.0", File: "a/run.json", Levels: []peer.Level{
		{Label: "level 0", Mode: loadgen.ModeConcurrent, Concurrency: 4, TTFT: lat(41.23456, 512.3456), OutputTokPerSec: peer.Some(1834.5678), Definitions: peer.Native()},
		{Label: "level 1", Mode: loadgen.ModePoisson, Rate: peer.Some(7.4123), MaxConcurrency: 64, TTFT: lat(9.87654, 12.3456), Definitions: peer.Native()},
	}}
	b := peer.Result{Tool: "AIPerf", File: "b.json", Levels: []peer.Level{
		{Label: "c4", Mode: loadgen.ModeConcurrent, Concurrency: 4, TTFT: lat(40.0001, 0.5), OutputTokPerSec: peer.Some(2000), Definitions: peer.Native()},
		{Label: "sweep max", Mode: loadgen.ModeThroughput},
	}}
	var buf bytes.Buffer
	if err := WriteComparison(&buf, peer.Compare(a, b)); err != nil {
		t.Fatal(err)
	}
	want := `A: gollm-bench 0.3.0 (a/run.json)
B: AIPerf (b.json)

level                                     metric                              A      B      B/A
concurrency 4                             TTFT p50 (ms)                    41.2   40.0     0.97
                                          TTFT p99 (ms)                     512   0.50  0.00098
                                          output tok/s                    1,835  2,000     1.09
only in A: 7.41 req/s (max 64) (level 1)  TTFT p50 (ms)                    9.88      -        -
                                          TTFT p99 (ms)                    12.3      -        -
only in B: throughput (sweep max)         (none of the compared metrics)      -      -        -
`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestFmtRatio(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {1.0381, "1.04"}, {0.8068, "0.81"}, {0.13331, "0.13"},
		{2.69e-5, "2.7e-05"}, {6174.3, "6,174"}, {12.345, "12.3"},
	} {
		if got := fmtRatio(tt.v); got != tt.want {
			t.Errorf("fmtRatio(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
