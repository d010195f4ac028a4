package workload

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gollm-bench/gollm-bench/tokenize"
)

// tokenizerCounter stands in for a server's tokenize endpoint: it counts
// with a served tokenizer, special tokens added (a BOS where the model has
// one), and counts its calls.
type tokenizerCounter struct {
	tok   *tokenize.Tokenizer
	calls atomic.Int64
}

func (c *tokenizerCounter) Count(_ context.Context, text string) (int, error) {
	c.calls.Add(1)
	return len(c.tok.Encode(text, true)), nil
}

// TestServerCountedPromptsAreExact: with only a server's counts (no
// tokenizer of our own), every prompt counts exactly its drawn ISL in the
// server's count, for byte-level BPE (Qwen3, gpt-oss) and SentencePiece
// with a BOS (Mistral), fixed and drawn lengths, in a bounded number of
// count requests made before any request is built.
func TestServerCountedPromptsAreExact(t *testing.T) {
	skipUnderRace(t) // tokenizing 2,000-token prompts; no concurrency to check
	t.Parallel()
	for _, name := range []string{"qwen3", "gpt-oss", "mistral-7b"} {
		tok, err := tokenize.Load(filepath.Join("..", "testdata", "tokenizers", "files", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range []string{"prompt_tokens=32", "prompt_tokens=128", "prompt_tokens=512", "prompt_tokens=2000", "prompt_tokens=300,prompt_tokens_stdev=60"} {
			t.Run(name+"/"+spec, func(t *testing.T) {
				t.Parallel()
				d, err := ParseData(spec + ",output_tokens=8")
				if err != nil {
					t.Fatal(err)
				}
				c := &tokenizerCounter{tok: tok}
				w, err := NewSynthetic(SyntheticConfig{Lengths: d, Seed: 7, Nonce: "run", Counter: c})
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Prepare(t.Context()); err != nil {
					t.Fatal(err)
				}
				prepared := c.calls.Load()
				if limit := int64(16 + 2 + 34*maxCountRounds); prepared > limit {
					t.Errorf("Prepare asked %d counts, more than %d", prepared, limit)
				}
				seen := map[string]bool{}
				for seq := range int64(40) {
					req, err := w.Request(seq)
					if err != nil {
						t.Fatal(err)
					}
					got := len(tok.Encode(req.Prompt, true))
					if got != req.PromptTokens || req.PromptTokens != req.RequestedPromptTokens {
						t.Fatalf("request %d: server counts %d, declared %d, asked %d", seq, got, req.PromptTokens, req.RequestedPromptTokens)
					}
					first := strings.Join(strings.Fields(req.Prompt)[:16], " ")
					if seen[first] {
						t.Errorf("request %d repeats a marker: %q", seq, first)
					}
					seen[first] = true
				}
				if c.calls.Load() != prepared {
					t.Errorf("Request asked the server %d times: counts belong to Prepare", c.calls.Load()-prepared)
				}
			})
		}
	}
}

// wordCounter counts words, and optionally counts the filler as two.
type wordCounter struct{ fillerTwice bool }

func (c wordCounter) Count(_ context.Context, text string) (int, error) {
	n := len(strings.Fields(text))
	if c.fillerTwice {
		n += strings.Count(text, fillerWord)
	}
	return n, nil
}

func TestServerCountedPromptErrors(t *testing.T) {
	t.Parallel()
	d := Data{PromptTokens: 64, OutputTokens: 4}
	w, err := NewSynthetic(SyntheticConfig{Lengths: d, Counter: wordCounter{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Request(0); err == nil || !strings.Contains(err.Error(), "Prepare") {
		t.Errorf("Request before Prepare: %v, want an error naming Prepare", err)
	}
	short, _ := NewSynthetic(SyntheticConfig{Lengths: Data{PromptTokens: 10, OutputTokens: 4}, Counter: wordCounter{}})
	if err := short.Prepare(t.Context()); !errors.Is(err, ErrPromptTooShort) {
		t.Errorf("ISL 10: %v, want ErrPromptTooShort", err)
	}
	twice, _ := NewSynthetic(SyntheticConfig{Lengths: d, Counter: wordCounter{fillerTwice: true}})
	if err := twice.Prepare(t.Context()); err == nil || !strings.Contains(err.Error(), `"the"`) {
		t.Errorf("a server that counts \"the\" as two tokens: %v, want an error naming it", err)
	}
	if _, err := NewSynthetic(SyntheticConfig{Lengths: d, Counter: wordCounter{}, PrefixCache: PrefixWarm, WarmPrefixTokens: 8}); err == nil {
		t.Error("a warm prefix with server counts was accepted")
	}
}

// templateCounter counts words plus a constant template, as a server that
// renders a chat template before counting does.
type templateCounter struct{ template int }

func (c templateCounter) Count(_ context.Context, text string) (int, error) {
	return len(strings.Fields(text)) + c.template, nil
}

// TestServerCountedSpreadBelowFloor: a spread that draws ISLs below the
// shortest prompt a server count fits (a 16-word marker, a word and the
// template's 8 tokens: 25) sends those at 25 and records them so: the
// requested ISL is what the server counts, never the draw, which
// ISLClampedFrom keeps; ISLFloor names the floor before any request.
func TestServerCountedSpreadBelowFloor(t *testing.T) {
	t.Parallel()
	c := templateCounter{template: 8}
	d := Data{PromptTokens: 30, PromptTokensStdev: 20, PromptTokensMin: 1, OutputTokens: 4}
	w, err := NewSynthetic(SyntheticConfig{Lengths: d, Seed: 3, Nonce: "n", Counter: c})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	if f := w.ISLFloor(); f != 25 {
		t.Errorf("ISLFloor = %d, want 25", f)
	}
	clamped := 0
	for seq := range int64(64) {
		req, err := w.Request(seq)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := c.Count(t.Context(), req.Prompt)
		if got != req.PromptTokens || got != req.RequestedPromptTokens || !req.PromptTokensExact {
			t.Fatalf("request %d: the server counts %d, recorded built %d, asked %d (exact %v)", seq, got, req.PromptTokens, req.RequestedPromptTokens, req.PromptTokensExact)
		}
		if req.ISLClampedFrom != 0 {
			clamped++
			if req.ISLClampedFrom >= 25 || req.RequestedPromptTokens != 25 {
				t.Errorf("request %d: clamped from %d to %d, want a draw below 25 sent at 25", seq, req.ISLClampedFrom, req.RequestedPromptTokens)
			}
		}
	}
	if clamped == 0 {
		t.Error("no draw was clamped: the test no longer reaches the floor")
	}
	above, _ := NewSynthetic(SyntheticConfig{Lengths: Data{PromptTokens: 300, PromptTokensStdev: 10, OutputTokens: 4}, Counter: c})
	if err := above.Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	if f := above.ISLFloor(); f != 0 {
		t.Errorf("a spread that never reaches the floor: ISLFloor = %d, want 0", f)
	}
}
