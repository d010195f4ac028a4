package main

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/mockserver"
)

// TestSecretsNeverWritten: the secrets a command line carries (a password
// in --target, credential headers, --api-key) appear in no output file
// (run.json, scorecard.json, levels.csv, requests.jsonl, report.html, and
// what `report` re-renders) and neither on stdout nor on stderr, for a
// run that works, one whose model lookup fails and one against a dead
// target. Before, Proxy-Authorization and the URL's password leaked into
// run.json's command, report.html and stderr.
func TestSecretsNeverWritten(t *testing.T) {
	t.Parallel()
	secrets := []string{"URLUSERSECRET", "URLPASSSECRET", "PROXYSECRET", "COOKIESECRET", "APIKEYHDRSECRET", "TOKENSECRET", "APIKEYFLAGSECRET", "ENGINEPASS", "QUERYSECRET", "CUSTOMCREDSSECRET", "ORGSECRET"}
	url := fastMock(t)
	withCreds := strings.Replace(url, "http://", "http://URLUSERSECRET:URLPASSSECRET@", 1)
	secretArgs := []string{
		"--header", "Proxy-Authorization=Basic PROXYSECRET",
		"--header=Cookie=session=COOKIESECRET",
		"--header", "X-Api-Key=APIKEYHDRSECRET",
		"--header", "x-session-token=TOKENSECRET",
		// Credentials under names of their own (issue 25 item 7).
		"--header", "X-Custom-Creds=CUSTOMCREDSSECRET",
		"--header", "OpenAI-Organization=ORGSECRET",
		"--api-key", "APIKEYFLAGSECRET",
		"--energy", "prometheus=http://admin:ENGINEPASS@127.0.0.1:1/?api_key=QUERYSECRET",
	}
	dir := t.TempDir()
	var seen strings.Builder
	check := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				i := strings.Index(text, s)
				t.Errorf("%s holds the secret %s: ...%s...", what, s, text[max(0, i-80):min(len(text), i+40)])
			}
		}
		seen.WriteString(text)
	}

	// A run that works (and scrapes the engine's /metrics at the target,
	// whose URL carries the credentials).
	args := append([]string{"run", "--target", withCreds, "--profile", "concurrent", "--rate", "2", "--max-requests", "6",
		"--data", "prompt_tokens=4,output_tokens=2", "--engine-metrics", "target", "--max-lag", lenientLag,
		"--output-dir", dir, "--run-id", "ok"}, secretArgs...)
	code, stdout, stderr := cli(t, context.Background(), args...)
	check("stdout", stdout)
	check("stderr", stderr)
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr := cli(t, context.Background(), "report", filepath.Join(dir, "ok"), "--format", "console,csv,html,json"); code != exitcode.OK {
		t.Errorf("report: exit %d: %s", code, stderr)
	} else {
		check("report's stdout", stdout)
		check("report's stderr", stderr)
	}

	// The model lookup fails (nothing listens), then a dead target with
	// --model set: the errors and the summary of failures quote the URL.
	dead := "http://URLUSERSECRET:URLPASSSECRET@127.0.0.1:1"
	for _, extra := range [][]string{
		{"--run-id", "lookup"},
		{"--run-id", "dead", "--model", "m"},
	} {
		args := append([]string{"run", "--target", dead, "--profile", "synchronous", "--max-seconds", "1",
			"--data", "prompt_tokens=4,output_tokens=2", "--output-dir", dir}, append(extra, secretArgs...)...)
		code, stdout, stderr := cli(t, context.Background(), args...)
		check(extra[1]+" stdout", stdout)
		check(extra[1]+" stderr", stderr)
		if code != exitcode.Failure {
			t.Errorf("%s: exit %d, want 1\n%s", extra[1], code, stderr)
		}
	}

	// A header written the curl way is refused without quoting it.
	code, _, stderr = cli(t, context.Background(), "run", "--target", url, "--header", "Authorization: Bearer APIKEYHDRSECRET", "--output-dir", dir)
	check("stderr of a curl-style header", stderr)
	if code != exitcode.Usage || !strings.Contains(stderr, "Authorization=") {
		t.Errorf("curl-style header: exit %d, %q; want 2 showing the NAME=VALUE form", code, stderr)
	}

	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, strings.TrimPrefix(path, dir))
		check(path, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/ok/run.json", "/ok/scorecard.json", "/ok/levels.csv", "/ok/requests.jsonl", "/ok/report.html", "/dead/run.json", "/dead/requests.jsonl"} {
		found := false
		for _, f := range files {
			found = found || filepath.ToSlash(f) == want
		}
		if !found {
			t.Errorf("no %s written; files: %v", want, files)
		}
	}
	// The redacted forms are there: the outputs still say a header and
	// credentials were given.
	all := seen.String()
	for _, want := range []string{"Proxy-Authorization=REDACTED", "--api-key REDACTED", "REDACTED@127.0.0.1"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in the outputs", want)
		}
	}
}

