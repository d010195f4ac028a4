package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/internal/quota"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// countingPresetMock serves the mock preset on loopback and counts the
// completion requests it received.
func countingPresetMock(t *testing.T, preset string) (string, *atomic.Int64) {
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
// and no level blamed on the client. That last check needs the client
// alone on the machine: it is made without -race or -short (make timing),
// where the test and its cases run serially; elsewhere they run in
// parallel and only log a client-limited level.
func TestFullDiskKeepsPartial(t *testing.T) {
	healthChecked := !raceEnabled && !testing.Short()
	if !healthChecked {
		t.Parallel()
	}
	for _, tt := range []struct {
		name   string
		quota  int64
		rates  string
		failed string // the file whose write fails
	}{
		// The spool of the only level fills the disk mid-level.
		{"200KiB", 200 << 10, "100", ".jsonl.spool failed: no space left on device"},
		// Level 0 fits; level 1's copy to requests.jsonl does not.
		{"1.2MiB", 1200 << 10, "50,200", "requests.jsonl failed: no space left on device"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !healthChecked {
				t.Parallel()
			}
			url, received := countingPresetMock(t, "instant")
			parent := t.TempDir()
			fsys := quota.New(tt.quota)
			var stdout, stderr bytes.Buffer
			code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, fs: fsys},
				[]string{"run", "--target", url, "--profile", "constant", "--rate", tt.rates, "--max-seconds", "2",
					"--data", "prompt_tokens=16,output_tokens=64", "--warmup", "0", "--cooldown", "0", "--max-lag", lenientLag,
					"--energy", "none", "--output-dir", parent, "--run-id", "full",
					// The quotas are sized for records without user-space
					// stamps beside the kernel's, on every platform.
					"--receive-clock", "user"})
			dir := filepath.Join(parent, "full")
			if code != exitcode.Failure {
				t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout.String(), stderr.String())
			}
			msg := stderr.String()
			if !strings.Contains(msg, tt.failed) || !strings.Contains(msg, "free on its file system") || !strings.Contains(msg, dir) {
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
				switch {
				case !s.Client.ClientLimited:
				case !healthChecked:
					// 200 streams a second of 64 tokens each: under the
					// race detector, or beside other tests, the client
					// falls behind for real.
					t.Logf("level %d flagged client-limited (%s); checked only without -race and -short (make timing)", lv.Index, s.Client.Reason)
				default:
					t.Errorf("level %d flagged client-limited (%s): the disk stopped it, not the client", lv.Index, s.Client.Reason)
				}
			}
			if got := received.Load(); got > scheduled || got < answered {
				t.Errorf("run.json counts %d requests (%d answered); the server received %d", scheduled, answered, got)
			}
			recs := wholeRecords(t, dir)
			logged := strictRecords(t, filepath.Join(dir, results.RequestsJSONL))
			if last := len(run.Result.Levels) - 1; len(run.Result.Levels) > 1 && int64(len(logged)) != run.Result.Levels[0].Summary.Requests.Scheduled {
				t.Errorf("requests.jsonl has %d records, want level 0's %d (the whole levels before the failed level %d)", len(logged), run.Result.Levels[0].Summary.Requests.Scheduled, last)
			}
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

// TestMergeTornShard: the torn shard. A shard whose records file
// ends in part of a record (a full disk, a killed copy) merges its whole
// records only: the merged result is partial (exit 4) with a warning
// naming the file and the line, and the merged requests.jsonl holds no
// torn line. A line damaged in the middle of a file is refused (exit 2)
// with the file and the line, and nothing is written.
func TestMergeTornShard(t *testing.T) {
	t.Parallel()
	recs := shardRecords(rand.New(rand.NewPCG(5, 6)), 200)
	profile := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 250}
	window := loadgen.Window{Start: 0, End: time.Second}
	// makeShards writes two shards and returns the run folder and the
	// path of shard 1's records file.
	makeShards := func(t *testing.T, gz bool) (string, string) {
		dir := filepath.Join(t.TempDir(), "R")
		for i := range 2 {
			s := loadgen.Shard{Index: i, Count: 2}
			sum, mine := summarizeShard(t, recs, profile, s, window, slo.Objective{})
			run := results.Run{RunID: "R", Config: results.Config{Command: "run", Profile: "constant", Rates: []float64{250}, Shard: s.String()},
				Result: sweep.Result{Kind: sweep.KindRate, StopReason: sweep.StopCompleted, Levels: []sweep.LevelOutcome{{
					Index: 0, Phase: sweep.PhaseGrid, Profile: profile, OfferedLoad: 250, Unit: "req/s", Summary: sum}}}}
			writeShard(t, filepath.Join(dir, results.ShardDir(i)), run, mine)
		}
		path := filepath.Join(dir, results.ShardDir(1), results.RequestsJSONL)
		if gz {
			for i := range 2 {
				p := filepath.Join(dir, results.ShardDir(i), results.RequestsJSONL)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				var z bytes.Buffer
				zw := gzip.NewWriter(&z)
				zw.Write(b)
				zw.Close()
				os.Remove(p)
				if err := os.WriteFile(p+".gz", z.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path += ".gz"
		}
		return dir, path
	}
	lines := func(t *testing.T, path string) int {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(b, []byte("\n"))
	}

	for _, tt := range []struct {
		name string
		gz   bool
		// cut returns the damaged file's content.
		cut  func(b []byte) []byte
		code int
		want []string // in stderr
		kept int      // records lost from shard 1
	}{
		{"torn last line", false, func(b []byte) []byte { return b[:len(b)-40] }, exitcode.Partial,
			[]string{"requests.jsonl line 100: a torn record", "left out", "partial"}, 1},
		{"torn gzip stream", true, func(b []byte) []byte { return b[:len(b)*2/3] }, exitcode.Partial,
			[]string{"requests.jsonl.gz", "gzip stream ends early", "partial"}, -1},
		{"damaged line", false, func(b []byte) []byte {
			i := bytes.IndexByte(b, '\n')
			j := i + 1 + bytes.IndexByte(b[i+1:], '\n')
			return append(append(slices.Clone(b[:i+20]), '\n'), b[j+1:]...) // line 2 cut to 19 bytes
		}, exitcode.Usage, []string{"requests.jsonl line 2: not a whole record", "remove or repair that line"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, path := makeShards(t, tt.gz)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tt.cut(b), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := cli(t, context.Background(), "merge", dir, "--format", "csv")
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, stdout, stderr)
			}
			t.Log(stderr)
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if tt.code == exitcode.Usage {
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if !e.IsDir() {
						t.Errorf("a refused merge wrote %s", e.Name())
					}
				}
				return
			}
			run := readRun(t, dir)
			if !run.Partial || !strings.Contains(run.PartialReason, path) {
				t.Errorf("merged run.json partial %v, reason %q: want partial, naming %s", run.Partial, run.PartialReason, path)
			}
			found := false
			for _, w := range run.Result.Warnings {
				found = found || w.Code == "torn_record"
			}
			if !found {
				t.Errorf("no torn_record warning in %+v", run.Result.Warnings)
			}
			out := filepath.Join(dir, results.RequestsJSONL)
			if tt.gz {
				out += ".gz"
			}
			got := strictRecords(t, out)
			if !tt.gz && lines(t, out) != len(got) {
				t.Errorf("merged file has %d lines, %d records", lines(t, out), len(got))
			}
			if tt.kept > 0 && len(got) != len(recs)-tt.kept {
				t.Errorf("merged %d records, want %d (all but the torn one)", len(got), len(recs)-tt.kept)
			}
			if len(got) < len(recs)/2 || len(got) >= len(recs) {
				t.Errorf("merged %d records of %d", len(got), len(recs))
			}
		})
	}
}

