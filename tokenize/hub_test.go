package tokenize

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeHub serves repositories the way the Hugging Face Hub does, on
// loopback: /{org}/{name}/resolve/{revision}/{file} answers HEAD with
// X-Repo-Commit and an ETag, a large file (tokenizer.json) by a 302 to
// /cdn/{sha256} with X-Linked-Etag, as the Hub does for LFS files; a gated
// repository answers 401 without the token; a repository without
// tokenizer.json answers 404; a "cut" repository's CDN stops half-way.
type fakeHub struct {
	*httptest.Server
	token    string
	files    map[string][]byte // "tokenizer.json", "tokenizer_config.json"
	commit   string
	requests atomic.Int64
	sawAuth  atomic.Int64
}

func newFakeHub(t *testing.T) *fakeHub {
	t.Helper()
	tok, _, err := readTokenizerFile(filepath.Join(fixtures, "files", "mistral-7b", "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(fixtures, "files", "mistral-7b", "tokenizer_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := &fakeHub{
		token:  "hf_secretTOKEN123",
		files:  map[string][]byte{"tokenizer.json": tok, "tokenizer_config.json": cfg},
		commit: strings.Repeat("ab12", 10),
	}
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.Close)
	return h
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	h.requests.Add(1)
	if r.Header.Get("Authorization") != "" {
		h.sawAuth.Add(1)
	}
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 5)
	if len(parts) == 3 && parts[0] == "cdn" {
		for _, b := range h.files {
			if sha256Hex(b) == parts[2] {
				w.Header().Set("Content-Length", fmt.Sprint(len(b)))
				if parts[1] == "cut" {
					w.Write(b[:len(b)/2])
					panic(http.ErrAbortHandler) // the connection drops mid-body
				}
				w.Write(b)
				return
			}
		}
		http.NotFound(w, r)
		return
	}
	if len(parts) != 5 || parts[2] != "resolve" {
		http.NotFound(w, r)
		return
	}
	org, repo, rev, file := parts[0], parts[1], parts[3], parts[4]
	if repo == "old-name" {
		// A renamed repository: the Hub answers with a relative redirect.
		http.Redirect(w, r, "/"+org+"/Model/resolve/"+rev+"/"+file, http.StatusTemporaryRedirect)
		return
	}
	if rev != "main" && rev != h.commit {
		http.Error(w, "Invalid rev id", http.StatusNotFound)
		return
	}
	if org == "gated" && r.Header.Get("Authorization") != "Bearer "+h.token {
		http.Error(w, "Access to model is restricted", http.StatusUnauthorized)
		return
	}
	b, ok := h.files[file]
	if !ok || (repo == "slow-only" && file == "tokenizer.json") {
		w.Header().Set("X-Repo-Commit", h.commit)
		http.Error(w, "Entry not found", http.StatusNotFound)
		return
	}
	w.Header().Set("X-Repo-Commit", h.commit)
	if file == "tokenizer.json" {
		sum := sha256Hex(b)
		w.Header().Set("X-Linked-Etag", `"`+sum+`"`)
		w.Header().Set("X-Linked-Size", fmt.Sprint(len(b)))
		w.Header().Set("ETag", `"`+sum+`"`)
		cdn := "/cdn/ok/" + sum
		if repo == "cut" {
			cdn = "/cdn/cut/" + sum
		}
		http.Redirect(w, r, cdn, http.StatusFound)
		return
	}
	g := sha1.Sum(b)
	w.Header().Set("ETag", `"`+hex.EncodeToString(g[:])+`"`)
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	if r.Method == http.MethodGet {
		w.Write(b)
	}
}

func (h *fakeHub) config(home string) HubConfig {
	return HubConfig{Endpoint: h.URL, Home: home, Client: h.Client()}
}

