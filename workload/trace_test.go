package workload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/tokenize"
)

// samples are the 200-line sample traces of testdata/traces, one per
// format.
var samples = []struct {
	file   string
	format TraceFormat
}{
	{"mooncake-200.jsonl", TraceMooncake},
	{"azure-200.csv", TraceAzure},
	{"burstgpt-200.csv", TraceBurstGPT},
}

func samplePath(name string) string { return filepath.Join("..", "testdata", "traces", name) }

// TestReadSampleTraces: each sample is detected, read whole (200
// requests), its times count from its first request and never decrease,
// and its lengths are those of the file.
func TestReadSampleTraces(t *testing.T) {
	for _, s := range samples {
		for _, format := range []TraceFormat{"", s.format} {
			tr, err := ReadTraceFile(samplePath(s.file), format)
			if err != nil {
				t.Fatalf("%s (format %q): %v", s.file, format, err)
			}
			if tr.Format != s.format || len(tr.Entries) != 200 {
				t.Fatalf("%s: format %q, %d requests; want %q, 200", s.file, tr.Format, len(tr.Entries), s.format)
			}
			if tr.Entries[0].At != 0 {
				t.Errorf("%s: first request at %v, want 0", s.file, tr.Entries[0].At)
			}
			for i := 1; i < len(tr.Entries); i++ {
				if tr.Entries[i].At < tr.Entries[i-1].At {
					t.Fatalf("%s: request %d before request %d", s.file, i, i-1)
				}
			}
			if span := tr.Span(); span < 2*time.Second || span > 3*time.Second {
				t.Errorf("%s: span %v, want about 2.5 s", s.file, span)
			}
		}
	}
	// Spot checks against the files' text.
	m, _ := ReadTraceFile(samplePath("mooncake-200.jsonl"), "")
	if e := m.Entries[1]; e.Line != 2 || e.At != 2*time.Millisecond || e.InputTokens != 2034 || e.OutputTokens != 16 || len(e.HashIDs) != 4 || e.HashIDs[3] != 10 {
		t.Errorf("mooncake line 2 = %+v", e)
	}
	a, _ := ReadTraceFile(samplePath("azure-200.csv"), "")
	if e := a.Entries[1]; e.Line != 3 || e.At != 29773*time.Microsecond || e.InputTokens != 1680 || e.OutputTokens != 19 {
		t.Errorf("azure line 3 = %+v (2023-11-16 18:15:46.7103630 - 46.6805900 = 29.773 ms)", e)
	}
	b, _ := ReadTraceFile(samplePath("burstgpt-200.csv"), "")
	if e := b.Entries[1]; e.Line != 3 || e.At != time.Millisecond || e.InputTokens != 950 || e.OutputTokens != 17 {
		t.Errorf("burstgpt line 3 = %+v", e)
	}
}

