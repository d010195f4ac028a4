package tokenize

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestChatTemplateGolden renders each fixture tokenizer's chat template
// and compares it byte for byte, and its token count, with transformers'
// apply_chat_template (testdata/tokenizers/chat/*.golden.jsonl, written
// by bench/chattemplate/render.py): Qwen3 with and without thinking,
// single- and multi-turn, with and without the generation prompt.
func TestChatTemplateGolden(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	goldens, _ := filepath.Glob(filepath.Join(fixtures, "chat", "*.golden.jsonl"))
	if len(goldens) == 0 {
		t.Fatal("no golden renderings")
	}
	for _, golden := range goldens {
		name := filepath.Base(golden)
		name = name[:len(name)-len(".golden.jsonl")]
		tmpl, err := LoadChatTemplate(filepath.Join(fixtures, "files", name, "tokenizer_config.json"))
		if err != nil {
			t.Fatal(err)
		}
		tok := shipped(t, name)
		f, err := os.Open(golden)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var c struct {
				Case     string          `json:"case"`
				Messages []ChatMessage   `json:"messages"`
				Gen      bool            `json:"add_generation_prompt"`
				Vars     map[string]bool `json:"vars"`
				Text     string          `json:"text"`
				Tokens   int             `json:"tokens"`
			}
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				t.Fatal(err)
			}
			got, err := tmpl.RenderVars(c.Messages, c.Gen, ChatVars{Bools: c.Vars})
			if err != nil {
				t.Errorf("%s/%s: %v", name, c.Case, err)
				continue
			}
			if got != c.Text {
				t.Errorf("%s/%s: rendered\n%q\nwant (transformers)\n%q", name, c.Case, got, c.Text)
			}
			if n := len(tok.Encode(got, false)); n != c.Tokens {
				t.Errorf("%s/%s: %d tokens, transformers counts %d", name, c.Case, n, c.Tokens)
			}
		}
		f.Close()
	}
}

// TestChatTemplateMissing: a base model's config has no template.
func TestChatTemplateMissing(t *testing.T) {
	t.Parallel()
	_, err := LoadChatTemplate(filepath.Join(fixtures, "files", "mistral-7b", "tokenizer.json.gz"))
	if !errors.Is(err, ErrNoChatTemplate) {
		t.Fatalf("err %v, want ErrNoChatTemplate", err)
	}
	if _, err := ParseChatTemplate([]byte(`{"chat_template": "{% for m in messages %}{{ m.content"}`)); err == nil {
		t.Fatal("an unterminated expression compiled")
	}
	c, err := ParseChatTemplate([]byte(`{"chat_template": [{"name": "tool_use", "template": "x"}, {"name": "default", "template": "{{ bos_token }}{{ messages[0].content }}"}], "bos_token": {"content": "<s>"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Render([]ChatMessage{{"user", "hi"}}, true); got != "<s>hi" {
		t.Fatalf("named template rendered %q", got)
	}
}

// FuzzParseChatTemplate: any tokenizer_config.json bytes give a template
// or an error, and a template renders or errors, never panics.
func FuzzParseChatTemplate(f *testing.F) {
	qwen, err := os.ReadFile(filepath.Join(fixtures, "files", "qwen3", "tokenizer_config.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(qwen)
	f.Add([]byte(`{"chat_template": "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"}`))
	f.Add([]byte(`{"chat_template": [{"name": "default", "template": "{{ messages | length }}"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseChatTemplate(b)
		if err != nil {
			return
		}
		_, _ = c.Render([]ChatMessage{{"system", "s"}, {"user", "u"}, {"assistant", "a"}, {"user", "v"}}, true)
	})
}

// FuzzModelID: whatever reads as a model id names a cache folder inside
// the Hugging Face home.
func FuzzModelID(f *testing.F) {
	for _, s := range []string{"Qwen/Qwen3-8B", "org/m@v1.0", "a/..", "../b", "a/b@../../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !IsModelID(s) {
			return
		}
		repo, _ := splitModelID(s)
		home := filepath.Join(string(filepath.Separator), "home")
		dir := hubRepoDir(home, repo)
		if rel, err := filepath.Rel(filepath.Join(home, "hub"), dir); err != nil || rel == ".." || filepath.Dir(rel) != "." {
			t.Fatalf("%q: cache folder %s is outside %s/hub", s, dir, home)
		}
	})
}
