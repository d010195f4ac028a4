package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandStaysThin: the command only parses flags, wires and prints;
// the library assembles a run. Its non-test Go stays at most 1,000 lines,
// so that logic that grows here is moved where an embedder can use it.
func TestCommandStaysThin(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines > 1000 {
		t.Errorf("cmd/gollm-bench has %d lines of non-test Go, want at most 1,000: move logic into the library (package benchmark, cmdline, report, ...)", lines)
	}
}