// TestEnvironmentKeyNeverBeatsExplicitCredentials: $OPENAI_API_KEY is sent
// only when nothing more explicit is given (an Authorization --header,
// credentials in --target, --api-key), and stderr says once which source
// was sent; the key itself is on no output and no console (issue 25: the
// environment's key replaced an explicit --header Authorization, sending a
// user's OpenAI key to the benchmarked server).
func TestEnvironmentKeyNeverBeatsExplicitCredentials(t *testing.T) {
	t.Parallel()
	cfg, err := mockserver.Preset("instant")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("Authorization")]++
		mu.Unlock()
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); srv.Close() })
	withCreds := strings.Replace(ts.URL, "http://", "http://user:URLPASSSECRET@", 1)
	for _, tc := range []struct {
		name, target string
		extra        []string
		sent, said   string
	}{
		{"header", ts.URL, []string{"--header", "Authorization=Bearer HEADERSECRET"}, "Bearer HEADERSECRET", "not sending $OPENAI_API_KEY"},
		{"url", withCreds, nil, "Basic dXNlcjpVUkxQQVNTU0VDUkVU", "not sending $OPENAI_API_KEY"},
		{"flag", ts.URL, []string{"--api-key", "FLAGSECRET"}, "Bearer FLAGSECRET", "not sending $OPENAI_API_KEY"},
		{"environment", ts.URL, nil, "Bearer ENVSECRET", "sending $OPENAI_API_KEY as the bearer token"},
	} {
		mu.Lock()
		clear(seen)
		mu.Unlock()
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := append([]string{"run", "--target", tc.target, "--profile", "synchronous", "--max-requests", "2",
			"--data", "prompt_tokens=4,output_tokens=2", "--energy", "none", "--max-lag", lenientLag, "--output-dir", dir, "--run-id", "r"}, tc.extra...)
		getenv := func(k string) string {
			if k == "OPENAI_API_KEY" {
				return "ENVSECRET"
			}
			return ""
		}
		code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: getenv}, args)
		if code != exitcode.OK {
			t.Fatalf("%s: exit %d\n%s", tc.name, code, stderr.String())
		}
		mu.Lock()
		if len(seen) != 1 || seen[tc.sent] == 0 {
			t.Errorf("%s: the server saw Authorization %v, want only %q", tc.name, seen, tc.sent)
		}
		mu.Unlock()
		if n := strings.Count(stderr.String(), "credentials: "); n != 1 || !strings.Contains(stderr.String(), tc.said) {
			t.Errorf("%s: stderr says %d times which credentials were sent, want once %q:\n%s", tc.name, n, tc.said, stderr.String())
		}
		outputs := stdout.String() + stderr.String()
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(path)
				outputs += string(b)
			}
			return err
		})
		for _, secret := range []string{"ENVSECRET", "HEADERSECRET", "URLPASSSECRET", "FLAGSECRET"} {
			if strings.Contains(outputs, secret) {
				t.Errorf("%s: %s written to an output or the console", tc.name, secret)
			}
		}
	}
}

// TestEchoedSecretsScrubbed: a server that echoes the credentials it was
// sent in its 401 text (the API key, a custom header) does not get them
// onto stderr, requests.jsonl or any other output: the known secret
// values are scrubbed from error texts before they are stored (issue 25
// item 7).
func TestEchoedSecretsScrubbed(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("invalid key " + r.Header.Get("Authorization") + " for org " + r.Header.Get("OpenAI-Organization")))
	}))
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--model", "m", "--run-id", "run"}, // the completions' 401s
		{"--run-id", "lookup"},              // the model lookup's 401
	} {
		code, stdout, stderr := cli(t, context.Background(), append([]string{"run", "--target", ts.URL, "--profile", "synchronous", "--max-requests", "2",
			"--data", "prompt_tokens=4,output_tokens=2", "--energy", "none", "--output-dir", dir,
			"--api-key", "ECHOEDKEY25", "--header", "OpenAI-Organization=ECHOEDORG25"}, args...)...)
		if code == exitcode.OK {
			t.Errorf("%v: exit 0 against a server that answers 401", args)
		}
		all := stdout + stderr
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(path)
				all += string(b)
			}
			return err
		})
		for _, secret := range []string{"ECHOEDKEY25", "ECHOEDORG25"} {
			if i := strings.Index(all, secret); i >= 0 {
				t.Errorf("%v: %s written: ...%s...", args, secret, all[max(0, i-60):min(len(all), i+20)])
			}
		}
		if !strings.Contains(stderr, "invalid key REDACTED for org REDACTED") {
			t.Errorf("%v: stderr does not show the scrubbed error text:\n%s", args, stderr)
		}
	}
}