// TestReadTraceErrors: a malformed line is an error naming the file and
// the line, never skipped (failed rows refused, as --trace-failed refuse
// does).
func TestReadTraceErrors(t *testing.T) {
	const mc = `{"timestamp": 0, "input_length": 10, "output_length": 2}` + "\n"
	const az = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,100,5\n"
	const bg = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,100,5,105,Conversation log\n"
	for _, tt := range []struct {
		name, text string
		format     TraceFormat
		line       int
		msg        string
	}{
		{"mooncake not json", mc + "hello\n", "", 2, "not a JSON object"},
		{"mooncake bad json", mc + `{"timestamp": 1, "input_length": 1` + "\n", "", 2, "invalid JSON"},
		{"mooncake missing", mc + mc + `{"timestamp": 5}` + "\n", "", 3, "missing input_length, output_length"},
		{"mooncake fraction", mc + `{"timestamp": 5, "input_length": 1.5, "output_length": 2}` + "\n", "", 2, "input_length 1.5 is not a whole number"},
		{"mooncake zero output", mc + `{"timestamp": 5, "input_length": 3, "output_length": 0}` + "\n", "", 2, "3 input and 0 output tokens"},
		{"mooncake too many blocks", `{"timestamp": 5, "input_length": 513, "output_length": 2, "hash_ids": [1, 2, 3]}` + "\n", "", 1, "hash_ids names 3 blocks of 512 tokens, but input_length 513 holds only 2"},
		{"mooncake out of order", `{"timestamp": 5, "input_length": 3, "output_length": 2}` + "\n" + mc, "", 2, "earlier than the line before's"},
		{"mooncake string hash id", `{"timestamp": 5, "input_length": 3, "output_length": 2, "hash_ids": ["a"]}` + "\n", TraceMooncake, 1, `"hash_ids" holds a JSON string where a number is wanted`},
		// Seen: "json: cannot unmarshal string into Go struct field
		// mooncakeLine.timestamp of type float64".
		{"mooncake string timestamp", `{"timestamp": "x"}` + "\n", "", 1, `invalid JSON: "timestamp" holds a JSON string where a number is wanted`},
		{"azure bad time", az + "yesterday,10,2\n", "", 3, `TIMESTAMP "yesterday" is not a date and time`},
		// Seen: the message quoted the short row as the header (issue 25).
		{"azure short row", az + "2023-11-16 18:15:47.0,10\n", "", 3, "2 fields, but the header has 3 (TIMESTAMP,ContextTokens,GeneratedTokens)"},
		{"azure bad tokens", az + "2023-11-16 18:15:47.0,ten,2\n", "", 3, `ContextTokens "ten" is not a whole number`},
		{"azure missing column", "TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,1\n", TraceAzure, 1, "lacks the column(s) GeneratedTokens"},
		{"azure out of order", az + "2023-11-16 18:15:45.0,10,2\n", "", 3, "before the first line) is earlier than the line before's"},
		{"burstgpt failed request", bg + "6,GPT-4,100,0,100,API log\n", "", 3, "100 input and 0 output tokens"},
		{"burstgpt bad time", bg + "soon,GPT-4,100,3,103,API log\n", "", 3, `Timestamp "soon" is not a number of seconds`},
		{"burstgpt bad quote", bg + "7,\"GPT-4,100,3,103,API log\n", "", 3, "not valid CSV"},
		{"unknown format", "a,b,c\n1,2,3\n", "", 1, "neither a Mooncake JSON object nor an Azure"},
		{"blank then unknown", "\n\nhello\n", "", 3, "unknown trace format"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTraceWith(strings.NewReader(tt.text), "t.trace", tt.format, FailedRefuse)
			var te *TraceError
			if !errors.As(err, &te) {
				t.Fatalf("error %v, want a *TraceError", err)
			}
			if te.File != "t.trace" || te.Line != tt.line || !strings.Contains(err.Error(), tt.msg) || strings.Contains(err.Error(), "Go struct") {
				t.Errorf("error %q (line %d), want line %d and %q", err, te.Line, tt.line, tt.msg)
			}
		})
	}
	// Every bad line is reported (up to ten), each with its line, and the
	// rest are counted.
	text := mc + "x\n" + mc + "y\n"
	_, err := ReadTrace(strings.NewReader(text), "t.jsonl", "")
	if err == nil || !strings.Contains(err.Error(), "t.jsonl:2:") || !strings.Contains(err.Error(), "t.jsonl:4:") {
		t.Errorf("two bad lines: %v", err)
	}
	if _, err := ReadTrace(strings.NewReader(""), "empty", ""); err == nil || !strings.Contains(err.Error(), "empty trace") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := ReadTrace(strings.NewReader("TIMESTAMP,ContextTokens,GeneratedTokens\n"), "hdr", ""); err == nil || !strings.Contains(err.Error(), "no requests") {
		t.Errorf("header only: %v", err)
	}
	if !errors.Is(func() error { _, err := ReadTrace(strings.NewReader("?\n"), "q", ""); return err }(), ErrTraceFormatUnknown) {
		t.Error("an unknown format does not wrap ErrTraceFormatUnknown")
	}
	// Azure timestamps with a zone, and BurstGPT's later columns.
	tr, err := ReadTrace(strings.NewReader("TIMESTAMP,ContextTokens,GeneratedTokens\n2024-05-10 00:00:00.0095350+00:00,4,2\n2024-05-10 00:00:01.5+00:00,4,2\n"), "z", "")
	if err != nil || tr.Entries[1].At != 1490465*time.Microsecond {
		t.Errorf("zoned Azure: %+v, %v", tr.Entries, err)
	}
	tr, err = ReadTrace(strings.NewReader("Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,s,2,ChatGPT,30,4,34,API log\n"), "b", "")
	if err != nil || tr.Entries[0].InputTokens != 30 || tr.Entries[0].OutputTokens != 4 {
		t.Errorf("BurstGPT with session columns: %+v, %v", tr.Entries, err)
	}
}

