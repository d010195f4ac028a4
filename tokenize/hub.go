package tokenize

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultHubEndpoint is the Hugging Face Hub's address, used when
// HubConfig.Endpoint and $HF_ENDPOINT are empty.
const DefaultHubEndpoint = "https://huggingface.co"

// HubConfig says where and how tokenizer files are fetched from a Hugging
// Face Hub (or a mirror of it). The zero value reads nothing from the
// environment; HubConfigFromEnv fills it the way huggingface_hub does.
type HubConfig struct {
	// Endpoint is the Hub's base URL (default DefaultHubEndpoint). A
	// mirror serves the same paths: {Endpoint}/{repo}/resolve/{revision}/{file}.
	Endpoint string
	// Token is sent as "Authorization: Bearer" for gated and private
	// repositories. It is never written to disk nor printed.
	Token string
	// Home is the Hugging Face home; files go under Home/hub in the
	// layout huggingface_hub writes (default ~/.cache/huggingface).
	Home string
	// Offline forbids any network access: only the cache is read
	// ($HF_HUB_OFFLINE=1).
	Offline bool
	// Client sends the requests (default: a client with a 10-minute
	// overall timeout). It must follow redirects, as http.Client does.
	Client *http.Client
	// AnswerTimeout is the longest a request waits for the Hub's response
	// headers, connecting included (0: DefaultHubAnswerTimeout);
	// StallTimeout the longest a download waits for its next bytes (0:
	// DefaultHubStallTimeout). Either ends the request with a *HubError
	// saying which, so a Hub that accepts and never answers does not
	// stall a run.
	AnswerTimeout, StallTimeout time.Duration
	// Progress, when not nil, receives one line per file downloaded and
	// a line every few seconds while a large file arrives.
	Progress io.Writer
}

// The Hub's default timeouts (HubConfig.AnswerTimeout, StallTimeout):
// 15 s for the response headers, 30 s without a byte of a download.
const (
	DefaultHubAnswerTimeout = 15 * time.Second
	DefaultHubStallTimeout  = 30 * time.Second
)

// HubConfigFromEnv returns the configuration the environment asks for:
// $HF_ENDPOINT, $HF_TOKEN (else the file $HF_TOKEN_PATH, else
// $HF_HOME/token, the one `huggingface-cli login` writes), $HF_HOME and
// $HF_HUB_OFFLINE, with huggingface_hub's meaning for each. getenv looks
// a variable up (nil: os.Getenv).
func HubConfigFromEnv(getenv func(string) string) HubConfig {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := HubConfig{Endpoint: getenv("HF_ENDPOINT"), Home: getenv("HF_HOME")}
	if c.Home == "" {
		c.Home = hfHomeDir("")
	}
	switch strings.ToLower(getenv("HF_HUB_OFFLINE")) {
	case "1", "true", "yes", "on":
		c.Offline = true
	}
	c.Token = strings.TrimSpace(getenv("HF_TOKEN"))
	if c.Token == "" {
		path := getenv("HF_TOKEN_PATH")
		if path == "" && c.Home != "" {
			path = filepath.Join(c.Home, "token")
		}
		if path != "" {
			if b, err := os.ReadFile(path); err == nil {
				c.Token = strings.TrimSpace(string(b))
			}
		}
	}
	return c
}

// hfHomeDir returns dir, else $HF_HOME, else ~/.cache/huggingface.
func hfHomeDir(dir string) string {
	if dir != "" {
		return dir
	}
	if dir = os.Getenv("HF_HOME"); dir != "" {
		return dir
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "huggingface")
	}
	return ""
}

// Snapshot is one revision of a Hub repository in the local cache.
type Snapshot struct {
	Repo     string // "Qwen/Qwen3-8B"
	Revision string // what was asked for: "main", a tag, a branch or a commit
	Commit   string // the 40-hex commit the revision resolved to
	Dir      string // HOME/hub/models--ORG--NAME/snapshots/COMMIT
	// Downloaded is true when any file came over the network in this call.
	Downloaded bool
}

// HubError is a failed Hub request: the URL (never holding the token),
// the HTTP status (0 when no response came) and what went wrong.
type HubError struct {
	URL    string
	Status int
	Err    error
}

func (e *HubError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("tokenize: %s: %v", e.URL, e.Err)
	}
	return fmt.Sprintf("tokenize: %s: HTTP %d %s: %v", e.URL, e.Status, http.StatusText(e.Status), e.Err)
}

func (e *HubError) Unwrap() error { return e.Err }

