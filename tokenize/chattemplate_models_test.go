package tokenize

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// currentDate is the date a template reads from strftime_now (gpt-oss's
// "Current date: "), which differs between the golden's day and the test's.
var currentDate = regexp.MustCompile(`Current date: \d{4}-\d{2}-\d{2}`)

// TestChatTemplateModels renders the chat templates of models whose
// tokenizers the fixtures do not hold (Mistral Nemo, DeepSeek-V3.1,
// gpt-oss: testdata/tokenizers/chat/templates)
// and compares each case byte for byte with transformers'
// apply_chat_template (bench/chattemplate/render_templates.py). A case
// the reference refuses must be refused; one it renders must render the
// same.
func TestChatTemplateModels(t *testing.T) {
	t.Parallel()
	goldens, _ := filepath.Glob(filepath.Join(fixtures, "chat", "templates", "*.golden.jsonl"))
	if len(goldens) == 0 {
		t.Fatal("no golden renderings")
	}
	for _, golden := range goldens {
		name := strings.TrimSuffix(filepath.Base(golden), ".golden.jsonl")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tmpl, err := LoadChatTemplate(filepath.Join(fixtures, "chat", "templates", name, "tokenizer_config.json"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(golden)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var c struct {
					Case     string        `json:"case"`
					Messages []ChatMessage `json:"messages"`
					Gen      bool          `json:"add_generation_prompt"`
					Text     *string       `json:"text"`
					Error    string        `json:"error"`
				}
				if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
					t.Fatal(err)
				}
				got, err := tmpl.Render(c.Messages, c.Gen)
				switch {
				case c.Text == nil && err == nil:
					t.Errorf("%s: rendered %q; transformers refuses it: %s", c.Case, got, c.Error)
				case c.Text != nil && err != nil:
					t.Errorf("%s: %v; transformers renders %q", c.Case, err, *c.Text)
				case c.Text != nil && currentDate.ReplaceAllString(got, "") != currentDate.ReplaceAllString(*c.Text, ""):
					t.Errorf("%s: rendered\n%q\nwant (transformers)\n%q", c.Case, got, *c.Text)
				}
			}
		})
	}
}
