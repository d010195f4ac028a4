package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

var qwen3Path = filepath.Join("..", "..", "testdata", "tokenizers", "files", "qwen3")

// TestSessionsBadInput: bad session flags are refused with exit 2, naming
// the flag and the fix, before any request reaches the target.
func TestSessionsBadInput(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no request should reach the target", http.StatusTeapot)
	}))
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "prompts.jsonl")
	share := filepath.Join(dir, "chat.json")
	os.WriteFile(jsonl, []byte(`{"prompt":"hello"}`+"\n"), 0o644)
	os.WriteFile(share, []byte(`[{"conversations":[{"from":"human","value":"`+strings.Repeat("word ", 200)+`"},{"from":"gpt","value":"x"},{"from":"human","value":"more"}]}]`), 0o644)
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"completions endpoint", []string{"run", "--turns", "3"}, []string{"--turns 3", "add --endpoint chat"}},
		{"negative think time", []string{"run", "--endpoint", "chat", "--turns", "3", "--think-time", "-1s"}, []string{"--think-time -1s", "cannot be negative"}},
		{"negative uniform think time", []string{"run", "--endpoint", "chat", "--turns", "3", "--think-time", "uniform:-2s:1s"}, []string{"--think-time uniform:-2s:1s", "cannot be negative"}},
		{"more turns than the context", []string{"run", "--endpoint", "chat", "--turns", "40", "--max-context", "8192"},
			[]string{"--turns 40", "12800 tokens", "--max-context 8192", "at most 25 turns fit"}},
		{"more dataset turns than the context", []string{"run", "--endpoint", "chat", "--turns", "dataset", "--dataset", share, "--tokenizer", qwen3Path, "--max-context", "300"},
			[]string{"--turns dataset", "conversation 1 plays 2 turns", "--max-context 300"}},
		{"think time without turns", []string{"run", "--think-time", "2s"}, []string{"--think-time without --turns"}},
		{"max context without turns", []string{"run", "--max-context", "4096"}, []string{"--max-context without --turns"}},
		{"bad turns", []string{"run", "--endpoint", "chat", "--turns", "uniform:6:2"}, []string{"--turns uniform:6:2", "below the minimum"}},
		{"zero turns", []string{"run", "--endpoint", "chat", "--turns", "0"}, []string{"--turns 0", "at least 1 turn"}},
		{"dataset turns without a dataset", []string{"run", "--endpoint", "chat", "--turns", "dataset"}, []string{"--turns dataset", "give --dataset FILE"}},
		{"a JSONL dataset", []string{"run", "--endpoint", "chat", "--turns", "3", "--dataset", jsonl}, []string{"--dataset with --turns", "not a ShareGPT JSON array"}},
		{"sweep", []string{"sweep", "--endpoint", "chat", "--turns", "3"}, []string{"--turns 3 with `gollm-bench sweep`"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.args, "--target", ts.URL, "--rate", "1", "--max-requests", "2", "--energy", "none", "--output-dir", t.TempDir())
			code, stdout, stderr := cli(t, context.Background(), args...)
			if code != exitcode.Usage {
				t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the target got %d requests before the refusals", n)
	}
}

// sessionMock serves a fixed-latency mock that counts prompt tokens with
// the Qwen3 tokenizer, with 1 ms of prefill per uncached token and its
// prefix cache on (block > 0) or off.
func sessionMock(t *testing.T, tok *tokenize.Tokenizer, block int) string {
	t.Helper()
	s, err := mockserver.New(mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond, PrefillPerToken: time.Millisecond, PrefixCacheBlockTokens: block},
		mockserver.WithTokenCounter(tok.Count))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL
}

