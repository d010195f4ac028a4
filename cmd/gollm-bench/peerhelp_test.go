package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
)

// TestHelpNamesInferencePerf: the review of issue 28 found that `compare
// --help` and `aggregate --help` did not list inference-perf, which both
// read.
func TestHelpNamesInferencePerf(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"compare", "aggregate"} {
		_, stdout, stderr := cli(t, context.Background(), cmd, "--help")
		if help := stdout + stderr; !strings.Contains(help, "inference-perf") {
			t.Errorf("%s --help does not name inference-perf:\n%s", cmd, help)
		}
	}
}

// TestReportOfPeerFile: `report vllm-spec.json` said "run.json has no
// schema_version". It says the file is a peer tool's result and points to
// compare and pareto.
func TestReportOfPeerFile(t *testing.T) {
	t.Parallel()
	f := filepath.Join(peerFixtures, "vllm-bench-serve-v0.25.1-cpu-opt125m-c2.json")
	code, _, stderr := cli(t, context.Background(), "report", f)
	if code != exitcode.Usage {
		t.Errorf("exit %d, want %d", code, exitcode.Usage)
	}
	for _, w := range []string{"is a peer tool's result (vLLM", "gollm-bench compare", "pareto"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "schema_version") {
		t.Errorf("stderr still speaks of run.json's schema_version:\n%s", stderr)
	}
}
