package report

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/golden"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// sessionRun is a one-level run of 3-turn sessions whose summary the
// metrics Accumulator computed from seeded-by-hand records: 20 sessions,
// 18 completed, one failed at turn 2, one cut by the level's end; each
// turn's prompt grows by a 64-token reply and a 256-token message, and
// the server's prefix cache makes the later turns' TTFT fall.
func sessionRun(t *testing.T) results.Run {
	t.Helper()
	window := loadgen.Window{Start: 0, End: 60 * time.Second}
	prof := loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}
	acc := metrics.NewAccumulator(metrics.Config{Window: window, Profile: prof})
	for seq := range int64(20) {
		at := time.Duration(seq) * 2 * time.Second
		for turn := range 3 {
			ttft := time.Duration(60-20*turn+int(seq%5)) * time.Millisecond
			cached := turn * 320
			r := loadgen.Record{Seq: seq, Turn: turn, SessionTurns: 3, ScheduledAt: at, SentAt: at, Status: loadgen.StatusOK,
				FirstTokenAt: at + ttft, LastTokenAt: at + 600*time.Millisecond, DoneAt: at + 600*time.Millisecond,
				PromptTokens: 256 + 320*turn, OutputTokens: 64, ServerCachedTokens: &cached}
			switch {
			case seq == 7 && turn == 2:
				r.Status, r.ErrorKind, r.FirstTokenAt, r.LastTokenAt = loadgen.StatusError, loadgen.ErrorHTTP, 0, 0
			case seq == 19 && turn == 2:
				r.Status, r.ErrorKind, r.FirstTokenAt, r.LastTokenAt = loadgen.StatusCancelled, loadgen.ErrorCancelled, 0, 0
			}
			acc.Add(&r)
			at += 600*time.Millisecond + time.Second // think time 1 s
		}
	}
	s := acc.Summary()
	return results.Run{
		RunID:  "sessions",
		Config: results.Config{Command: "run", Model: "m", Target: "http://127.0.0.1:8000"},
		Result: sweep.Result{Levels: []sweep.LevelOutcome{{Index: 0, Phase: sweep.PhaseGrid, Profile: prof, OfferedLoad: 4, Unit: sweep.UnitConcurrency, Summary: s}}},
	}
}

// TestConsoleSessions: a multi-turn level gets its per-session line and
// per-turn table in the console report.
func TestConsoleSessions(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteConsole(&buf, sessionRun(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(goldenDir, "sessions.console.txt"), buf.Bytes())
}
