package results

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// recordLines encodes recs as JSON Lines, as the records log writes them.
func recordLines(t testing.TB, recs ...loadgen.Record) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func okRecord(level int, seq int64, sent time.Duration, inWindow bool) loadgen.Record {
	return loadgen.Record{Seq: seq, Level: level, ScheduledAt: sent, SentAt: sent, InWindow: inWindow, Status: loadgen.StatusOK,
		FirstTokenAt: sent + 20*time.Millisecond, LastTokenAt: sent + 80*time.Millisecond, DoneAt: sent + 80*time.Millisecond,
		OutputTokens: 4, PromptTokens: 16}
}

// TestRecoverFromRecords: a folder left by kill -9 (issue 25 item 9):
// requests.jsonl.gz with level 0 (its in_window flags final) and a
// warm-up request, and level 1's spool ending in a torn line. Recover
// rebuilds both levels, partial, level 0 by its flags and level 1 with
// every request it sent; the warm-up request and the torn line count in
// neither.
func TestRecoverFromRecords(t *testing.T) {
	dir := t.TempDir()
	var recs []loadgen.Record
	warm := okRecord(loadgen.WarmupLevel, 0, time.Second, false)
	warm.Phase = loadgen.PhaseWarmup
	recs = append(recs, warm)
	for i := range 10 {
		recs = append(recs, okRecord(0, int64(i+1), time.Duration(i+2)*time.Second, i >= 2 && i < 8)) // 6 in the window
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(recordLines(t, recs...))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, RequestsJSONLGz), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var lvl1 []loadgen.Record
	for i := range 5 {
		lvl1 = append(lvl1, okRecord(1, int64(i+20), time.Duration(i+20)*time.Second, false))
	}
	spool := append(recordLines(t, lvl1...), `{"seq":30,"level":1,"sta`...)
	if err := os.WriteFile(filepath.Join(dir, "requests-level-1-123.jsonl.spool"), spool, 0o644); err != nil {
		t.Fatal(err)
	}
	run, rec, err := Recover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Check(); err != nil {
		t.Errorf("the rebuilt run does not check: %v", err)
	}
	if !run.Partial || !strings.Contains(run.PartialReason, "no run.json") || run.RunID != filepath.Base(dir) {
		t.Errorf("run partial %v (%q), id %q", run.Partial, run.PartialReason, run.RunID)
	}
	if len(run.Result.Levels) != 2 {
		t.Fatalf("%d levels, want 2", len(run.Result.Levels))
	}
	l0, l1 := run.Result.Levels[0], run.Result.Levels[1]
	if l0.Partial || l0.Summary.Requests.Sent != 6 || l0.Summary.Requests.OK != 6 {
		t.Errorf("level 0: partial %v, %+v; want whole, its 6 requests in the window", l0.Partial, l0.Summary.Requests)
	}
	if !l1.Partial || l1.Summary.Requests.Sent != 5 || l1.Summary.Requests.OK != 5 {
		t.Errorf("level 1: partial %v, %+v; want cut off, its 5 whole records", l1.Partial, l1.Summary.Requests)
	}
	if l1.Verdict.Outcome != "inconclusive" {
		t.Errorf("level 1 verdict %q: the SLO is not known", l1.Verdict.Outcome)
	}
	if rec.Records != 15 || rec.Skipped != 1 || len(rec.Files) != 2 || !rec.Levels[0].WindowKnown || rec.Levels[1].WindowKnown {
		t.Errorf("recovery %+v: want 15 records, 1 torn line, 2 files, level 0's window known and level 1's not", rec)
	}
	if !strings.Contains(rec.String(), "1 torn last line") {
		t.Errorf("recovery says %q", rec)
	}

	// A run.json present: OpenOrRecover opens it; none and no records:
	// Open's error.
	empty := t.TempDir()
	if _, _, _, err := OpenOrRecover(empty); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("an empty folder: %v, want Open's not-found error", err)
	}
	if _, _, err := Recover(empty); !errors.Is(err, ErrNoRecords) {
		t.Errorf("Recover on an empty folder: %v, want ErrNoRecords", err)
	}
	if _, _, got, err := OpenOrRecover(dir); err != nil || got == nil {
		t.Errorf("OpenOrRecover: recovered %v, err %v", got, err)
	}
}

// FuzzRecover: whatever a killed run left in requests.jsonl and a spool,
// Recover returns a run that checks, or an error; it never panics.
func FuzzRecover(f *testing.F) {
	r := okRecord(0, 1, time.Second, true)
	line, _ := json.Marshal(&r)
	f.Add(append(line, '\n'), []byte(`{"seq":2,"level":1,"sent_at":5}`+"\n"+`{"seq":3,"le`))
	f.Add([]byte(""), []byte("\n\n"))
	f.Add([]byte(`{"seq":1,"level":-1,"phase":"warmup"}`+"\n"), []byte(`{"level":3}`+"\n"+`[1]`+"\n"))
	f.Fuzz(func(t *testing.T, log, spool []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, RequestsJSONL), log, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "requests-level-1-7.jsonl.spool"), spool, 0o644); err != nil {
			t.Fatal(err)
		}
		run, rec, err := Recover(dir)
		if err != nil {
			return
		}
		if err := run.Check(); err != nil {
			t.Fatalf("rebuilt run does not check: %v", err)
		}
		if !run.Partial || len(run.Result.Levels) != len(rec.Levels) {
			t.Fatalf("partial %v, %d levels for %d recovered", run.Partial, len(run.Result.Levels), len(rec.Levels))
		}
	})
}

// TestRecoverBoundsLevelsAndLines: Recover refuses a records file with
// more than MaxRecoveredLevels distinct levels, naming the file and the
// line of the first level too many; builds the summaries of many levels a
// batch at a time, each right; and leaves out a torn last line longer than
// MaxRecordLine without keeping it (issue 25, second review: 2,000
// distinct levels took 7.27 GB, a 300 MB torn line 1.2 GB).
func TestRecoverBoundsLevelsAndLines(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, data []byte) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, RequestsJSONL), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	var many []loadgen.Record
	for l := range MaxRecoveredLevels + 1 {
		many = append(many, okRecord(l, int64(l), time.Second, true))
	}
	_, _, err := Recover(write(t, recordLines(t, many...)))
	if err == nil || !strings.Contains(err.Error(), "requests.jsonl: line 1001: record of level 1000: more than 1000 distinct levels") {
		t.Errorf("%d levels: %v, want a refusal naming line 1001", len(many), err)
	}

	var recs []loadgen.Record
	for l := range 2*recoverBatch + 3 {
		for i := range l%3 + 1 {
			recs = append(recs, okRecord(l, int64(10*l+i), time.Duration(i+1)*time.Second, true))
		}
	}
	torn := append(recordLines(t, recs...), []byte(`{"seq":9999,"error_message":"`+strings.Repeat("x", MaxRecordLine+10))...)
	run, rec, err := Recover(write(t, torn))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Skipped != 1 || rec.Records != int64(len(recs)) || len(run.Result.Levels) != 2*recoverBatch+3 {
		t.Fatalf("%d records, %d skipped, %d levels; want %d, 1 (the torn line), %d", rec.Records, rec.Skipped, len(run.Result.Levels), len(recs), 2*recoverBatch+3)
	}
	for i, lv := range run.Result.Levels {
		if lv.Index != i || lv.Summary.Requests.OK != int64(i%3+1) {
			t.Errorf("level %d (index %d): %d ok, want %d", i, lv.Index, lv.Summary.Requests.OK, i%3+1)
		}
	}
}