// ErrNoTokenizerJSON is wrapped by errors for a repository that has no
// tokenizer.json (an older model that ships only a slow tokenizer's files).
var ErrNoTokenizerJSON = errors.New("the repository has no tokenizer.json")

// repoIDPattern is a Hub model id, ORG/NAME, with an optional @REVISION.
var repoIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*(@[A-Za-z0-9._/-]+)?$`)

// IsModelID reports whether s reads as a Hub model id, ORG/NAME or
// ORG/NAME@REVISION, rather than a file path.
func IsModelID(s string) bool {
	return repoIDPattern.MatchString(s) && !strings.Contains(s, "..")
}

// splitModelID splits "ORG/NAME@REV" into the repository and the revision
// (default "main").
func splitModelID(id string) (repo, revision string) {
	repo, revision, ok := strings.Cut(id, "@")
	if !ok || revision == "" {
		revision = "main"
	}
	return repo, revision
}

// hubRepoDir is HOME/hub/models--ORG--NAME.
func hubRepoDir(home, repo string) string {
	return filepath.Join(home, "hub", "models--"+strings.ReplaceAll(repo, "/", "--"))
}

var commitPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

// cachedSnapshot finds the revision in the cache: refs/REVISION names the
// commit, or the revision is itself a commit with a snapshot folder.
func cachedSnapshot(home, repo, revision string) (Snapshot, bool) {
	dir := hubRepoDir(home, repo)
	commit := revision
	if !commitPattern.MatchString(revision) {
		b, err := os.ReadFile(filepath.Join(dir, "refs", filepath.FromSlash(revision)))
		if err != nil {
			return Snapshot{}, false
		}
		commit = strings.TrimSpace(string(b))
	}
	snap := filepath.Join(dir, "snapshots", commit)
	if _, err := os.Stat(snap); err != nil {
		return Snapshot{}, false
	}
	return Snapshot{Repo: repo, Revision: revision, Commit: commit, Dir: snap}, true
}

// tokenizerFiles are the files a tokenizer needs: tokenizer.json is
// required, tokenizer_config.json (the chat template and special tokens)
// is fetched when the repository has it.
var tokenizerFiles = []struct {
	name     string
	required bool
}{{"tokenizer.json", true}, {"tokenizer_config.json", false}}

// Download makes the tokenizer files of a Hub model id ("ORG/NAME" or
// "ORG/NAME@REVISION") present in the local cache and returns the
// snapshot holding them. Files already cached for the revision are not
// fetched again; with c.Offline nothing is fetched and a missing file is
// an error. Files are written as huggingface_hub writes them: the bytes
// in blobs/ETAG, the revision's commit in refs/REVISION, and
// snapshots/COMMIT/FILE a relative symbolic link to the blob, so
// transformers and huggingface-cli share them. A repository without
// tokenizer.json gives an error wrapping ErrNoTokenizerJSON; a failed
// request gives a *HubError naming the URL and the status.
func Download(ctx context.Context, id string, c HubConfig) (Snapshot, error) {
	if !IsModelID(id) {
		return Snapshot{}, fmt.Errorf("tokenize: %q is not a model id (ORG/NAME or ORG/NAME@REVISION)", id)
	}
	repo, revision := splitModelID(id)
	home := hfHomeDir(c.Home)
	if home == "" {
		return Snapshot{}, errors.New("tokenize: no Hugging Face home: set HF_HOME")
	}
	if snap, ok := cachedSnapshot(home, repo, revision); ok && snapshotHas(snap, home) {
		return snap, nil
	}
	if c.Offline {
		return Snapshot{}, fmt.Errorf("tokenize: %s@%s has no tokenizer.json in the cache under %s, and HF_HUB_OFFLINE forbids downloading it (unset HF_HUB_OFFLINE, or load a local tokenizer.json)", repo, revision, hubRepoDir(home, repo))
	}
	endpoint := strings.TrimRight(c.Endpoint, "/")
	if endpoint == "" {
		endpoint = DefaultHubEndpoint
	}
	client := c.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Minute}
	}
	if c.AnswerTimeout <= 0 {
		c.AnswerTimeout = DefaultHubAnswerTimeout
	}
	if c.StallTimeout <= 0 {
		c.StallTimeout = DefaultHubStallTimeout
	}
	f := fetcher{c: c, client: client, endpoint: endpoint, home: home, repo: repo}
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, "tokenizer: asking %s for %s@%s's tokenizer files (no answer in %v ends it)\n", f.redact(endpoint), repo, revision, c.AnswerTimeout)
	}
	snap := Snapshot{Repo: repo, Revision: revision}
	for _, file := range tokenizerFiles {
		// Once the commit is known, later files are asked for at that
		// commit, so that one snapshot's files belong together.
		rev := revision
		if snap.Commit != "" {
			rev = snap.Commit
		}
		commit, got, err := f.file(ctx, rev, file.name)
		if err != nil {
			var he *HubError
			if !file.required && errors.As(err, &he) && he.Status == http.StatusNotFound {
				continue
			}
			return Snapshot{}, err
		}
		if snap.Commit == "" {
			snap.Commit = commit
		}
		snap.Downloaded = snap.Downloaded || got
	}
	snap.Dir = filepath.Join(hubRepoDir(home, repo), "snapshots", snap.Commit)
	if revision != snap.Commit {
		if err := writeAtomically(filepath.Join(hubRepoDir(home, repo), "refs", filepath.FromSlash(revision)), []byte(snap.Commit)); err != nil {
			return Snapshot{}, err
		}
	}
	return snap, nil
}

// snapshotHas reports whether the snapshot holds tokenizer.json and knows
// about tokenizer_config.json (the file, or huggingface_hub's .no_exist
// marker saying the repository has none).
func snapshotHas(s Snapshot, home string) bool {
	if _, err := os.Stat(filepath.Join(s.Dir, "tokenizer.json")); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "tokenizer_config.json")); err == nil {
		return true
	}
	_, err := os.Stat(filepath.Join(hubRepoDir(home, s.Repo), ".no_exist", s.Commit, "tokenizer_config.json"))
	return err == nil
}

type fetcher struct {
	c        HubConfig
	client   *http.Client
	endpoint string
	home     string
	repo     string
}

func (f *fetcher) url(revision, file string) string {
	return f.endpoint + "/" + f.repo + "/resolve/" + url.PathEscape(revision) + "/" + file
}

func (f *fetcher) request(ctx context.Context, method, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, &HubError{URL: u, Err: err}
	}
	req.Header.Set("User-Agent", "gollm-bench")
	if f.c.Token != "" {
		// http.Client drops Authorization on a redirect to another host
		// (the Hub's CDN), so the token goes only to the endpoint.
		req.Header.Set("Authorization", "Bearer "+f.c.Token)
	}
	return req, nil
}

// hubFailure turns a response status into the error the user reads.
func (f *fetcher) hubFailure(u string, status int, file string) error {
	var err error
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		if f.c.Token == "" {
			err = fmt.Errorf("%s is gated or private: accept its terms on the Hub, then set HF_TOKEN or run `huggingface-cli login`", f.repo)
		} else {
			err = fmt.Errorf("the token (from HF_TOKEN or the login file) was refused for %s: check that it may read this repository", f.repo)
		}
	case http.StatusNotFound:
		if file == "tokenizer.json" {
			err = fmt.Errorf("%w (or the repository or revision does not exist): load a local tokenizer.json instead", ErrNoTokenizerJSON)
		} else {
			err = fmt.Errorf("no %s in %s", file, f.repo)
		}
	default:
		err = errors.New("the Hub refused the request")
	}
	return &HubError{URL: f.redact(u), Status: status, Err: err}
}

// hubFix is what a user can do when the Hub cannot be reached.
const hubFix = "set HF_ENDPOINT to a Hub or mirror that answers, HF_HUB_OFFLINE=1 to use only the local cache, or give a local tokenizer.json path"

// netFailure is the error for a request that got no response: the
// watchdog's reason when it fired, else the transport's error, and the fix.
func (f *fetcher) netFailure(u string, err error, dog *watchdog) error {
	msg := f.redact(err.Error())
	if dog.fired.Load() {
		msg = fmt.Sprintf("no answer from the Hub within %v (connecting and waiting for its response headers)", f.c.AnswerTimeout)
	}
	return &HubError{URL: f.redact(u), Err: fmt.Errorf("%s: %s", msg, hubFix)}
}

// watchdog cancels a Hub request that stays silent: no response headers
// within one duration (the timer as first set), then no body bytes for
// another (reset by every Write, and by Answered).
type watchdog struct {
	timer *time.Timer
	stall time.Duration
	fired atomic.Bool
}

// newWatchdog returns the request's context, cancelled when the Hub
// stays silent, the watchdog, and the function that stops both.
func newWatchdog(ctx context.Context, answer, stall time.Duration) (context.Context, *watchdog, func()) {
	ctx, cancel := context.WithCancel(ctx)
	w := &watchdog{stall: stall}
	w.timer = time.AfterFunc(answer, func() { w.fired.Store(true); cancel() })
	return ctx, w, func() { w.timer.Stop(); cancel() }
}

// Answered starts the stall clock once the response headers are in.
func (w *watchdog) Answered() { w.timer.Reset(w.stall) }

// Write resets the stall clock: bytes arrived.
func (w *watchdog) Write(b []byte) (int, error) {
	w.timer.Reset(w.stall)
	return len(b), nil
}

// redact removes the token from s, should a mirror's URL ever carry it.
func (f *fetcher) redact(s string) string {
	if f.c.Token == "" {
		return s
	}
	return strings.ReplaceAll(s, f.c.Token, "***")
}

// file ensures one file of the revision is in the cache and returns the
// commit it belongs to and whether it was downloaded. It asks first with
// HEAD, without following redirects, for the commit (X-Repo-Commit) and
// the blob's name (X-Linked-Etag, else ETag), as huggingface_hub does.
func (f *fetcher) file(ctx context.Context, revision, file string) (commit string, downloaded bool, err error) {
	u := f.url(revision, file)
	hctx, dog, stop := newWatchdog(ctx, f.c.AnswerTimeout, f.c.StallTimeout)
	defer stop()
	req, err := f.request(hctx, http.MethodHead, u)
	if err != nil {
		return "", false, err
	}
	// Redirects within the Hub (a renamed repository: a relative
	// Location, and no X-Repo-Commit) are followed; one to another host
	// (the CDN holding a large file) is not: its headers are the answer.
	noFollow := *f.client
	noFollow.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) < 5 && r.URL.Host == via[0].URL.Host && r.Response != nil && r.Response.Header.Get("X-Repo-Commit") == "" {
			return nil
		}
		return http.ErrUseLastResponse
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return "", false, f.netFailure(u, err, dog)
	}
	resp.Body.Close()
	stop()
	if resp.StatusCode >= 400 {
		if resp.StatusCode == http.StatusNotFound && commitPattern.MatchString(revision) {
			// huggingface_hub's marker for a file the commit lacks.
			_ = writeAtomically(filepath.Join(hubRepoDir(f.home, f.repo), ".no_exist", revision, file), nil)
		}
		return "", false, f.hubFailure(u, resp.StatusCode, file)
	}
	commit = resp.Header.Get("X-Repo-Commit")
	etag := resp.Header.Get("X-Linked-Etag")
	if etag == "" {
		etag = resp.Header.Get("ETag")
	}
	etag = strings.TrimPrefix(strings.Trim(etag, `"`), "W/")
	etag = strings.Trim(etag, `"`)
	if !commitPattern.MatchString(commit) {
		return "", false, &HubError{URL: f.redact(u), Status: resp.StatusCode, Err: fmt.Errorf("the response has no X-Repo-Commit header naming a commit (got %q): is HF_ENDPOINT a Hub?", commit)}
	}
	if etag == "" || strings.ContainsAny(etag, `/\`) || etag == "." || etag == ".." {
		return "", false, &HubError{URL: f.redact(u), Status: resp.StatusCode, Err: fmt.Errorf("the response has no usable ETag (got %q)", etag)}
	}
	repoDir := hubRepoDir(f.home, f.repo)
	blob := filepath.Join(repoDir, "blobs", etag)
	link := filepath.Join(repoDir, "snapshots", commit, file)
	size := int64(-1)
	if n, err := strconv.ParseInt(resp.Header.Get("X-Linked-Size"), 10, 64); err == nil && n >= 0 {
		size = n
	}
	if _, err := os.Stat(blob); err != nil {
		if err := f.fetchBlob(ctx, u, file, blob, etag, size); err != nil {
			return "", false, err
		}
		downloaded = true
	}
	if err := linkSnapshot(blob, link); err != nil {
		return "", false, err
	}
	return commit, downloaded, nil
}

// fetchBlob streams the file into blob (through blob.incomplete), and
// moves it into the cache only once every byte the server announced has
// arrived and the bytes are checked: JSON (every tokenizer file is), of
// size bytes (the HEAD's X-Linked-Size; -1: unknown), and with the SHA-256
// etag names when it is one (the Hub's ETag of a large, LFS file).
func (f *fetcher) fetchBlob(ctx context.Context, u, file, blob, etag string, size int64) error {
	gctx, dog, stop := newWatchdog(ctx, f.c.AnswerTimeout, f.c.StallTimeout)
	defer stop()
	req, err := f.request(gctx, http.MethodGet, u)
	if err != nil {
		return err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return f.netFailure(u, err, dog)
	}
	defer resp.Body.Close()
	dog.Answered()
	if resp.StatusCode != http.StatusOK {
		return f.hubFailure(u, resp.StatusCode, file)
	}
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	tmp := blob + ".incomplete"
	out, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	sum := sha256.New()
	var progress io.Writer = io.Discard
	if f.c.Progress != nil {
		progress = f.c.Progress
	}
	fmt.Fprintf(progress, "downloading %s/%s (%s) from %s\n", f.repo, file, sizeText(resp.ContentLength), f.redact(f.endpoint))
	counter := &progressCounter{w: progress, name: file, total: resp.ContentLength, last: time.Now()}
	n, copyErr := io.Copy(io.MultiWriter(out, sum, counter, dog), resp.Body)
	closeErr := out.Close()
	if dog.fired.Load() && ctx.Err() == nil {
		copyErr = fmt.Errorf("no bytes from the Hub for %v after %d bytes: %s", f.c.StallTimeout, n, hubFix)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		cause := copyErr
		if cause == nil {
			cause = errors.New("the body ended early")
		}
		copyErr = fmt.Errorf("the download stopped after %d of %d bytes (%v): run again to retry", n, resp.ContentLength, cause)
	}
	if copyErr == nil {
		copyErr = closeErr
	}
	if copyErr == nil {
		copyErr = checkBlob(tmp, n, hex.EncodeToString(sum.Sum(nil)), etag, size)
	}
	if copyErr != nil {
		os.Remove(tmp)
		return &HubError{URL: f.redact(u), Status: resp.StatusCode, Err: fmt.Errorf("%s: %s", file, f.redact(copyErr.Error()))}
	}
	if err := os.Rename(tmp, blob); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("tokenize: %w", err)
	}
	fmt.Fprintf(progress, "downloaded %s/%s: %d bytes, sha256 %s\n", f.repo, file, n, hex.EncodeToString(sum.Sum(nil)))
	return nil
}

// sha256ETag is the shape of the Hub's ETag for a large (LFS) file: the
// file's SHA-256.
var sha256ETag = regexp.MustCompile(`^[0-9a-f]{64}$`)

// checkBlob checks a downloaded tokenizer file before it enters the
// cache: n bytes are size (unless -1), the SHA-256 is the etag when the
// etag is one, and the bytes are JSON.
func checkBlob(path string, n int64, sum, etag string, size int64) error {
	if size >= 0 && n != size {
		return fmt.Errorf("%d bytes arrived but the Hub announced %d (X-Linked-Size): not cached; run again to retry", n, size)
	}
	if sha256ETag.MatchString(etag) && sum != etag {
		return fmt.Errorf("the bytes' SHA-256 is %s but the Hub's ETag says %s: not cached; run again to retry", sum, etag)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !json.Valid(b) {
		return fmt.Errorf("the Hub's answer is not JSON (it begins %q): not cached; is HF_ENDPOINT a Hub?", firstBytes(b, 40))
	}
	return nil
}

// firstBytes is the start of b, at most n bytes, for an error message.
func firstBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// linkSnapshot makes link a relative symbolic link to blob, as
// huggingface_hub does (a copy where links are not allowed).
func linkSnapshot(blob, link string) error {
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	rel, err := filepath.Rel(filepath.Dir(link), blob)
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	if target, err := os.Readlink(link); err == nil && target == rel {
		return nil
	}
	os.Remove(link)
	if err := os.Symlink(rel, link); err == nil {
		return nil
	}
	b, err := os.ReadFile(blob)
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	return writeAtomically(link, b)
}

func writeAtomically(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("tokenize: %w", err)
	}
	return nil
}

func sizeText(n int64) string {
	if n < 0 {
		return "size unknown"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// progressCounter writes a progress line at most every 2 s of a download.
type progressCounter struct {
	w     io.Writer
	name  string
	total int64
	n     int64
	last  time.Time
}

func (p *progressCounter) Write(b []byte) (int, error) {
	p.n += int64(len(b))
	if now := time.Now(); now.Sub(p.last) >= 2*time.Second {
		p.last = now
		if p.total > 0 {
			fmt.Fprintf(p.w, "  %s: %d of %d bytes (%.0f %%)\n", p.name, p.n, p.total, 100*float64(p.n)/float64(p.total))
		} else {
			fmt.Fprintf(p.w, "  %s: %d bytes\n", p.name, p.n)
		}
	}
	return len(b), nil
}
