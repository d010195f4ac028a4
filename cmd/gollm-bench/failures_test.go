package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
)

// closedPort returns a loopback URL where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestDeadTargetStopsEarly: --target at a closed port with --model set
// fired 20,388 failing requests in 2 s and printed no summary of the
// errors. Now the level stops after its first --unreachable-after requests
// all failed to connect, says so (stderr and a warning in run.json), and
// the run ends with the error kinds and counts and a hint, not "give
// --model NAME". --unreachable-after 0 keeps sending.
func TestDeadTargetStopsEarly(t *testing.T) {
	t.Parallel()
	dead := closedPort(t)
	dir := t.TempDir()
	args := func(id string, extra ...string) []string {
		return append([]string{"run", "--target", dead, "--model", "m", "--profile", "synchronous", "--max-seconds", "2",
			"--data", "prompt_tokens=4,output_tokens=2", "--energy", "none", "--output-dir", dir, "--run-id", id}, extra...)
	}
	code, stdout, stderr := cli(t, context.Background(), args("dead")...)
	if code != exitcode.Failure {
		t.Errorf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range []string{
		"level 0 stopped early: its first 10 requests all failed to connect", "--unreachable-after 0",
		"failed requests: 10 (0 ok)", "connect                10  dial tcp", "nothing is listening at " + dead,
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "give --model NAME") {
		t.Errorf("a dead target is blamed on the model lookup:\n%s", stderr)
	}
	run, err := results.Read(filepath.Join(dir, "dead"))
	if err != nil {
		t.Fatal(err)
	}
	lv := run.Result.Levels[0]
	if n := len(readRecords(t, filepath.Join(dir, "dead", results.RequestsJSONL))); n != 10 || lv.Summary.Requests.Scheduled != 10 {
		t.Errorf("%d records, %d scheduled; want 10 (the level stops after its first 10 connection failures)", n, lv.Summary.Requests.Scheduled)
	}
	found := false
	for _, w := range lv.Summary.Warnings {
		found = found || w.Code == harness.WarnUnreachable
	}
	if !found || run.Config.UnreachableAfter != 10 {
		t.Errorf("warnings %+v, config.unreachable_after %d; want a %s warning and 10", lv.Summary.Warnings, run.Config.UnreachableAfter, harness.WarnUnreachable)
	}

	// The override: every request is sent.
	code, _, stderr = cli(t, context.Background(), args("override", "--unreachable-after", "0", "--max-requests", "30")...)
	if code != exitcode.Failure || strings.Contains(stderr, "stopped early") || !strings.Contains(stderr, "failed requests: 30 (0 ok)") {
		t.Errorf("--unreachable-after 0: exit %d, stderr %s", code, stderr)
	}
}

// TestModelHintOnlyForTheLookup: "give --model NAME" is the hint when the
// server answered GET /v1/models but the lookup failed (404, an empty
// list), never when nothing answered.
func TestModelHintOnlyForTheLookup(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/empty/v1/models":
			fmt.Fprint(w, `{"object":"list","data":[]}`)
		case "/auth/v1/models":
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		target    string
		want      string
		modelHint bool
	}{
		{srv.URL, "HTTP 404", true},
		{srv.URL + "/empty", "lists no model", true},
		{srv.URL + "/auth", "check --api-key", false},
		{closedPort(t), "nothing is listening", false},
	} {
		code, _, stderr := cli(t, context.Background(), "run", "--target", tt.target, "--profile", "synchronous", "--max-requests", "1",
			"--energy", "none", "--output-dir", t.TempDir())
		if code != exitcode.Failure || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "give --model NAME") != tt.modelHint {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 with %q, model hint %v", tt.target, code, stderr, tt.want, tt.modelHint)
		}
	}
}

// TestFailureSummary: every run with failures ends with its error kinds
// by count, here a run where some requests fail.
func TestFailureSummary(t *testing.T) {
	t.Parallel()
	url := mock(t, mockserver.Config{Scheduler: mockserver.SchedulerFixed, ErrorRate: 0.5, Seed: 3})
	code, stdout, stderr := cli(t, context.Background(), "run", "--target", url, "--profile", "concurrent", "--rate", "2", "--max-requests", "20",
		"--data", "prompt_tokens=4,output_tokens=2", "--energy", "none", "--max-lag", lenientLag, "--output-dir", t.TempDir())
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "failed requests: ") || !strings.Contains(stderr, "http_status ") || !strings.Contains(stderr, "HTTP 500") {
		t.Errorf("no summary of failures on stderr:\n%s", stderr)
	}
}
