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
	"sync/atomic"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

// qwenCountingMock serves the fast mock on loopback, counting prompts with
// the Qwen3 fixture tokenizer (so word-sized prompts miss the ISL), and
// counts the generation requests it receives.
func qwenCountingMock(t *testing.T, cfg mockserver.Config) (url string, generated *atomic.Int64) {
	t.Helper()
	tok, err := tokenize.Load(filepath.Join("..", "..", "testdata", "tokenizers", "files", "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := mockserver.New(cfg, mockserver.WithTokenCounter(tok.Count))
	if err != nil {
		t.Fatal(err)
	}
	generated = new(atomic.Int64)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "completions") {
			generated.Add(1)
		}
		s.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL, generated
}

// runTokenizer runs a short level against url with HF_HOME set to home,
// offline, and extra arguments; it returns the exit code and stderr.
func runTokenizer(t *testing.T, url, home, dir, runID string, extra ...string) (int, string) {
	t.Helper()
	getenv := func(k string) string {
		return map[string]string{"HF_HOME": home, "HF_HUB_OFFLINE": "1"}[k]
	}
	var stdout, stderr bytes.Buffer
	args := append([]string{"run", "--target", url, "--profile", "concurrent", "--rate", "2", "--max-requests", "4",
		"--energy", "none", "--max-lag", lenientLag, "--output-dir", dir, "--run-id", runID, "--format", "json"}, extra...)
	code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: getenv}, args)
	return code, stderr.String()
}

// TestTokenizerOmittedAsksServer: with --tokenizer omitted, a served model
// id absent from the (offline) Hugging Face cache, and a server that
// counts in real tokens, prompts are fitted with the server's /tokenize
// and every request's usage.prompt_tokens is the ISL asked; run.json and
// the console say so.
func TestTokenizerOmittedAsksServer(t *testing.T) {
	t.Parallel()
	cfg, _ := mockserver.Preset("fast")
	cfg.Model = "Qwen/Qwen3-4B"
	url, _ := qwenCountingMock(t, cfg)
	home, dir := t.TempDir(), t.TempDir()
	for _, n := range []int{32, 128, 512, 2000} {
		runID := fmt.Sprint("isl", n)
		code, stderr := runTokenizer(t, url, home, dir, runID, "--data", fmt.Sprintf("prompt_tokens=%d,output_tokens=4", n))
		if code != exitcode.OK {
			t.Fatalf("ISL %d: exit %d\n%s", n, code, stderr)
		}
		for _, want := range []string{"no tokenizer for the served model Qwen/Qwen3-4B", "tokenizer: server (vllm POST /tokenize)"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("ISL %d: the console does not say %q:\n%s", n, want, stderr)
			}
		}
		for _, r := range readRecords(t, filepath.Join(dir, runID, results.RequestsJSONL)) {
			if r.ServerPromptTokens != n {
				t.Fatalf("ISL %d: the server counted %d prompt tokens", n, r.ServerPromptTokens)
			}
		}
		run, err := results.Read(filepath.Join(dir, runID))
		if err != nil {
			t.Fatal(err)
		}
		if c := run.Config; c.TokenizerSource != "server" || c.TokenizerEndpoint != "vllm POST /tokenize" || !strings.Contains(c.ISLMeaning, "tokenize endpoint") {
			t.Errorf("run.json: tokenizer_source %q, tokenizer_endpoint %q, isl_meaning %q", c.TokenizerSource, c.TokenizerEndpoint, c.ISLMeaning)
		}
	}
}

