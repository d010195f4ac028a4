package harness_test

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
	"syscall"
	"testing"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/internal/quota"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/workload"
)

// countingMock serves the instant mock on loopback and counts the
// completion requests it received.
func countingMock(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	cfg, err := mockserver.Preset("instant")
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

// checkWhole fails if a file in dir ends in part of a line, or holds a
// line that is not a whole record, and returns the records found in
// requests.jsonl and in spool files.
func checkWhole(t *testing.T, dir string) (log, spooled int) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s (%d B) ends in a torn line: ...%q", e.Name(), len(b), b[max(len(b)-40, 0):])
		}
		if !strings.HasPrefix(e.Name(), "requests") {
			continue
		}
		n := 0
		dec := loadgen.NewDecoder(bytes.NewReader(b))
		for {
			var rec loadgen.Record
			if err := dec.Decode(&rec); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Errorf("%s: %v", e.Name(), err)
				}
				break
			}
			n++
		}
		if e.Name() == "requests.jsonl" {
			log += n
		} else {
			spooled += n
		}
	}
	return log, spooled
}

// TestFullDiskKeepsRecords: a disk that fills up while a level runs (the
// spool cannot grow) or while it is copied to requests.jsonl stops the run
// with a *results.WriteError naming the file and the space left; every
// request the server received is in the level's summary, no file holds a
// torn line, and each record is in requests.jsonl, in a kept spool, or
// counted as unwritten.
func TestFullDiskKeepsRecords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		quota  int64
		reqs   []int64 // requests per level
		failed string  // the file whose write fails
	}{
		// A 64 KiB spool batch does not fit: the level stops at once.
		{"spool full", 40 << 10, []int64{400}, ".jsonl.spool"},
		// Level 0 fits; level 1 (less than a batch, so its spool stays
		// in memory) does not fit beside it in requests.jsonl.
		{"log full", 60 << 10, []int64{60, 60}, "requests.jsonl"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url, received := countingMock(t)
			client, err := openai.New(url, openai.WithModel(mockserver.DefaultModel), openai.WithMaxConcurrency(8))
			if err != nil {
				t.Fatal(err)
			}
			w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 16, OutputTokens: 16}, Seed: 1, Nonce: "full"})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			fsys := quota.New(tt.quota)
			log, err := harness.CreateRecordLogIn(fsys, dir, results.RequestsJSONL, false)
			if err != nil {
				t.Fatal(err)
			}
			var scheduled, answered int64
			var runErr error
			for i, n := range tt.reqs {
				r, err := harness.New(harness.Config{Requester: client, Workload: w, Limits: loadgen.Limits{MaxRequests: n}, Log: log})
				if err != nil {
					t.Fatal(err)
				}
				s, err := r.RunLevel(context.Background(), i, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 8})
				scheduled += s.Requests.Scheduled
				answered += s.Requests.OK + s.Requests.Failed
				if err != nil {
					runErr = err
					break
				}
			}
			var we *results.WriteError
			if !errors.As(runErr, &we) || !errors.Is(runErr, syscall.ENOSPC) || we.Free < 0 {
				t.Fatalf("RunLevel error %v, want a *results.WriteError for ENOSPC with the free space", runErr)
			}
			if !strings.HasSuffix(we.Path, tt.failed) || !strings.Contains(runErr.Error(), "free on its file system") || !strings.Contains(runErr.Error(), we.Path) {
				t.Errorf("error %q does not name %s and the free space", runErr, tt.failed)
			}
			if got := received.Load(); got > scheduled || got < answered {
				t.Errorf("the summaries count %d requests, %d of them answered; the server received %d", scheduled, answered, got)
			}
			if err := log.Close(); err != nil {
				t.Fatal(err)
			}
			recs := log.Records()
			inLog, spooled := checkWhole(t, dir)
			var kept int64
			for _, k := range recs.Kept {
				kept += k.Records
			}
			if int64(inLog) != recs.InLog || int64(spooled) != kept {
				t.Errorf("files hold %d + %d records, Records says %d + %d (%s)", inLog, spooled, recs.InLog, kept, recs)
			}
			if total := recs.InLog + kept + recs.Unwritten; total != scheduled {
				t.Errorf("records: %d in the log + %d in spools + %d unwritten = %d, want the %d scheduled (%s)", recs.InLog, kept, recs.Unwritten, total, scheduled, recs)
			}
			if len(recs.Kept) != 1 || recs.Kept[0].Level != len(tt.reqs)-1 {
				t.Errorf("kept spools %+v, want the last level's", recs.Kept)
			}
			if fsys.Failures() == 0 {
				t.Error("the quota never filled")
			}
			t.Log(recs)
		})
	}
}
