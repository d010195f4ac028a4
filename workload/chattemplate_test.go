package workload

import (
	"path/filepath"
	"strings"
	"testing"

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
	w, err := NewSynthetic(SyntheticConfig{Lengths: Data{PromptTokens: 5, OutputTokens: 4}, Tokenizer: tok, ChatTemplate: render})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Request(0); err == nil || !strings.Contains(err.Error(), "chat template alone takes") {
		t.Fatalf("ISL 5 under Qwen3's template: %v", err)
	}
}