// TestTokenizerOmittedUsesCache: with --tokenizer omitted and the served
// model id in the local cache, its tokenizer sizes the prompts and the
// server is not asked to count.
func TestTokenizerOmittedUsesCache(t *testing.T) {
	t.Parallel()
	cfg, _ := mockserver.Preset("fast")
	cfg.Model = "Qwen/Qwen3-4B"
	cfg.NoTokenize = true
	url, _ := qwenCountingMock(t, cfg)
	home, dir := t.TempDir(), t.TempDir()
	tokJSON, err := readGz(filepath.Join("..", "..", "testdata", "tokenizers", "files", "qwen3", "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(home, "hub", "models--Qwen--Qwen3-4B")
	snap := filepath.Join(repo, "snapshots", hubCommit)
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "refs", "main"), []byte(hubCommit), 0o644)
	os.WriteFile(filepath.Join(snap, "tokenizer.json"), tokJSON, 0o644)
	code, stderr := runTokenizer(t, url, home, dir, "cached", "--data", "prompt_tokens=100,output_tokens=4")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "tokenizer: auto: the served model Qwen/Qwen3-4B's tokenizer (cache)") {
		t.Errorf("the console does not say the cached tokenizer was used:\n%s", stderr)
	}
	run, err := results.Read(filepath.Join(dir, "cached"))
	if err != nil {
		t.Fatal(err)
	}
	if c := run.Config; c.TokenizerSource != tokenize.SourceCache || c.TokenizerModel != "Qwen/Qwen3-4B" || c.TokenizerCommit != hubCommit {
		t.Errorf("run.json: source %q model %q commit %q", c.TokenizerSource, c.TokenizerModel, c.TokenizerCommit)
	}
	for _, r := range readRecords(t, filepath.Join(dir, "cached", results.RequestsJSONL)) {
		if r.ServerPromptTokens != 100 {
			t.Fatalf("the server counted %d prompt tokens, want 100", r.ServerPromptTokens)
		}
	}
}