// qwen3NoTemplate is Qwen3's tokenizer.json alone, without the
// tokenizer_config.json that holds its chat template: the mock counts
// messages without any template, so the messages are sized without one.
func qwen3NoTemplate(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(qwen3Path, "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json.gz")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runSessions runs 4 sessions of 3 turns (64-token messages, 16-token
// replies, 50 ms think time), 2 at a time, and returns the run and its
// records.
func runSessions(t *testing.T, url string) (results.Run, []loadgen.Record, string) {
	t.Helper()
	dir := t.TempDir()
	code, stdout, stderr := cli(t, context.Background(), "run", "--target", url, "--endpoint", "chat", "--turns", "3", "--think-time", "50ms",
		"--tokenizer", qwen3NoTemplate(t), "--profile", "concurrent", "--rate", "2", "--max-requests", "4", "--warmup", "0", "--cooldown", "0",
		"--data", "prompt_tokens=64,output_tokens=16", "--energy", "none", "--output-dir", dir, "--run-id", "s", "--max-lag", lenientLag)
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	return run, readRecords(t, filepath.Join(dir, "s", results.RequestsJSONL)), stdout
}

// TestSessionsAgainstMock is the acceptance of multi-turn sessions: each
// turn's ISL grows by exactly the previous reply plus the new 64-token
// message, in the server's usage and in our own count; each turn is due
// at its predecessor's end plus the think time; the server's cached
// prompt tokens grow by turn; run.json, the scorecard's data spec and the
// console declare the sessions and give the figures by turn.
func TestSessionsAgainstMock(t *testing.T) {
	t.Parallel()
	tok, err := tokenize.Load(qwen3Path)
	if err != nil {
		t.Fatal(err)
	}
	run, recs, stdout := runSessions(t, sessionMock(t, tok, 16))
	if len(recs) != 12 {
		t.Fatalf("%d records, want 4 sessions × 3 turns", len(recs))
	}
	bySession := map[int64][]loadgen.Record{}
	for _, r := range recs {
		if r.Status != loadgen.StatusOK || r.SessionTurns != 3 {
			t.Fatalf("record %+v", r)
		}
		bySession[r.Seq] = append(bySession[r.Seq], r)
	}
	for seq, turns := range bySession {
		for i, r := range turns {
			if r.Turn != i {
				t.Fatalf("session %d: record %d is turn %d", seq, i, r.Turn)
			}
			if r.ServerCachedTokens == nil {
				t.Fatalf("session %d turn %d: no cached_tokens", seq, i)
			}
			if i == 0 {
				if r.ServerPromptTokens != 64 || r.LocalPromptTokens != 64 || *r.ServerCachedTokens != 0 {
					t.Errorf("session %d turn 0: ISL %d (ours %d), cached %d; want 64, 64, 0", seq, r.ServerPromptTokens, r.LocalPromptTokens, *r.ServerCachedTokens)
				}
				continue
			}
			p := turns[i-1]
			if want := p.ServerPromptTokens + p.ServerOutputTokens + 64; r.ServerPromptTokens != want {
				t.Errorf("session %d turn %d: server ISL %d, want %d + reply %d + 64 = %d", seq, i, r.ServerPromptTokens, p.ServerPromptTokens, p.ServerOutputTokens, want)
			}
			if want := p.LocalPromptTokens + p.LocalOutputTokens + 64; r.LocalPromptTokens != want {
				t.Errorf("session %d turn %d: our ISL %d, want %d + reply %d + 64 = %d", seq, i, r.LocalPromptTokens, p.LocalPromptTokens, p.LocalOutputTokens, want)
			}
			if want := p.DoneAt + 50*time.Millisecond; r.ScheduledAt != want {
				t.Errorf("session %d turn %d: scheduled at %v, want the previous end + 50 ms = %v", seq, i, r.ScheduledAt, want)
			}
			if *r.ServerCachedTokens <= *p.ServerCachedTokens {
				t.Errorf("session %d turn %d: cached %d, not above turn %d's %d", seq, i, *r.ServerCachedTokens, i-1, *p.ServerCachedTokens)
			}
		}
	}
	ss := run.Result.Levels[0].Summary.Sessions
	if ss == nil || ss.Sessions != 4 || ss.Completed != 4 || len(ss.Turns) != 3 || ss.Turns[2].PromptTokens.Mean != 64*3+16*2 {
		t.Fatalf("summary sessions %+v", ss)
	}
	if c := run.Config.Sessions; c == nil || c.Turns != "3" || c.ThinkTime != "50ms" || c.Concurrency != "sessions" {
		t.Errorf("run.json config.sessions %+v", c)
	}
	if !strings.Contains(run.Metadata.DataSpec, "sessions:turns=3,think_time=50ms,concurrency=sessions") {
		t.Errorf("data spec %q does not declare the sessions", run.Metadata.DataSpec)
	}
	if !strings.Contains(stdout, "sessions, level 0: 4 sessions (4 completed") || !strings.Contains(stdout, "turn  sent  ok  ISL  cached") {
		t.Errorf("console lacks the session figures:\n%s", stdout)
	}
}

// TestSessionsTTFTFallsWithPrefixCache: with the mock's prefix cache on,
// the later turns prefill only what is new (the last reply and message,
// and partial blocks), so their TTFT is well below the same turns' with
// the cache off, where it grows with the conversation. The margin is
// wide (about 64 against 224 ms of prefill at turn 2); the exact figures
// are checked in simulated time by mockserver's TestPrefixCacheTTFTByTurn.
func TestSessionsTTFTFallsWithPrefixCache(t *testing.T) {
	if testing.Short() {
		t.Skip("compares wall-clock TTFTs")
	}
	t.Parallel()
	tok, err := tokenize.Load(qwen3Path)
	if err != nil {
		t.Fatal(err)
	}
	cold, _, _ := runSessions(t, sessionMock(t, tok, 0))
	warm, _, _ := runSessions(t, sessionMock(t, tok, 16))
	c, w := cold.Result.Levels[0].Summary.Sessions, warm.Result.Levels[0].Summary.Sessions
	for turn := 1; turn < 3; turn++ {
		ct, wt := c.Turns[turn].TTFT.P50, w.Turns[turn].TTFT.P50
		if !(wt < 0.6*ct) {
			t.Errorf("turn %d: TTFT p50 %.1f ms with the cache, %.1f ms without: want a clear drop", turn, wt, ct)
		}
	}
	if !(c.Turns[2].TTFT.P50 > c.Turns[0].TTFT.P50) {
		t.Errorf("without the cache, TTFT p50 by turn %.1f, %.1f, %.1f ms: want it to grow with the prompt", c.Turns[0].TTFT.P50, c.Turns[1].TTFT.P50, c.Turns[2].TTFT.P50)
	}
}