// strictRecords reads a records file (plain or gzip) and fails the test on
// any line that is not a whole record.
func strictRecords(t *testing.T, path string) []loadgen.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := loadgen.NewDecoder(f)
	var out []loadgen.Record
	for {
		var rec loadgen.Record
		err := dec.Decode(&rec)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, rec)
	}
}

// TestFullDiskOnALongRunKeepsRunJSON: run.json grows by tens of KiB a
// level, so a reserve sized at the start stopped holding it after a few
// levels, and a disk that filled then left no run.json ("nothing more
// fitted"). The reserve now grows with each level; when the disk has no
// room for that, the levels stop there, and run.json is written, marked
// partial, and `report` re-renders it (issue 25 item 4).
func TestFullDiskOnALongRunKeepsRunJSON(t *testing.T) {
	t.Parallel()
	url, _ := countingPresetMock(t, "instant")
	parent := t.TempDir()
	fsys := quota.New(200 << 10)
	rates := strings.TrimSuffix(strings.Repeat("1,", 30), ",")
	var stdout, stderr bytes.Buffer
	code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, fs: fsys},
		[]string{"run", "--target", url, "--profile", "concurrent", "--rate", rates, "--max-requests", "4",
			"--data", "prompt_tokens=16,output_tokens=8", "--warmup", "0", "--cooldown", "0", "--max-lag", lenientLag,
			"--energy", "none", "--output-dir", parent, "--run-id", "long", "--receive-clock", "user"})
	dir := filepath.Join(parent, "long")
	if code != exitcode.Failure {
		t.Fatalf("exit %d, want 1 (a failed write)\n%s", code, stderr.String())
	}
	run, err := results.Read(dir)
	if err != nil {
		t.Fatalf("run.json: %v\n%s", err, stderr.String())
	}
	if !run.Partial || len(run.Result.Levels) == 0 || len(run.Result.Levels) >= 30 {
		t.Errorf("run.json partial %v with %d levels: want partial, with the levels before the disk filled", run.Partial, len(run.Result.Levels))
	}
	if strings.Contains(stderr.String(), "no run.json") {
		t.Errorf("stderr says run.json was lost:\n%s", stderr.String())
	}
	if code, _, errs := cli(t, context.Background(), "report", dir, "--format", "console"); code != exitcode.OK && code != exitcode.Partial {
		t.Errorf("report: exit %d\n%s", code, errs)
	}
}

// TestFailedReserveLeavesNoFolder: a disk too full for the reserve is
// refused before anything is sent, and the run folder it had created goes
// too, so that a rerun with the same --run-id once there is space is not
// refused as taken (issue 25 item 10).
func TestFailedReserveLeavesNoFolder(t *testing.T) {
	t.Parallel()
	url, received := countingPresetMock(t, "instant")
	parent := t.TempDir()
	args := []string{"run", "--target", url, "--profile", "synchronous", "--max-requests", "2",
		"--data", "prompt_tokens=4,output_tokens=2", "--energy", "none", "--max-lag", lenientLag, "--output-dir", parent, "--run-id", "again"}
	var stdout, stderr bytes.Buffer
	code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, fs: quota.New(1 << 10)}, args)
	if code == exitcode.OK || received.Load() != 0 {
		t.Fatalf("exit %d with %d requests received on a 1 KiB disk, want a refusal before sending\n%s", code, received.Load(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(parent, "again")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the run folder is left behind (%v)", err)
	}
	stderr.Reset()
	if code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}, args); code != exitcode.OK {
		t.Errorf("rerun with the same --run-id: exit %d\n%s", code, stderr.String())
	}
}