// TestTokenizerServerRefused: --tokenizer server against a server without
// a tokenize endpoint exits 2 before any prompt is sent; omitted, the run
// falls back to words with a warning and run.json says so.
func TestTokenizerServerRefused(t *testing.T) {
	t.Parallel()
	cfg, _ := mockserver.Preset("fast")
	cfg.NoTokenize = true
	url, generated := qwenCountingMock(t, cfg)
	home, dir := t.TempDir(), t.TempDir()
	code, stderr := runTokenizer(t, url, home, dir, "server", "--data", "prompt_tokens=64,output_tokens=4", "--tokenizer", "server")
	if code != exitcode.Usage || !strings.Contains(stderr, "--tokenizer server") || !strings.Contains(stderr, "404") {
		t.Fatalf("exit %d, want 2 naming --tokenizer server and the 404:\n%s", code, stderr)
	}
	if n := generated.Load(); n != 0 {
		t.Fatalf("%d prompts were sent before --tokenizer server was refused", n)
	}
	code, stderr = runTokenizer(t, url, home, dir, "words", "--data", "prompt_tokens=64,output_tokens=4")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: tokenizer: words: the server has no tokenize endpoint") {
		t.Errorf("no fallback warning:\n%s", stderr)
	}
	run, err := results.Read(filepath.Join(dir, "words"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Config.TokenizerSource != "words" {
		t.Errorf("run.json tokenizer_source %q, want words", run.Config.TokenizerSource)
	}
}

// TestTokenizerOmittedChatCountsTemplate: on /chat/completions the server
// is asked to count the conversation with its chat template (the mock's
// stand-in adds 9 tokens a message), so usage.prompt_tokens is the ISL.
func TestTokenizerOmittedChatCountsTemplate(t *testing.T) {
	t.Parallel()
	cfg, _ := mockserver.Preset("fast")
	cfg.ChatTemplateTokens = 9
	url, _ := qwenCountingMock(t, cfg)
	home, dir := t.TempDir(), t.TempDir()
	code, stderr := runTokenizer(t, url, home, dir, "chat", "--endpoint", "chat", "--data", "prompt_tokens=128,output_tokens=4")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "tokenizer: server (vllm POST /tokenize (messages))") {
		t.Errorf("the console does not name the chat count:\n%s", stderr)
	}
	for _, r := range readRecords(t, filepath.Join(dir, "chat", results.RequestsJSONL)) {
		if r.ServerPromptTokens != 128 {
			t.Fatalf("the server counted %d prompt tokens, want 128", r.ServerPromptTokens)
		}
	}
	run, err := results.Read(filepath.Join(dir, "chat"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(run.Config.ISLMeaning, "including the server's chat template") {
		t.Errorf("isl_meaning %q", run.Config.ISLMeaning)
	}
}

// TestTokenizerOmittedDownloads: with --tokenizer omitted, a served model
// id the cache lacks is downloaded from the (fake) Hub; a gated one is not
// an error under auto, which says why and asks the server to count.
func TestTokenizerOmittedDownloads(t *testing.T) {
	t.Parallel()
	tokJSON, err := readGz(filepath.Join("..", "..", "testdata", "tokenizers", "files", "qwen3", "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	hubURL := miniHub(t, tokJSON)
	for _, tc := range []struct {
		model, want, source string
	}{
		{"Qwen/Qwen3-4B", "tokenizer: auto: the served model Qwen/Qwen3-4B's tokenizer (hub)", tokenize.SourceHub},
		{"gated/Model", "401", "server"},
	} {
		cfg, _ := mockserver.Preset("fast")
		cfg.Model = tc.model
		url, _ := qwenCountingMock(t, cfg)
		home, dir := t.TempDir(), t.TempDir()
		getenv := func(k string) string {
			return map[string]string{"HF_HOME": home, "HF_ENDPOINT": hubURL}[k]
		}
		var stdout, stderr bytes.Buffer
		code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: getenv}, []string{
			"run", "--target", url, "--profile", "concurrent", "--rate", "2", "--max-requests", "4", "--data", "prompt_tokens=96,output_tokens=4",
			"--energy", "none", "--max-lag", lenientLag, "--output-dir", dir, "--run-id", "r", "--format", "json"})
		if code != exitcode.OK {
			t.Fatalf("%s: exit %d\n%s", tc.model, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: the console does not say %q:\n%s", tc.model, tc.want, stderr.String())
		}
		run, err := results.Read(filepath.Join(dir, "r"))
		if err != nil {
			t.Fatal(err)
		}
		if run.Config.TokenizerSource != tc.source {
			t.Errorf("%s: tokenizer_source %q, want %q", tc.model, run.Config.TokenizerSource, tc.source)
		}
		for _, r := range readRecords(t, filepath.Join(dir, "r", results.RequestsJSONL)) {
			if r.ServerPromptTokens != 96 {
				t.Fatalf("%s: the server counted %d prompt tokens, want 96", tc.model, r.ServerPromptTokens)
			}
		}
	}
}

// hasWarning reports whether the run's warnings include code.
func hasWarning(run *results.Run, code string) bool {
	for _, w := range run.Result.Warnings {
		if string(w.Code) == code {
			return true
		}
	}
	return false
}

// TestServerCountSpreadBelowFloor (issue 27 review): a spread whose draws
// fall below the shortest prompt a server count can build (a request's
// marker, a word and the chat template) is said before any request, and
// each such request is recorded at the length the server counted, with
// the draw kept apart and the level warning isl_clamped; before, 11 of 16
// records claimed an ISL the server never saw, silently.
func TestServerCountSpreadBelowFloor(t *testing.T) {
	t.Parallel()
	cfg, _ := mockserver.Preset("fast")
	cfg.ChatTemplateTokens = 9
	url, _ := qwenCountingMock(t, cfg)
	home, dir := t.TempDir(), t.TempDir()
	code, stderr := runTokenizer(t, url, home, dir, "floor", "--endpoint", "chat", "--tokenizer", "server", "--max-requests", "16",
		"--data", "prompt_tokens=30,prompt_tokens_stdev=20,prompt_tokens_min=1,output_tokens=4")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: ISL: the lengths can draw ISLs below") || !strings.Contains(stderr, "prompt_tokens_min=") {
		t.Errorf("the console does not say, before the load, that draws fall below the floor and how to avoid it:\n%s", stderr)
	}
	clamped := 0
	for _, r := range readRecords(t, filepath.Join(dir, "floor", results.RequestsJSONL)) {
		if r.ServerPromptTokens != r.RequestedPromptTokens {
			t.Errorf("request %d: requested_prompt_tokens %d but the server counted %d (drawn %d)", r.Seq, r.RequestedPromptTokens, r.ServerPromptTokens, r.ISLClampedFrom)
		}
		if r.ISLClampedFrom > 0 {
			clamped++
		}
	}
	if clamped == 0 {
		t.Fatal("no request was clamped: the test no longer draws below the floor")
	}
	run, err := results.Read(filepath.Join(dir, "floor"))
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(&run, "isl_clamped") {
		t.Errorf("run.json has no isl_clamped warning: %+v", run.Result.Warnings)
	}
}

// TestServerCountDisagreesWithUsage (issue 27 review): a server whose
// /tokenize counts one token fewer than its usage.prompt_tokens (a BOS
// added by one only) gives prompts one token off the ISL; the level warns
// token_count_mismatch instead of presenting the ISL as exact.
func TestServerCountDisagreesWithUsage(t *testing.T) {
	t.Parallel()
	cfg, _ := mockserver.Preset("fast")
	url, _ := qwenCountingMock(t, cfg)
	// A proxy whose /tokenize answers one token fewer than the mock counts.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, url+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if r.URL.Path != "/tokenize" || resp.StatusCode != http.StatusOK {
			for k, v := range resp.Header {
				w.Header()[k] = v
			}
			w.WriteHeader(resp.StatusCode)
			_, _ = io.Copy(w, resp.Body)
			return
		}
		var v struct {
			Count int `json:"count"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&v)
		fmt.Fprintf(w, `{"count":%d}`, v.Count-1)
	}))
	t.Cleanup(ts.Close)
	home, dir := t.TempDir(), t.TempDir()
	code, stderr := runTokenizer(t, ts.URL, home, dir, "bos", "--tokenizer", "server", "--data", "prompt_tokens=64,output_tokens=4")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "bos"))
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(&run, "token_count_mismatch") {
		t.Errorf("the server's usage differs from its /tokenize by a token and run.json does not warn: %+v", run.Result.Warnings)
	}
}

// TestTokenizerServerTargetDown (issue 27 review): with --tokenizer server
// and nothing listening at --target, the error says so, not that the
// server has no tokenize endpoint.
func TestTokenizerServerTargetDown(t *testing.T) {
	t.Parallel()
	dead := closedPort(t)
	code, stderr := runTokenizer(t, dead, t.TempDir(), t.TempDir(), "down", "--model", "m", "--tokenizer", "server", "--data", "prompt_tokens=64,output_tokens=4")
	if code == exitcode.OK || !strings.Contains(stderr, "nothing is listening at "+dead) || strings.Contains(stderr, "no tokenize endpoint") {
		t.Errorf("exit %d, stderr:\n%s\nwant a failure saying nothing is listening at %s", code, stderr, dead)
	}
}

// TestTokenizerKeywordAndFile (issue 27 review): with a file named server
// in the working folder, --tokenizer server is the keyword in run (with
// a warning naming ./server) and in tokenize (which cannot ask a server,
// so it says so and names ./server); ./server loads the file in both, run
// prints a tokenizer: line for it and records its absolute path.
func TestTokenizerKeywordAndFile(t *testing.T) {
	gz, err := os.ReadFile(filepath.Join(qwen3Path, "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	wd := t.TempDir()
	if err := os.WriteFile(filepath.Join(wd, "server"), gz, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := mockserver.Preset("fast")
	url, _ := qwenCountingMock(t, cfg)
	t.Chdir(wd)
	code, stderr := runTokenizer(t, url, t.TempDir(), "out", "kw", "--tokenizer", "server", "--data", "prompt_tokens=64,output_tokens=4")
	if code != exitcode.OK || !strings.Contains(stderr, "write --tokenizer ./server") || !strings.Contains(stderr, "tokenizer: server (") {
		t.Errorf("run --tokenizer server with a file named server: exit %d, want the keyword and a warning naming ./server:\n%s", code, stderr)
	}
	code, stderr = runTokenizer(t, url, t.TempDir(), "out", "file", "--tokenizer", "./server", "--data", "prompt_tokens=64,output_tokens=4")
	if code != exitcode.OK || !strings.Contains(stderr, "tokenizer: server (file "+filepath.Join(wd, "server")) {
		t.Errorf("run --tokenizer ./server: exit %d, want the file loaded and named on the console:\n%s", code, stderr)
	}
	run, err := results.Read(filepath.Join(wd, "out", "file"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Config.Tokenizer != filepath.Join(wd, "server") || run.Config.TokenizerSource != tokenize.SourceFile {
		t.Errorf("run.json tokenizer %q (source %q), want the absolute path %s", run.Config.Tokenizer, run.Config.TokenizerSource, filepath.Join(wd, "server"))
	}
	var stdout, errOut bytes.Buffer
	e := env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &errOut, getenv: func(string) string { return "" }}
	if code := runEnv(context.Background(), e, []string{"tokenize", "--tokenizer", "server", "hello"}); code != exitcode.Usage || !strings.Contains(errOut.String(), "./server") {
		t.Errorf("tokenize --tokenizer server: exit %d, want 2 naming ./server:\n%s", code, errOut.String())
	}
	stdout.Reset()
	if code := runEnv(context.Background(), e, []string{"tokenize", "--tokenizer", "./server", "hello"}); code != exitcode.OK || !strings.Contains(stdout.String(), "1 tokens") {
		t.Errorf("tokenize --tokenizer ./server: exit %d, stdout %q", code, stdout.String())
	}
}

// TestWordsFallbackOneLine (issue 27 review): the words fallback's warning
// is one line, each endpoint's failure joined with "; ".
func TestWordsFallbackOneLine(t *testing.T) {
	t.Parallel()
	cfg, _ := mockserver.Preset("fast")
	cfg.NoTokenize = true
	url, _ := qwenCountingMock(t, cfg)
	code, stderr := runTokenizer(t, url, t.TempDir(), t.TempDir(), "w", "--data", "prompt_tokens=64,output_tokens=4")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "warning: tokenizer: words:") {
			if !strings.Contains(line, "give --tokenizer for an exact ISL") || strings.Count(line, "404") < 2 {
				t.Errorf("the fallback warning is not one line holding every endpoint's failure: %q", line)
			}
			return
		}
	}
	t.Errorf("no fallback warning:\n%s", stderr)
}

// TestContextWindowChecked (issue 27 review): a server that states its
// context window (llama.cpp's /props) refuses before any load a --data
// whose prompt and output tokens exceed it, exit 2 naming both; within
// it the run goes ahead.
func TestContextWindowChecked(t *testing.T) {
	t.Parallel()
	cfg, _ := mockserver.Preset("fast")
	url, generated := qwenCountingMock(t, cfg)
	props := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/props" {
			io.WriteString(w, `{"default_generation_settings":{"n_ctx":512}}`)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, url+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(props.Close)
	code, stderr := runTokenizer(t, props.URL, t.TempDir(), t.TempDir(), "big", "--tokenizer", "words", "--data", "prompt_tokens=500,output_tokens=64")
	if code != exitcode.Usage || !strings.Contains(stderr, "prompt_tokens 500 + output_tokens 64 = 564 tokens") || !strings.Contains(stderr, "context window of 512 tokens") {
		t.Errorf("exit %d, want 2 naming 564 and 512:\n%s", code, stderr)
	}
	if n := generated.Load(); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
	if code, stderr := runTokenizer(t, props.URL, t.TempDir(), t.TempDir(), "fits", "--tokenizer", "words", "--data", "prompt_tokens=400,output_tokens=64"); code != exitcode.OK {
		t.Errorf("within the window: exit %d\n%s", code, stderr)
	}
}
