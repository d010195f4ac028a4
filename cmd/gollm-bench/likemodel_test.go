package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/mockserver"
)

// TestLikeModelNotServed: the review of issue 28 ran `run --like FILE
// --target URL` against a server that does not serve the file's model:
// every request was sent and met a 404, exit 1. The target's model list
// is asked first and the run refused (exit 2, nothing sent), naming the
// file's model, the served ones and --model as the fix.
func TestLikeModelNotServed(t *testing.T) {
	t.Parallel()
	guidellm := filepath.Join(peerFixtures, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	s, err := mockserver.New(mockserver.Config{Scheduler: mockserver.SchedulerFixed, ITL: 1})
	if err != nil {
		t.Fatal(err)
	}
	var completions atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			completions.Add(1)
		}
		s.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); s.Close() })
	code, stdout, stderr := cli(t, context.Background(), "run", "--like", guidellm, "--target", ts.URL, "--data", "prompt_tokens=32,output_tokens=4",
		"--energy", "none", "--output-dir", t.TempDir(), "--quiet")
	if code != exitcode.Usage {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitcode.Usage, stdout, stderr)
	}
	for _, w := range []string{`the file's model "Qwen/Qwen3-4B-Thinking-2507" is not served`, `which serves "mock-model"`, "give --model"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, stderr)
		}
	}
	if n := completions.Load(); n != 0 {
		t.Errorf("%d requests sent before the refusal", n)
	}
}

// TestLikeModelWithoutModelList: a server that does not implement GET
// /v1/models (404) is not refused for it: the file's model is used.
func TestLikeModelWithoutModelList(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a level: make test runs it")
	}
	t.Parallel()
	guidellm := filepath.Join(peerFixtures, "guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	s, err := mockserver.New(mockserver.Config{Scheduler: mockserver.SchedulerFixed, ITL: 1, Model: "Qwen/Qwen3-4B-Thinking-2507"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			http.NotFound(w, r)
			return
		}
		s.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); s.Close() })
	code, stdout, stderr := cli(t, context.Background(), "run", "--like", guidellm, "--target", ts.URL, "--data", "prompt_tokens=32,output_tokens=4",
		"--energy", "none", "--output-dir", t.TempDir(), "--max-lag", lenientLag, "--format", "json", "--quiet")
	if code != exitcode.OK {
		t.Errorf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
}

// `run --like` on an AIPerf CSV alone exits 2 before sending anything,
// saying that the CSV does not record the load and where it is recorded.
func TestLikeAIPerfCSVAlone(t *testing.T) {
	t.Parallel()
	csv := filepath.Join(peerFixtures, "aiperf-0.13.0-llama-tiny-qwen3-c4-10s", "profile_export_aiperf.csv")
	code, _, stderr := cli(t, context.Background(), "run", "--like", csv, "--target", "http://127.0.0.1:9", "--energy", "none", "--output-dir", t.TempDir())
	if code != exitcode.Usage || !strings.Contains(stderr, "the AIPerf CSV export does not record the load") ||
		!strings.Contains(stderr, "profile_export_aiperf.json beside it, or the artifact folder") || strings.Contains(stderr, "no gollm-bench equivalent") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}