// TestHubDownload downloads a model id's files from the fake Hub into an
// empty cache, checks that the layout is huggingface_hub's (blobs named
// by ETag, refs/main naming the commit, snapshot entries that are
// relative links to the blobs), that the cache reader alone then finds
// the tokenizer, and that a second load sends nothing.
func TestHubDownload(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	hub := newFakeHub(t)
	home := t.TempDir()
	var progress strings.Builder
	cfg := hub.config(home)
	cfg.Progress = &progress
	tok, err := LoadContext(context.Background(), "mistralai/Mistral-7B-v0.1", WithHub(cfg))
	if err != nil {
		t.Fatal(err)
	}
	repoDir := filepath.Join(home, "hub", "models--mistralai--Mistral-7B-v0.1")
	want := sha256Hex(hub.files["tokenizer.json"])
	if tok.Source() != SourceHub || tok.Commit() != hub.commit || tok.SHA256() != want || tok.Name() != "mistralai/Mistral-7B-v0.1" {
		t.Fatalf("source %q commit %q sha %q name %q; want hub, %s, %s", tok.Source(), tok.Commit(), tok.SHA256(), tok.Name(), hub.commit, want)
	}
	if ref, _ := os.ReadFile(filepath.Join(repoDir, "refs", "main")); string(ref) != hub.commit {
		t.Errorf("refs/main = %q, want %s", ref, hub.commit)
	}
	for file, blob := range map[string]string{"tokenizer.json": want, "tokenizer_config.json": func() string {
		g := sha1.Sum(hub.files["tokenizer_config.json"])
		return hex.EncodeToString(g[:])
	}()} {
		link := filepath.Join(repoDir, "snapshots", hub.commit, file)
		target, err := os.Readlink(link)
		if err != nil || target != filepath.Join("..", "..", "blobs", blob) {
			t.Errorf("%s: link %q (%v), want ../../blobs/%s", file, target, err, blob)
		}
		if b, err := os.ReadFile(link); err != nil || string(b) != string(hub.files[file]) {
			t.Errorf("%s: the cached bytes differ from the Hub's (%v)", file, err)
		}
	}
	if !strings.Contains(progress.String(), "downloading mistralai/Mistral-7B-v0.1/tokenizer.json") {
		t.Errorf("no progress line: %q", progress.String())
	}
	// The existing cache reader, which never downloads, reads it back.
	again, err := Load("mistralai/Mistral-7B-v0.1", WithHFHome(home))
	if err != nil || again.SHA256() != want || again.Source() != SourceCache || again.Commit() != hub.commit {
		t.Fatalf("cache read-back: %v, sha %q source %q commit %q", err, again.SHA256(), again.Source(), again.Commit())
	}
	n := hub.requests.Load()
	if _, err := LoadContext(context.Background(), "mistralai/Mistral-7B-v0.1@"+hub.commit, WithHub(hub.config(home))); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadContext(context.Background(), "mistralai/Mistral-7B-v0.1", WithHub(hub.config(home))); err != nil {
		t.Fatal(err)
	}
	if got := hub.requests.Load(); got != n {
		t.Errorf("a cached tokenizer sent %d requests to the Hub", got-n)
	}
	renamed, err := Download(context.Background(), "org/old-name", hub.config(t.TempDir()))
	if err != nil || renamed.Commit != hub.commit {
		t.Errorf("renamed repository: %v, commit %q", err, renamed.Commit)
	}
	if hub.sawAuth.Load() != 0 {
		t.Error("an Authorization header was sent with no token configured")
	}
}

