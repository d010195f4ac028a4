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
	"sync/atomic"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
)

// TestProxyFromEnvironment: HTTP_PROXY is honoured as Go's
// http.ProxyFromEnvironment does: a target reachable only through a proxy
// (llm.test resolves nowhere) is benchmarked through it, the proxy is
// recorded in run.json without its credentials, the console and the
// warnings say a proxy's latency is in every figure, and the proxy's
// password is written nowhere (issue 25 item 8: the variables were
// ignored and such a target failed with a DNS error).
func TestProxyFromEnvironment(t *testing.T) {
	t.Parallel()
	cfg, err := mockserver.Preset("instant")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var proxied, authorized atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A forward proxy gets the absolute URL of the target.
		if r.URL.Host != "llm.test:8000" {
			http.Error(w, "not proxied: "+r.URL.String(), http.StatusBadGateway)
			return
		}
		proxied.Add(1)
		if strings.HasPrefix(r.Header.Get("Proxy-Authorization"), "Basic ") {
			authorized.Add(1)
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { proxy.Close(); srv.Close() })
	proxyURL := strings.Replace(proxy.URL, "http://", "http://puser:PROXYPASS25@", 1)
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "HTTP_PROXY" {
			return proxyURL
		}
		return ""
	}
	code := runEnv(context.Background(), env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: getenv},
		[]string{"run", "--target", "http://llm.test:8000", "--profile", "synchronous", "--max-requests", "3",
			"--data", "prompt_tokens=4,output_tokens=2", "--energy", "none", "--max-lag", lenientLag, "--output-dir", dir, "--run-id", "p"})
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if proxied.Load() < 3 || authorized.Load() != proxied.Load() {
		t.Errorf("the proxy forwarded %d requests, %d with Proxy-Authorization; want every request, authorized", proxied.Load(), authorized.Load())
	}
	run, err := results.Read(filepath.Join(dir, "p"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Config.Proxy != proxy.URL {
		t.Errorf("run.json config.proxy %q, want %q (its credentials dropped)", run.Config.Proxy, proxy.URL)
	}
	found := false
	for _, w := range run.Result.Warnings {
		found = found || w.Code == "proxy_used"
	}
	if !found || !strings.Contains(stderr.String(), "a proxy adds its own latency") {
		t.Errorf("no proxy warning (run.json %v), stderr:\n%s", run.Result.Warnings, stderr.String())
	}
	all := stdout.String() + stderr.String()
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			all += string(b)
		}
		return err
	})
	if strings.Contains(all, "PROXYPASS25") {
		t.Error("the proxy's password was written")
	}
}
