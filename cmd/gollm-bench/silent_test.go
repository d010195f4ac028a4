package main

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
)

// silentServer accepts connections on loopback and never answers: it
// reads what it is sent and holds the connection open until the test
// ends. It returns the server's base URL.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(done)
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// TestServerThatNeverAnswers: what was seen against a server that accepts
// and never answers: every request ended cancelled at the drain timeout,
// the level was INCONCLUSIVE "too short" with advice to lengthen
// --max-seconds, exit 5 with an SLO and 0 without, although a run where
// nothing succeeded exits 1. Now each cut-off request is a censored
// observation: with an SLO the level FAILs on TTFT and is cut off at once
// (not drained); with or without one, the run exits 1 and says the server
// did not answer.
func TestServerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"run with an SLO", []string{"run", "--profile", "constant", "--rate", "4", "--slo", "ttft_p99<=1s"},
			[]string{"FAIL ttft_p99<=1000ms", "did not answer", "cut_off_failing"}},
		{"run without an SLO", []string{"run", "--profile", "constant", "--rate", "4", "--drain-timeout", "1s"},
			[]string{"did not answer"}},
		{"sweep", []string{"sweep", "--slo", "ttft_p99<=1s"},
			[]string{"did not answer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append(tc.args, "--target", silentServer(t), "--model", "m", "--max-seconds", "3",
				"--output-dir", t.TempDir(), "--max-lag", lenientLag)
			code, stdout, stderr := cli(t, context.Background(), args...)
			if code != exitcode.Failure {
				t.Errorf("exit %d, want %d (nothing succeeded)\nstdout:\n%s\nstderr:\n%s", code, exitcode.Failure, stdout, stderr)
			}
			all := stdout + stderr
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			if strings.Contains(all, "too short") {
				t.Errorf("a server that never answers is not a level too short:\n%s", all)
			}
		})
	}
}