// TestHubFailures checks each failure names the URL and status, never
// prints the token, and leaves no partial file behind.
func TestHubFailures(t *testing.T) {
	t.Parallel()
	hub := newFakeHub(t)
	for _, tc := range []struct {
		id, token string
		status    int
		want      string
	}{
		{"gated/Model", "", 401, "gated or private"},
		{"gated/Model", "hf_wrong", 401, "was refused"},
		{"org/slow-only", "", 404, "has no tokenizer.json"},
		{"org/Model@v9", "", 404, "has no tokenizer.json"},
		{"org/cut", "", 200, "stopped after"},
	} {
		home := t.TempDir()
		cfg := hub.config(home)
		cfg.Token = tc.token
		_, err := LoadContext(context.Background(), tc.id, WithHub(cfg))
		var he *HubError
		if !errors.As(err, &he) || he.Status != tc.status || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), hub.URL+"/") {
			t.Errorf("%s: err %v; want a HubError with status %d naming the URL and %q", tc.id, err, tc.status, tc.want)
			continue
		}
		if tc.status == 404 && !errors.Is(err, ErrNoTokenizerJSON) {
			t.Errorf("%s: %v does not wrap ErrNoTokenizerJSON", tc.id, err)
		}
		if tc.token != "" && strings.Contains(err.Error(), tc.token) {
			t.Errorf("%s: the error shows the token: %v", tc.id, err)
		}
		partial, _ := filepath.Glob(filepath.Join(home, "hub", "*", "blobs", "*"))
		if len(partial) != 0 {
			t.Errorf("%s: left %v", tc.id, partial)
		}
	}
	// With the token the gated repository downloads.
	cfg := hub.config(t.TempDir())
	cfg.Token = hub.token
	if _, err := Download(context.Background(), "gated/Model", cfg); err != nil {
		t.Errorf("gated with token: %v", err)
	}
}

// TestHubOffline: HF_HUB_OFFLINE sends nothing and says why.
func TestHubOffline(t *testing.T) {
	t.Parallel()
	hub := newFakeHub(t)
	cfg := hub.config(t.TempDir())
	cfg.Offline = true
	_, err := Download(context.Background(), "org/Model", cfg)
	if err == nil || !strings.Contains(err.Error(), "HF_HUB_OFFLINE") || hub.requests.Load() != 0 {
		t.Fatalf("err %v, %d requests; want an HF_HUB_OFFLINE error and none", err, hub.requests.Load())
	}
}

// TestHubConfigFromEnv reads the token from HF_TOKEN, else the login
// file under HF_HOME, and HF_ENDPOINT and HF_HUB_OFFLINE.
func TestHubConfigFromEnv(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "token"), []byte("hf_fromfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HF_TOKEN_PATH", "")
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("HF_HUB_OFFLINE", "1")
	c := HubConfigFromEnv(nil)
	if c.Token != "hf_fromfile" || c.Endpoint != "http://127.0.0.1:1" || !c.Offline || c.Home != home {
		t.Fatalf("%+v", c)
	}
	t.Setenv("HF_TOKEN", "hf_env")
	if c := HubConfigFromEnv(nil); c.Token != "hf_env" {
		t.Fatalf("token %q, want HF_TOKEN's", c.Token)
	}
}

func TestIsModelID(t *testing.T) {
	for s, want := range map[string]bool{
		"Qwen/Qwen3-8B": true, "Qwen/Qwen3-8B@main": true, "org/m@0123abc": true,
		"./a/b": false, "/abs/path": false, "a/b/c": false, "tokenizer.json": false, "a/../b": false,
	} {
		if IsModelID(s) != want {
			t.Errorf("IsModelID(%q) = %v", s, !want)
		}
	}
}

