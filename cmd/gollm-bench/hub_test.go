package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
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

const hubCommit = "0123456789abcdef0123456789abcdef01234567"

// miniHub answers /{org}/{name}/resolve/{rev}/tokenizer.json as the
// Hugging Face Hub does (X-Repo-Commit, ETag), 401 for org "gated", and
// 404 for tokenizer_config.json.
func miniHub(t *testing.T, tokJSON []byte) string {
	t.Helper()
	sum := sha256.Sum256(tokJSON)
	etag := hex.EncodeToString(sum[:])
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/gated/") {
			http.Error(w, "restricted", http.StatusUnauthorized)
			return
		}
		w.Header().Set("X-Repo-Commit", hubCommit)
		if !strings.HasSuffix(r.URL.Path, "/resolve/main/tokenizer.json") && !strings.HasSuffix(r.URL.Path, "/resolve/"+hubCommit+"/tokenizer.json") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("ETag", `"`+etag+`"`)
		w.Header().Set("Content-Length", fmt.Sprint(len(tokJSON)))
		if r.Method == http.MethodGet {
			w.Write(tokJSON)
		}
	}))
	t.Cleanup(hub.Close)
	return hub.URL
}

// TestRunTokenizerFromHub: --tokenizer ORG/NAME, absent from the cache,
// is downloaded from HF_ENDPOINT before the run; prompts hit the ISL
// exactly, and run.json records the source, the model id and the commit.
// A gated repository without a token exits 2 naming the URL and the
// status, before the target receives anything.
func TestRunTokenizerFromHub(t *testing.T) {
	t.Parallel()
	local, err := tokenize.Load(filepath.Join("..", "..", "testdata", "tokenizers", "files", "mistral-7b"))
	if err != nil {
		t.Fatal(err)
	}
	tokJSON, err := readGz(filepath.Join("..", "..", "testdata", "tokenizers", "files", "mistral-7b", "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	hubURL := miniHub(t, tokJSON)
	cfg, _ := mockserver.Preset("fast")
	s, err := mockserver.New(cfg, mockserver.WithTokenCounter(local.Count))
	if err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		s.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); s.Close() })
	home := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"HF_ENDPOINT": hubURL, "HF_HOME": home}[k]
	}
	dir := t.TempDir()
	runCmd := func(id, runID string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: getenv}, []string{
			"run", "--target", ts.URL, "--profile", "concurrent", "--rate", "2", "--max-requests", "6",
			"--data", "prompt_tokens=64,output_tokens=4", "--tokenizer", id, "--energy", "none", "--max-lag", lenientLag,
			"--output-dir", dir, "--run-id", runID, "--format", "json"})
		return code, stderr.String()
	}

	code, stderr := runCmd("gated/Model", "gated")
	if code != exitcode.Usage || !strings.Contains(stderr, hubURL+"/gated/Model/resolve/main/tokenizer.json") || !strings.Contains(stderr, "401") || !strings.Contains(stderr, "HF_TOKEN") {
		t.Fatalf("gated: exit %d, want 2 naming the URL, 401 and HF_TOKEN:\n%s", code, stderr)
	}
	if n := sent.Load(); n != 0 {
		t.Fatalf("gated: the target received %d requests before the tokenizer failed", n)
	}

	code, stderr = runCmd("mistralai/Mistral-7B-v0.1", "hub")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "downloading mistralai/Mistral-7B-v0.1/tokenizer.json") {
		t.Errorf("no download progress on the console:\n%s", stderr)
	}
	run, err := results.Read(filepath.Join(dir, "hub"))
	if err != nil {
		t.Fatal(err)
	}
	c := run.Config
	if c.TokenizerSource != tokenize.SourceHub || c.TokenizerModel != "mistralai/Mistral-7B-v0.1" || c.TokenizerCommit != hubCommit || c.TokenizerSHA256 != local.SHA256() {
		t.Errorf("run.json: source %q model %q commit %q sha %q", c.TokenizerSource, c.TokenizerModel, c.TokenizerCommit, c.TokenizerSHA256)
	}
	for _, r := range readRecords(t, filepath.Join(dir, "hub", results.RequestsJSONL)) {
		if r.ServerPromptTokens != 64 {
			t.Fatalf("server prompt tokens %d, want 64", r.ServerPromptTokens)
		}
	}
}

func readGz(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