func TestTraceWindowAndOffsets(t *testing.T) {
	tr, err := ReadTraceFile(samplePath("mooncake-200.jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	w, err := ParseTraceWindow("0.5,1500ms")
	if err != nil {
		t.Fatal(err)
	}
	part, err := tr.Window(w)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, e := range tr.Entries {
		if e.At >= 500*time.Millisecond && e.At < 1500*time.Millisecond {
			want++
		}
	}
	if len(part.Entries) != want || want == 0 {
		t.Fatalf("window [0.5 s, 1.5 s) kept %d requests, want %d", len(part.Entries), want)
	}
	for _, e := range part.Entries {
		if e.At < 0 || e.At >= time.Second {
			t.Fatalf("line %d at %v after the window's start, want in [0, 1 s)", e.Line, e.At)
		}
	}
	off := part.Offsets(10)
	for i, e := range part.Entries {
		if off[i] != e.At/10 {
			t.Fatalf("at 10x, line %d at %v, want %v", e.Line, off[i], e.At/10)
		}
	}
	for _, tt := range []struct{ in, msg string }{
		{"10", "want START,END"},
		{"5,2", "END 2s is not after START 5s"},
		{"x,", `START "x" is neither`},
		{"-1,", "negative"},
	} {
		if _, err := ParseTraceWindow(tt.in); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseTraceWindow(%q) = %v, want %q", tt.in, err, tt.msg)
		}
	}
	if w, err := ParseTraceWindow("1m,"); err != nil || w.Start != time.Minute || w.End != 0 {
		t.Errorf("1m, = %+v, %v", w, err)
	}
	if _, err := tr.Window(TraceWindow{Start: time.Hour}); err == nil || !errors.Is(err, ErrTraceWindowEmpty) {
		t.Errorf("an empty window: %v", err)
	}
}

// TestReplayExact: every replayed prompt counts exactly its line's input
// length in the served tokenizer (Qwen3), asks for its output length, and
// prompts whose lines share Mooncake block ids share those blocks' text
// and tokens, and nothing more.
func TestReplayExact(t *testing.T) {
	skipUnderRace(t)
	tok := qwen3(t)
	for _, s := range samples {
		tr, err := ReadTraceFile(samplePath(s.file), "")
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReplay(ReplayConfig{Trace: tr, Seed: 1, Nonce: "run", Tokenizer: tok})
		if err != nil {
			t.Fatal(err)
		}
		prompts := make([]string, len(tr.Entries))
		ids := make([][]int, len(tr.Entries))
		for k, e := range tr.Entries {
			req, err := r.RequestAt(int64(k), 1000+int64(k))
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Count(req.Prompt); got != e.InputTokens || req.PromptTokens != e.InputTokens || req.MaxTokens != e.OutputTokens {
				t.Fatalf("%s line %d: prompt %d tokens (declared %d), max_tokens %d; the trace says %d and %d", s.file, e.Line, got, req.PromptTokens, req.MaxTokens, e.InputTokens, e.OutputTokens)
			}
			prompts[k], ids[k] = req.Prompt, tok.Encode(req.Prompt, false)
		}
		// The next level's request k is line k again.
		again, _ := r.RequestAt(3, 5000)
		if again.Prompt != prompts[3] {
			t.Errorf("%s: request 3 of another level differs", s.file)
		}
		if s.format != TraceMooncake {
			for k := 1; k < len(prompts); k++ {
				if common := commonPrefix(ids[k-1], ids[k]); common > 2 {
					t.Errorf("%s: lines %d and %d share %d leading tokens; lines without blocks share none", s.file, k, k+1, common)
				}
			}
			continue
		}
		checked := 0
		for i := range tr.Entries {
			for j := i + 1; j < len(tr.Entries) && j < i+40; j++ {
				a, b := tr.Entries[i], tr.Entries[j]
				shared := 0
				for shared < len(a.HashIDs) && shared < len(b.HashIDs) && a.HashIDs[shared] == b.HashIDs[shared] {
					shared++
				}
				// Whole blocks shared by both (a partial last block shares its start).
				full := min(shared*MooncakeBlockTokens, a.InputTokens, b.InputTokens)
				common := commonPrefix(ids[i], ids[j])
				if common < full || common > full+2 {
					t.Fatalf("lines %d and %d share %d blocks (%d tokens) but %d leading tokens", a.Line, b.Line, shared, full, common)
				}
				if shared > 0 {
					checked++
				}
			}
		}
		if checked < 50 {
			t.Errorf("only %d pairs of sample lines share blocks", checked)
		}
	}
}

// commonTokens counts the leading tokens a and b share.
func commonTokens(tok *tokenize.Tokenizer, a, b string) int {
	return commonPrefix(tok.Encode(a, false), tok.Encode(b, false))
}

// commonPrefix counts the leading ids x and y share.
func commonPrefix(x, y []int) int {
	n := 0
	for n < len(x) && n < len(y) && x[n] == y[n] {
		n++
	}
	return n
}

// TestReplayWords: without a tokenizer, lengths are in words.
func TestReplayWords(t *testing.T) {
	tr, err := ReadTraceFile(samplePath("mooncake-200.jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplay(ReplayConfig{Trace: tr, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for k, e := range tr.Entries {
		req, _ := r.Request(int64(k))
		if got := len(strings.Fields(req.Prompt)); got != e.InputTokens || req.PromptTokens != 0 {
			t.Fatalf("line %d: %d words (declared %d), want %d", e.Line, got, req.PromptTokens, e.InputTokens)
		}
	}
	if _, err := NewReplay(ReplayConfig{Trace: tr, MaxPreparedBytes: 1 << 10}); err == nil || !strings.Contains(err.Error(), "trace window") {
		t.Errorf("a trace over the memory limit: %v", err)
	}
}

// TestReplayOtherTokenizers: exact lengths with the other shipped
// vocabularies too (SentencePiece-style Mistral, o200k gpt-oss).
func TestReplayOtherTokenizers(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("encodes 2 × 60 prompts")
	}
	tr, err := ReadTraceFile(samplePath("mooncake-200.jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	tr.Entries = tr.Entries[:60]
	for _, name := range []string{"mistral-7b", "gpt-oss"} {
		tok, err := tokenize.Load(filepath.Join("..", "testdata", "tokenizers", "files", name))
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReplay(ReplayConfig{Trace: tr, Seed: 2, Tokenizer: tok})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k, e := range tr.Entries {
			req, _ := r.RequestAt(int64(k), int64(k))
			if got := tok.Count(req.Prompt); got != e.InputTokens {
				t.Fatalf("%s line %d: %d tokens, want %d", name, e.Line, got, e.InputTokens)
			}
		}
	}
}

func TestSharedPrefix(t *testing.T) {
	sp, err := ParseSharedPrefix("groups=3,prompts=4,prefix=300,question=40,output=16")
	if err != nil {
		t.Fatal(err)
	}
	if sp.State() != "shared:3x300" || sp.String() != "groups=3,prompts=4,prefix=300,question=40,output=16" {
		t.Errorf("state %q, string %q", sp.State(), sp.String())
	}
	tok := qwen3(t)
	w, err := NewSharedPrefix(SharedPrefixConfig{Spec: sp, Seed: 9, Nonce: "n", Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	perGroup := map[int]int{}
	for seq := range int64(12) {
		req, _ := w.Request(seq)
		if got := tok.Count(req.Prompt); got != 340 || req.PromptTokens != 340 || req.MaxTokens != 16 {
			t.Fatalf("seq %d: %d tokens (declared %d), max_tokens %d", seq, got, req.PromptTokens, req.MaxTokens)
		}
		seen[req.Prompt] = true
		perGroup[w.Group(seq)]++
		for other := range seq {
			o, _ := w.Request(other)
			common := commonTokens(tok, req.Prompt, o.Prompt)
			same := w.Group(other) == w.Group(seq)
			if same && (common < 300 || common > 302) || !same && common > 2 {
				t.Fatalf("seq %d and %d (groups %d, %d) share %d leading tokens", seq, other, w.Group(seq), w.Group(other), common)
			}
		}
	}
	if len(seen) != 12 || len(perGroup) != 3 || perGroup[0] != 4 {
		t.Errorf("%d distinct prompts, groups %v; want 12 prompts, 4 per group", len(seen), perGroup)
	}
	if a, _ := w.Request(0); func() string { b, _ := w.Request(12); return b.Prompt }() != a.Prompt {
		t.Error("request 12 is not prompt 0 again")
	}
	words, err := NewSharedPrefix(SharedPrefixConfig{Spec: sp, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if req, _ := words.Request(5); len(strings.Fields(req.Prompt)) != 340 || req.PromptTokens != 0 {
		t.Errorf("without a tokenizer: %d words", len(strings.Fields(req.Prompt)))
	}
	for _, tt := range []struct{ in, msg string }{
		{"groups=8,prompts=64,prefix=2048,question=128", "output is missing"},
		{"groups=0,prompts=64,prefix=2048,question=128,output=2", "groups (SharedPrefixSpec.Groups) must be between 1"},
		{"groups=8,prompts=64,prefix=-1,question=128,output=2", "prefix (SharedPrefixSpec.PrefixTokens) must be"},
		{"groups=8,prompts=x,prefix=1,question=1,output=1", `prompts="x" is not a whole number`},
		{"groups=8,colour=2", `unknown key "colour"`},
		{"groups=8,groups=9,prompts=1,prefix=1,question=1,output=1", "groups is given twice"},
		{"groups", "is not key=value"},
	} {
		if _, err := ParseSharedPrefix(tt.in); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseSharedPrefix(%q) = %v, want %q", tt.in, err, tt.msg)
		}
	}
}

func fuzzTrace(f *testing.F, format TraceFormat, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := ReadTrace(strings.NewReader(text), "fuzz", format)
		if err != nil {
			var te *TraceError
			if !errors.As(err, &te) && !strings.Contains(err.Error(), "fuzz") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		if len(tr.Entries) == 0 || tr.Entries[0].At != 0 {
			t.Fatalf("accepted a trace without requests or not starting at 0: %+v", tr.Entries)
		}
		for i, e := range tr.Entries {
			if e.InputTokens < 1 || e.OutputTokens < 1 || e.Line < 1 || (i > 0 && e.At < tr.Entries[i-1].At) {
				t.Fatalf("accepted an invalid entry %+v", e)
			}
			if len(e.HashIDs)*MooncakeBlockTokens >= e.InputTokens+MooncakeBlockTokens {
				t.Fatalf("accepted more blocks than the input holds: %+v", e)
			}
		}
	})
}

func sampleSeed(f *testing.F, name string) string {
	data, err := os.ReadFile(samplePath(name))
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	return strings.Join(lines[:min(len(lines), 6)], "")
}

func FuzzReadMooncake(f *testing.F) {
	fuzzTrace(f, TraceMooncake, sampleSeed(f, "mooncake-200.jsonl"), `{"timestamp": 1e3, "input_length": 1, "output_length": 1, "hash_ids": []}`, "{}\n\n{")
}

func FuzzReadAzure(f *testing.F) {
	fuzzTrace(f, TraceAzure, sampleSeed(f, "azure-200.csv"), "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-05-10T00:00:00Z,1,1\n", "TIMESTAMP\n\"")
}

func FuzzReadBurstGPT(f *testing.F) {
	fuzzTrace(f, TraceBurstGPT, sampleSeed(f, "burstgpt-200.csv"), "Request tokens,Response tokens,Timestamp\n1,1,1e9\n", "Request tokens,Response tokens,Timestamp\n5,0,1\n0,0,2\n")
}

func FuzzDetectTrace(f *testing.F) {
	fuzzTrace(f, "", sampleSeed(f, "mooncake-200.jsonl"), sampleSeed(f, "azure-200.csv"), sampleSeed(f, "burstgpt-200.csv"))
}

func FuzzParseTraceWindow(f *testing.F) {
	for _, s := range []string{"10m,20m", ",5", "1.5,", "0,0", "1h,1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseTraceWindow(s)
		if err == nil && (w.Start < 0 || w.End < 0 || (w.End != 0 && w.End <= w.Start)) {
			t.Fatalf("ParseTraceWindow(%q) = %+v", s, w)
		}
	})
}

func FuzzParseSharedPrefix(f *testing.F) {
	for _, s := range []string{"groups=8,prompts=64,prefix=2048,question=128,output=256", "groups=1", "=,=", "groups=1,prompts=1,prefix=1,question=1,output=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSharedPrefix(s)
		if err == nil {
			if verr := sp.Validate(); verr != nil {
				t.Fatalf("ParseSharedPrefix(%q) accepted %+v: %v", s, sp, verr)
			}
		}
	})
}

// TestSegmentsAdditive: with the byte-level tokenizers, a prompt's length
// is the sum of its pieces' (the fast path: no prompt is counted whole);
// SentencePiece-style Mistral is checked prompt by prompt instead.
func TestSegmentsAdditive(t *testing.T) {
	skipUnderRace(t)
	for name, want := range map[string]bool{"qwen3": true, "gpt-oss": true} {
		tok, err := tokenize.Load(filepath.Join("..", "testdata", "tokenizers", "files", name))
		if err != nil {
			t.Fatal(err)
		}
		s, err := newSegments(tok, "")
		if err != nil {
			t.Fatal(err)
		}
		if s.additive != want {
			t.Errorf("%s: additive %v, want %v", name, s.additive, want)
		}
	}
}

func TestLoadTrace(t *testing.T) {
	p, err := LoadTrace(TraceSpec{File: samplePath("burstgpt-200.csv"), Speedup: 2, Window: TraceWindow{Start: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Lines != 200 || len(p.SHA256) != 64 || len(p.Trace.Entries) == 0 || len(p.Trace.Entries) >= 200 || p.PrefixCacheState() != "cold" {
		t.Fatalf("plan: %d lines, %d replayed, sha %q, state %q", p.Lines, len(p.Trace.Entries), p.SHA256, p.PrefixCacheState())
	}
	o := p.Offsets()
	lim := p.Limits()
	gap := max((o[len(o)-1]-o[0])/time.Duration(len(o)-1), MinTraceTail)
	if lim.MaxRequests != int64(len(o)) || lim.MaxDuration != o[len(o)-1]+gap || p.Span() != o[len(o)-1]-o[0] {
		t.Errorf("limits %+v for %d arrivals ending at %v", lim, len(o), o[len(o)-1])
	}
	if got, want := p.Rate(), float64(len(o))/o[len(o)-1].Seconds(); got != want {
		t.Errorf("rate %v, want %v", got, want)
	}
	if got := p.Pacer().Arrival(3, 0); got != o[3] {
		t.Errorf("pacer arrival 3 at %v, want %v", got, o[3])
	}
	if _, err := LoadTrace(TraceSpec{File: samplePath("burstgpt-200.csv"), Speedup: -1}); err == nil || !strings.Contains(err.Error(), "TraceSpec.Speedup") {
		t.Errorf("negative speedup: %v", err)
	}
	if m, err := LoadTrace(TraceSpec{File: samplePath("mooncake-200.jsonl")}); err != nil || m.PrefixCacheState() != "trace" || m.Spec.Speedup != 1 {
		t.Errorf("mooncake plan: %v", err)
	}
}

// burstGPTWithFailures is a BurstGPT CSV as published: 40 requests of
// which 4 failed in the traced service (0 response tokens), and 12 lines
// of 0 tokens on both sides.
func burstGPTWithFailures() string {
	var b strings.Builder
	b.WriteString("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n")
	for i := range 40 {
		out := 5 + i%7
		if i%10 == 3 {
			out = 0
		}
		fmt.Fprintf(&b, "%d,ChatGPT,%d,%d,%d,Conversation log\n", 5+i, 20+i, out, 20+i+out)
	}
	return b.String()
}

// TestTraceFailedRows: what issue 28 saw: "BurstGPT as published cannot be
// replayed: its 17 zero-response-token rows in the first 400 (failed
// requests in the original service) are refused, exit 2, and the message
// names 10 of them without saying more exist". Such rows are replayed by
// default (1 output token), skipped, or refused with every one counted.
func TestTraceFailedRows(t *testing.T) {
	text := burstGPTWithFailures()
	tr, err := ReadTrace(strings.NewReader(text), "b.csv", "")
	if err != nil {
		t.Fatalf("the file as published: %v", err)
	}
	if len(tr.Entries) != 40 || tr.FailedRows != 4 || tr.FailedPolicy != FailedReplay {
		t.Fatalf("replay: %d entries, %d failed rows, policy %q", len(tr.Entries), tr.FailedRows, tr.FailedPolicy)
	}
	if e := tr.Entries[3]; !e.Failed || e.OutputTokens != 1 || e.InputTokens != 23 || e.At != 3*time.Second {
		t.Errorf("a failed row replayed: %+v", e)
	}
	tr, err = ReadTraceWith(strings.NewReader(text), "b.csv", "", FailedSkip)
	if err != nil || len(tr.Entries) != 36 || tr.FailedRows != 4 || tr.Entries[3].Line != 6 {
		t.Errorf("skip: %d entries, %d failed rows, %v", len(tr.Entries), tr.FailedRows, err)
	}
	_, err = ReadTraceWith(strings.NewReader(text), "b.csv", "", FailedRefuse)
	if err == nil || !strings.Contains(err.Error(), "b.csv:5:") || !strings.Contains(err.Error(), "the failed-row policy FailedReplay") {
		t.Errorf("refuse: %v", err)
	}
	// More bad lines than are listed: the rest are counted.
	var many strings.Builder
	many.WriteString("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n")
	for i := range 17 {
		fmt.Fprintf(&many, "%d,GPT-4,0,0,0,API log\n", i)
	}
	_, err = ReadTrace(strings.NewReader(many.String()), "z.csv", "")
	if err == nil || strings.Count(err.Error(), "z.csv:") != 11 || !strings.Contains(err.Error(), "and 7 more bad lines, not listed") {
		t.Errorf("17 bad lines: %v", err)
	}
	if _, err := ParseFailedRows("drop"); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Errorf("ParseFailedRows(drop) = %v", err)
	}
}