// scriptedHub answers every HEAD for a file as the Hub does (commit,
// ETag, X-Linked-Size) and lets the test choose the GET's behaviour.
func scriptedHub(t *testing.T, etag string, size int, head, get http.HandlerFunc) *httptest.Server {
	t.Helper()
	commit := strings.Repeat("cd34", 10)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			if head != nil {
				head(w, r)
				return
			}
			w.Header().Set("X-Repo-Commit", commit)
			w.Header().Set("ETag", `"`+etag+`"`)
			if size >= 0 {
				w.Header().Set("X-Linked-Size", fmt.Sprint(size))
			}
			return
		}
		get(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// silent blocks until the client gives up: a Hub that accepted the
// connection and never answers.
func silent(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// TestHubSilentOrStalled (issue 27 review): a Hub that accepts and never
// answers, or stops sending mid-body, ends the download with an error that
// says so and gives the fixes (HF_ENDPOINT, HF_HUB_OFFLINE=1, a local
// path), instead of waiting up to 10 minutes; the console said where it
// was asking first. An unreachable Hub's error gives the fixes too.
func TestHubSilentOrStalled(t *testing.T) {
	t.Parallel()
	body := []byte(`{"model": {"type": "BPE"}, "padding": "` + strings.Repeat("x", 4096) + `"}`)
	stalled := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body[:100])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, tc := range []struct {
		name, endpoint string
		want           string
	}{
		{"no answer", scriptedHub(t, sha256Hex(body), len(body), silent, silent).URL, "no answer from the Hub within"},
		{"stalled body", scriptedHub(t, sha256Hex(body), len(body), nil, stalled).URL, "no bytes from the Hub for"},
		{"unreachable", closed.URL, "connect"},
	} {
		home := t.TempDir()
		var progress strings.Builder
		cfg := HubConfig{Endpoint: tc.endpoint, Home: home, Progress: &progress, AnswerTimeout: 200 * time.Millisecond, StallTimeout: 200 * time.Millisecond}
		_, err := Download(t.Context(), "org/Model", cfg)
		var he *HubError
		if !errors.As(err, &he) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a HubError saying %q", tc.name, err, tc.want)
			continue
		}
		for _, fix := range []string{"HF_ENDPOINT", "HF_HUB_OFFLINE=1", "local tokenizer.json path"} {
			if !strings.Contains(err.Error(), fix) {
				t.Errorf("%s: %v does not give the fix %q", tc.name, err, fix)
			}
		}
		if !strings.Contains(progress.String(), "tokenizer: asking "+tc.endpoint) {
			t.Errorf("%s: the console did not say where it was asking: %q", tc.name, progress.String())
		}
		if left, _ := filepath.Glob(filepath.Join(home, "hub", "*", "blobs", "*")); len(left) != 0 {
			t.Errorf("%s: left %v", tc.name, left)
		}
	}
}

// TestHubCorruptNotCached (issue 27 review): a download that is not JSON,
// or whose bytes do not match the Hub's SHA-256 ETag or announced size,
// is not moved into the cache (no blob, no snapshot, no ref), so a rerun
// downloads afresh; a corrupt file already cached names what to delete.
func TestHubCorruptNotCached(t *testing.T) {
	t.Parallel()
	page := []byte("<html>captive portal</html>")
	good := []byte(`{"model": {"type": "BPE"}}`)
	serve := func(b []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { w.Write(b) }
	}
	for _, tc := range []struct {
		name string
		hub  *httptest.Server
		want string
	}{
		{"not JSON", scriptedHub(t, "0123abcd", -1, nil, serve(page)), "not JSON"},
		{"sha256 differs", scriptedHub(t, sha256Hex(page), -1, nil, serve(good)), "SHA-256"},
		{"size differs", scriptedHub(t, "0123abcd", len(good)+5, nil, serve(good)), "announced"},
	} {
		home := t.TempDir()
		_, err := Download(t.Context(), "org/Model", HubConfig{Endpoint: tc.hub.URL, Home: home})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
		if left, _ := filepath.Glob(filepath.Join(home, "hub", "*", "*", "*")); len(left) != 0 {
			t.Errorf("%s: the cache keeps %v", tc.name, left)
		}
	}
	// A corrupt file already in the cache: the error names it.
	home := t.TempDir()
	repo := filepath.Join(home, "hub", "models--org--Model")
	commit := strings.Repeat("ef56", 10)
	os.MkdirAll(filepath.Join(repo, "blobs"), 0o755)
	os.MkdirAll(filepath.Join(repo, "refs"), 0o755)
	os.MkdirAll(filepath.Join(repo, "snapshots", commit), 0o755)
	os.WriteFile(filepath.Join(repo, "blobs", "bad"), page, 0o644)
	os.WriteFile(filepath.Join(repo, "refs", "main"), []byte(commit), 0o644)
	link := filepath.Join(repo, "snapshots", commit, "tokenizer.json")
	if err := os.Symlink(filepath.Join("..", "..", "blobs", "bad"), link); err != nil {
		t.Fatal(err)
	}
	_, err := Load("org/Model", WithHFHome(home))
	if err == nil || !strings.Contains(err.Error(), "delete "+filepath.Join(repo, "blobs", "bad")) || !strings.Contains(err.Error(), link) {
		t.Errorf("a corrupt cached tokenizer.json: %v, want the paths to delete", err)
	}
}
