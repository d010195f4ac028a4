package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/results"
)

// twoConfigs writes two results folders of different configurations: the
// frozen concurrency sweep, and the same run re-labelled as measured on
// the completions endpoint with a warm prefix cache.
func twoConfigs(t *testing.T) (a, b string) {
	t.Helper()
	run, err := results.Read(filepath.Join("..", "..", "testdata", "report", "run-from-another-machine"))
	if err != nil {
		t.Fatal(err)
	}
	a, b = filepath.Join(t.TempDir(), "chat"), filepath.Join(t.TempDir(), "completions")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := results.Write(a, run); err != nil {
		t.Fatal(err)
	}
	run.RunID, run.Config.Endpoint, run.Config.PrefixCache = "ci-1188", "completions", "warm"
	if err := results.Write(b, run); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func TestReportSeveralRuns(t *testing.T) {
	t.Parallel()
	a, b := twoConfigs(t)
	page := filepath.Join(t.TempDir(), "cmp.html")
	code, _, stderr := cli(t, context.Background(), "report", a, b, "--format", "html", "-o", page)
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"warning: not comparable: ci-1188 against ci-1187: endpoint chat vs completions; prefix cache cold vs warm", "2 runs -> " + page} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Not comparable", "ci-1187</th>", "ci-1188</th>", `id="cmp-ttft"`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("cmp.html lacks %q", want)
		}
	}
	// Bad input is refused before anything is written.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"report", a, b, "--format", "console", "-o", page}, "--format \"console\": several runs render only as html"},
		{[]string{"report", a, b}, "-o is empty"},
		{[]string{"report", a, filepath.Join(b, "nothing"), "-o", page}, "run.json"},
	} {
		if code, _, stderr := cli(t, context.Background(), tt.args...); code != exitcode.Usage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q: want %d and %q", tt.args, code, stderr, exitcode.Usage, tt.want)
		}
	}
}
