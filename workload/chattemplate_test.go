package workload

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

// TestSyntheticChatTemplateISL: with Qwen3's chat template, the rendered
// conversation (what a server's usage.prompt_tokens counts on
// /chat/completions) has exactly the requested ISL, cold and warm, for
// ISLs of 32 to 2000 tokens; an ISL the template alone fills is an error
// naming both counts.
func TestSyntheticChatTemplateISL(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	dir := filepath.Join("..", "testdata", "tokenizers", "files", "qwen3")
	tok, err := tokenize.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := tokenize.LoadChatTemplate(tok.Path())
	if err != nil {
		t.Fatal(err)
	}
	render := func(p string) (string, error) {
		return tmpl.Render([]tokenize.ChatMessage{{Role: "user", Content: p}}, true)
	}
	for _, isl := range []int{32, 128, 512, 2000} {
		for _, pc := range []PrefixCache{PrefixCold, PrefixWarm} {
			cfg := SyntheticConfig{Lengths: Data{PromptTokens: isl, OutputTokens: 4}, Seed: 5, Nonce: "c", Tokenizer: tok, ChatTemplate: render}
			if pc == PrefixWarm {
				cfg.PrefixCache, cfg.WarmPrefixTokens = PrefixWarm, isl/2
			}
			w, err := NewSynthetic(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for seq := range int64(12) {
				req, err := w.Request(seq)
				if err != nil {
					t.Fatalf("ISL %d %s: %v", isl, pc, err)
				}
				text, _ := render(req.Prompt)
				if n := len(tok.Encode(text, false)); n != isl || req.PromptTokens != isl {
					t.Fatalf("ISL %d %s seq %d: the rendered chat has %d tokens (recorded %d)", isl, pc, seq, n, req.PromptTokens)
				}
			}
		}
	}
	// Refused before anything is sent when the declared ISL cannot fit;
	// a draw in a stdev's tail that cannot is sent, and recorded, at the
	// shortest prompt the template leaves room in (9 tokens), with the
	// draw kept in ISLClampedFrom.
	if _, err := NewSynthetic(SyntheticConfig{Lengths: Data{PromptTokens: 5, OutputTokens: 4}, Tokenizer: tok, ChatTemplate: render}); err == nil || !strings.Contains(err.Error(), "chat template alone takes 8") {
		t.Fatalf("ISL 5 under Qwen3's template: %v", err)
	}
	w, err := NewSynthetic(SyntheticConfig{Lengths: Data{PromptTokens: 12, PromptTokensStdev: 40, PromptTokensMin: 1, OutputTokens: 4}, Tokenizer: tok, ChatTemplate: render})
	if err != nil {
		t.Fatal(err)
	}
	if f := w.ISLFloor(); f != 9 {
		t.Errorf("ISLFloor = %d, want 9 (the template's 8 tokens and one)", f)
	}
	clamped := 0
	for seq := range int64(40) {
		req, err := w.Request(seq)
		if err != nil {
			t.Fatalf("seq %d: %v", seq, err)
		}
		text, _ := render(req.Prompt)
		if n := len(tok.Encode(text, false)); n != req.RequestedPromptTokens || n != req.PromptTokens {
			t.Fatalf("seq %d: the rendered chat has %d tokens, recorded as asked %d, built %d", seq, n, req.RequestedPromptTokens, req.PromptTokens)
		}
		if req.ISLClampedFrom != 0 {
			clamped++
			if req.ISLClampedFrom > 8 || req.RequestedPromptTokens != 9 {
				t.Errorf("seq %d: clamped from %d to %d, want a draw of at most 8 sent at 9", seq, req.ISLClampedFrom, req.RequestedPromptTokens)
			}
		}
	}
	if clamped == 0 {
		t.Error("no draw of prompt_tokens=12,prompt_tokens_stdev=40,prompt_tokens_min=1 was clamped: the test no longer reaches the floor")
	}
}

// TestSessionsChatTemplate: with Qwen3's chat template, a session's first
// turn renders to exactly the drawn ISL, each later user message wrapped
// alone (with the generation prompt) has exactly it too, and every turn's
// recorded prompt_tokens is the rendered conversation's count.
func TestSessionsChatTemplate(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	tok, err := tokenize.Load(filepath.Join("..", "testdata", "tokenizers", "files", "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := tokenize.LoadChatTemplate(tok.Path())
	if err != nil {
		t.Fatal(err)
	}
	render := func(msgs []loadgen.Message) (string, error) {
		chat := make([]tokenize.ChatMessage, len(msgs))
		for i, m := range msgs {
			chat[i] = tokenize.ChatMessage{Role: m.Role, Content: m.Content}
		}
		return tmpl.Render(chat, true)
	}
	turns, _ := ParseTurnCount("3")
	const isl = 128
	w, err := NewSessions(SessionConfig{Turns: turns, ChatTemplate: render,
		Synthetic: SyntheticConfig{Lengths: Data{PromptTokens: isl, OutputTokens: 8}, Seed: 1, Nonce: "s", Tokenizer: tok}})
	if err != nil {
		t.Fatal(err)
	}
	for seq := range int64(4) {
		sess, err := w.Session(seq)
		if err != nil {
			t.Fatal(err)
		}
		reply := ""
		for turn := range sess.Turns() {
			req, _, err := sess.Next(turn, reply)
			if err != nil {
				t.Fatal(err)
			}
			msgs := req.Chat.Messages
			whole, _ := render(msgs)
			if n := len(tok.Encode(whole, false)); n != req.PromptTokens {
				t.Fatalf("session %d turn %d: recorded %d tokens, the rendered conversation has %d", seq, turn, req.PromptTokens, n)
			}
			alone, _ := render(msgs[len(msgs)-1:])
			if n := len(tok.Encode(alone, false)); n != isl {
				t.Fatalf("session %d turn %d: the new message wrapped alone has %d tokens, want %d", seq, turn, n, isl)
			}
			reply = "a reply of some words"
		}
	}
}

// TestSharedPrefixChatTemplateISL: issue 27's review found --shared-prefix
// on /chat/completions with the served tokenizer sent 104 prompt tokens
// for prefix=64,question=32: the template's tokens were not counted. With
// ChatTemplate, every rendered conversation counts prefix + question, and
// the prompts of a group still start with the same prefix text.
func TestSharedPrefixChatTemplateISL(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	tok, err := tokenize.Load(filepath.Join("..", "testdata", "tokenizers", "files", "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := tokenize.LoadChatTemplate(tok.Path())
	if err != nil {
		t.Fatal(err)
	}
	render := func(p string) (string, error) {
		return tmpl.Render([]tokenize.ChatMessage{{Role: "user", Content: p}}, true)
	}
	spec := SharedPrefixSpec{Groups: 2, Prompts: 4, PrefixTokens: 64, QuestionTokens: 32, OutputTokens: 4}
	w, err := NewSharedPrefix(SharedPrefixConfig{Spec: spec, Seed: 3, Nonce: "c", Tokenizer: tok, ChatTemplate: render})
	if err != nil {
		t.Fatal(err)
	}
	for seq := range int64(8) {
		req, err := w.Request(seq)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := render(req.Prompt)
		if n := len(tok.Encode(text, false)); n != 96 || req.PromptTokens != 96 {
			t.Errorf("seq %d: the rendered chat has %d tokens (recorded %d), want 96", seq, n, req.PromptTokens)
		}
		if !strings.HasPrefix(req.Prompt, w.prefix[w.Group(seq)]) {
			t.Errorf("seq %d: the prompt does not start with its group's prefix", seq)
		}
	}
	// A question no longer than the template's own tokens is refused.
	spec.QuestionTokens = 5
	if _, err := NewSharedPrefix(SharedPrefixConfig{Spec: spec, Tokenizer: tok, ChatTemplate: render}); err == nil || !strings.Contains(err.Error(), "the chat template alone takes") {
		t.Errorf("question=5 under the template: err %v, want a refusal naming the template's tokens", err)
	}
}
