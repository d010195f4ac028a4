package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

// chatCountingServer answers /v1/chat/completions as vLLM does: it renders
// the messages with the model's chat template and the generation prompt,
// and reports the rendered text's tokens as usage.prompt_tokens. It keeps
// every count it reported.
func chatCountingServer(t *testing.T, tok *tokenize.Tokenizer, tmpl *tokenize.ChatTemplate) (string, func() []int) {
	t.Helper()
	var mu sync.Mutex
	var counts []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model"}]}`)
			return
		}
		var body struct {
			Messages []tokenize.ChatMessage `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
			http.Error(w, "want messages", http.StatusBadRequest)
			return
		}
		text, err := tmpl.Render(body.Messages, true)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		n := len(tok.Encode(text, false))
		mu.Lock()
		counts = append(counts, n)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"length"}]}`+"\n\n")
		fmt.Fprintf(w, `data: {"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":%d}}`+"\n\n", n, n+1)
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), counts...)
	}
}

// TestRunChatExactISL: on --endpoint chat with the served tokenizer, the
// server's usage.prompt_tokens, which counts the chat template, equals
// the requested ISL on every request, and run.json says the ISL includes
// the template.
func TestRunChatExactISL(t *testing.T) {
	t.Parallel()
	tok, err := tokenize.Load(qwen3Path)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := tokenize.LoadChatTemplate(tok.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, isl := range []int{32, 128, 512, 2000} {
		url, counts := chatCountingServer(t, tok, tmpl)
		dir := t.TempDir()
		var stderr bytes.Buffer
		code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" }}, []string{
			"run", "--target", url, "--endpoint", "chat", "--profile", "concurrent", "--rate", "2", "--max-requests", "6",
			"--data", fmt.Sprintf("prompt_tokens=%d,output_tokens=1", isl), "--tokenizer", qwen3Path, "--energy", "none",
			"--max-lag", lenientLag, "--output-dir", dir, "--run-id", "r", "--format", "json", "--quiet"})
		if code != exitcode.OK {
			t.Fatalf("ISL %d: exit %d\n%s", isl, code, stderr.String())
		}
		got := counts()
		if len(got) == 0 {
			t.Fatalf("ISL %d: no requests", isl)
		}
		for _, n := range got {
			if n != isl {
				t.Fatalf("ISL %d: the server counted %v", isl, got)
			}
		}
		run, err := results.Read(filepath.Join(dir, "r"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(run.Config.ISLMeaning, "including the chat template") || run.Config.ChatTemplate == "" {
			t.Errorf("isl_meaning %q chat_template %q", run.Config.ISLMeaning, run.Config.ChatTemplate)
		}
	}
}

// TestRunChatSessionsExactISL: with --turns 3, every session's first turn
// is exactly the requested ISL in the server's count, and every turn's
// local_prompt_tokens equals the server's count (the chat template
// rendered around the whole conversation).
func TestRunChatSessionsExactISL(t *testing.T) {
	t.Parallel()
	tok, err := tokenize.Load(qwen3Path)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := tokenize.LoadChatTemplate(tok.Path())
	if err != nil {
		t.Fatal(err)
	}
	url, _ := chatCountingServer(t, tok, tmpl)
	dir := t.TempDir()
	var stderr bytes.Buffer
	code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" }}, []string{
		"run", "--target", url, "--endpoint", "chat", "--turns", "3", "--think-time", "0s", "--profile", "concurrent", "--rate", "2", "--max-requests", "9",
		"--data", "prompt_tokens=128,output_tokens=1", "--tokenizer", qwen3Path, "--energy", "none",
		"--max-lag", lenientLag, "--output-dir", dir, "--run-id", "r", "--format", "json", "--quiet"})
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	recs := readRecords(t, filepath.Join(dir, "r", results.RequestsJSONL))
	first := 0
	for _, r := range recs {
		if r.ServerPromptTokens != r.LocalPromptTokens {
			t.Errorf("turn %d: server %d, local %d", r.Turn, r.ServerPromptTokens, r.LocalPromptTokens)
		}
		if r.Turn == 0 {
			first++
			if r.ServerPromptTokens != 128 {
				t.Errorf("first turn: server %d, want 128", r.ServerPromptTokens)
			}
		}
	}
	if first == 0 || len(recs) <= first {
		t.Fatalf("%d records, %d first turns", len(recs), first)
	}
}

// TestRunChatTemplateIgnoresMessage (issue 27 review): a chat template
// that leaves the user message out (a constant, or messages rendered
// without their content) is refused before any request, exit 2 naming the
// template, instead of failing the first request during the load.
func TestRunChatTemplateIgnoresMessage(t *testing.T) {
	t.Parallel()
	gz, err := os.ReadFile(filepath.Join(qwen3Path, "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for name, tpl := range map[string]string{
		"constant":   `<|im_start|>assistant\n`,
		"no content": `{% for m in messages %}<|im_start|>{{ m.role }}\n<|im_end|>\n{% endfor %}`,
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "tokenizer.json.gz"), gz, 0o644)
		cfgJSON, _ := json.Marshal(map[string]string{"chat_template": tpl})
		os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfgJSON, 0o644)
		cfg, _ := mockserver.Preset("fast")
		url, generated := qwenCountingMock(t, cfg)
		code, stderr := runTokenizer(t, url, t.TempDir(), t.TempDir(), "r", "--endpoint", "chat", "--tokenizer", dir, "--data", "prompt_tokens=64,output_tokens=4")
		if code != exitcode.Usage || !strings.Contains(stderr, "leaves the user message out") || !strings.Contains(stderr, filepath.Join(dir, "tokenizer_config.json")) {
			t.Errorf("%s: exit %d, want 2 naming the template:\n%s", name, code, stderr)
		}
		if n := generated.Load(); n != 0 {
			t.Errorf("%s: %d requests were sent", name, n)
		}
	}
}
