package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gollm-bench/gollm-bench/internal/mockserver"
	"github.com/gollm-bench/gollm-bench/internal/quota"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/results"
)

// countingMock serves the mock preset on loopback and counts the
// completion requests it received.
func countingMock(t *testing.T, preset string) (string, *atomic.Int64) {
	t.Helper()
	cfg, err := mockserver.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	h := s.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			n.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL, &n
}

// wholeRecords checks that no file in dir ends in a torn line, that no
// temporary file is left, and that every line of requests.jsonl and of the
// kept spool files is a whole record; it returns those records.
func wholeRecords(t *testing.T, dir string) []loadgen.Record {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var recs []loadgen.Record
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
		if len(b) > 0 && b[len(b)-1] != '\n' && !strings.HasSuffix(e.Name(), ".html") {
			t.Errorf("%s (%d B) ends in a torn line: ...%q", e.Name(), len(b), b[max(len(b)-40, 0):])
		}
		if !strings.HasPrefix(e.Name(), "requests") {
			continue
		}
		dec := loadgen.NewDecoder(bytes.NewReader(b))
		for {
			var rec loadgen.Record
			err := dec.Decode(&rec)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("%s: %v", e.Name(), err)
				break
			}
			recs = append(recs, rec)
		}
	}
	return recs
}

// TestFullDiskKeepsPartial: the full disk. A results folder that
// fills up (a quota on the files written, standing in for a 200 KiB or
// 1.2 MiB file system) stops the run: no new request is sent, exit 1 with
// a message naming the file and the space left, run.json written first and
// marked partial with the reason, no file holding a torn line or left
// half-written, every request the server received counted in run.json,
// and no level blamed on the client.
func TestFullDiskKeepsPartial(t *testing.T) {
	for _, tt := range []struct {
		name  string
		quota int64
		rates string
	}{
		// The spool of the only level fills the disk.
		{"200KiB", 200 << 10, "100"},
		// Level 0 fits; the disk fills during level 1.
		{"1.2MiB", 1200 << 10, "100,200"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url, received := countingMock(t, "instant")
			parent := t.TempDir()
			fsys := quota.New(tt.quota)
			var stdout, stderr bytes.Buffer
			code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, fs: fsys},
				[]string{"run", "--target", url, "--profile", "constant", "--rate", tt.rates, "--max-seconds", "4",
					"--data", "prompt_tokens=16,output_tokens=64", "--warmup", "0", "--cooldown", "0", "--max-lag", lenientLag,
					"--energy", "none", "--output-dir", parent, "--run-id", "full", "--min-samples", "5"})
			dir := filepath.Join(parent, "full")
			if code != exitFailure {
				t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout.String(), stderr.String())
			}
			msg := stderr.String()
			if !strings.Contains(msg, "no space left on device") || !strings.Contains(msg, "free on its file system") || !strings.Contains(msg, dir) {
				t.Errorf("stderr does not name the file and the free space:\n%s", msg)
			}
			if fsys.Failures() == 0 {
				t.Fatal("the quota never filled")
			}
			run, err := results.Read(dir)
			if err != nil {
				t.Fatalf("run.json: %v\n%s", err, msg)
			}
			if !run.Partial || !strings.Contains(run.PartialReason, "no space left on device") {
				t.Errorf("run.json partial %v, reason %q: want partial, with the reason", run.Partial, run.PartialReason)
			}
			var scheduled, answered int64
			for _, lv := range run.Result.Levels {
				s := lv.Summary
				scheduled += s.Requests.Scheduled
				answered += s.Requests.OK + s.Requests.Failed
				if s.Client.ClientLimited {
					t.Errorf("level %d flagged client-limited (%s): the disk stopped it, not the client", lv.Index, s.Client.Reason)
				}
			}
			if got := received.Load(); got > scheduled || got < answered {
				t.Errorf("run.json counts %d requests (%d answered); the server received %d", scheduled, answered, got)
			}
			recs := wholeRecords(t, dir)
			seen := map[int64]bool{}
			for _, r := range recs {
				if seen[r.Seq] {
					t.Errorf("record seq %d written twice", r.Seq)
				}
				seen[r.Seq] = true
			}
			if int64(len(recs)) > scheduled || len(recs) == 0 {
				t.Errorf("%d whole records on disk for %d scheduled", len(recs), scheduled)
			}
			t.Logf("%d levels, %d scheduled, %d received, %d records on disk\n%s", len(run.Result.Levels), scheduled, received.Load(), len(recs), msg)
		})
	}
}
