//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/internal/interrupt"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/results"
)

// asMainEnv, set in a child's environment, makes the test binary run
// main() with the child's arguments instead of the tests: the signal tests
// signal a real process without building the binary.
const asMainEnv = "GOLLM_BENCH_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}

// TestSignalKeepsPartial: the SIGHUP (exit 129, 0 of 60 records
// kept). A run sent SIGHUP, SIGQUIT or SIGTERM mid-level writes every
// record of the requests it scheduled, whole, marks run.json partial with
// the signal, and exits 4, as Ctrl-C does. The three cases run together,
// but not with the package's parallel tests: each checks that its light
// level is not flagged client-limited.
func TestSignalKeepsPartial(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gollm-bench as a child process for a few seconds")
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGTERM} {
		t.Run(interrupt.Name(sig), func(t *testing.T) {
			t.Parallel()
			url, received := countingPresetMock(t, "fast")
			parent := t.TempDir()
			cmd := exec.Command(os.Args[0], "run", "--target", url, "--profile", "constant", "--rate", "20",
				"--max-seconds", "120", "--data", "prompt_tokens=8,output_tokens=16", "--warmup", "0", "--cooldown", "0",
				"--max-lag", lenientLag, "--energy", "none", "--output-dir", parent, "--run-id", "sig")
			cmd.Env = append(os.Environ(), asMainEnv+"=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal once the server has had 20 requests: mid-level.
			for deadline := time.Now().Add(60 * time.Second); received.Load() < 20; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the server got %d requests in 60 s\n%s", received.Load(), stderr.String())
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if code := 0; !errors.As(err, &exit) || exit.ExitCode() != exitcode.Partial {
				if exit != nil {
					code = exit.ExitCode()
				}
				t.Fatalf("%v: exit %d (%v), want %d\n%s\n%s", sig, code, err, exitcode.Partial, stdout.String(), stderr.String())
			}
			dir := filepath.Join(parent, "sig")
			run, rerr := results.Read(dir)
			if rerr != nil {
				t.Fatal(rerr)
			}
			name := interrupt.Name(sig)
			if !run.Partial || !strings.Contains(run.PartialReason, name) || len(run.Result.Levels) != 1 || !run.Result.Levels[0].Partial {
				t.Errorf("run.json partial %v (%q), %d levels: want one partial level, the reason naming %s", run.Partial, run.PartialReason, len(run.Result.Levels), name)
			}
			if !strings.Contains(stderr.String(), "interrupted by "+name) {
				t.Errorf("stderr does not say the run was interrupted by %s:\n%s", name, stderr.String())
			}
			s := run.Result.Levels[0].Summary
			recs := wholeRecords(t, dir)
			if int64(len(recs)) != s.Requests.Scheduled || len(recs) < 20 {
				t.Errorf("%d records kept, %d scheduled", len(recs), s.Requests.Scheduled)
			}
			var cancelled int64
			for _, r := range recs {
				if r.Status == loadgen.StatusCancelled {
					cancelled++
				}
			}
			if got := received.Load(); got > int64(len(recs)) || got < int64(len(recs))-cancelled {
				t.Errorf("the server received %d requests; %d records, %d of them cut off", got, len(recs), cancelled)
			}
			if s.Client.ClientLimited {
				t.Errorf("the interrupted level is flagged client-limited: %s", s.Client.Reason)
			}
		})
	}
}
