package benchmark

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/internal/fieldname"
)

// TestFlagWordsAreTheLibrarys: every phrase the flag tables replace is
// still written by a library package, so that a reworded message does not
// silently reach the user in the library's words.
func TestFlagWordsAreTheLibrarys(t *testing.T) {
	var src strings.Builder
	for _, pkg := range []string{"loadgen", "openai", "workload", "results", "harness", "metrics", "sweep", "enginemetrics", "energy", "litellm"} {
		files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", pkg, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
		}
	}
	tables := map[string][]fieldname.Name{
		"warningWords": warningWords, "syntheticFields": syntheticFields, "folderNames": folderNames, "clientOptions": clientOptions,
	}
	for name, table := range tables {
		for _, n := range table {
			if !strings.Contains(src.String(), n.Field) {
				t.Errorf("%s: no library package writes %q (for %s)", name, n.Field, n.Caller)
			}
		}
	}
}

// TestFlagWords: a warning in the library's words reads, in run.json and
// on stderr, with the flags the user gives.
func TestFlagWords(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"level 0 stopped early: its first 10 requests all failed to connect (dial tcp), so none reached the server; check that the server is up at the Requester's base URL (for HTTPS with a private CA, check the client's TLS configuration), or give Config.Limits.UnreachableAfter 0 to keep sending",
			"level 0 stopped early: its first 10 requests all failed to connect (dial tcp), so none reached the server; check that the server is up at --target (for HTTPS with a private CA, see --ca-cert and --insecure), or give --unreachable-after 0 to keep sending"},
		{"bisection stopped: level 4 (8 req/s) was undecided, so it cannot narrow the bracket; measure longer levels (Limits.MaxDuration, or a precision target with Plan.Decide to extend undecided levels)",
			"bisection stopped: level 4 (8 req/s) was undecided, so it cannot narrow the bracket; measure longer levels (--max-seconds, or --precision to extend undecided levels)"},
		{"level 2 is capped by Profile.MaxConcurrency: 8 in flight", "level 2 is capped by --max-concurrency: 8 in flight"},
		{`LiteLLM metrics: litellm: reading counters at the window's start: scraping http://proxy:4000/metrics: HTTP 401: "Unauthorized"; a /metrics URL is scraped without credentials: where the proxy is the target, use the source "target", which sends the run's key to the target's own /metrics`,
			`LiteLLM metrics: litellm: reading counters at the window's start: scraping http://proxy:4000/metrics: HTTP 401: "Unauthorized"; a /metrics URL is scraped without credentials: where the proxy is the target, use --litellm-metrics target, which sends the run's key to the target's own /metrics`},
		{"HTTP 401: bad key; the proxy refused the run's key (the target's Authorization header): give the key of the proxy, one allowed to read /metrics",
			"HTTP 401: bad key; the proxy refused the run's key (--api-key, $OPENAI_API_KEY or an Authorization --header): give the key of the proxy, one allowed to read /metrics"},
	} {
		if got := flagWords(tt.in); got != tt.want {
			t.Errorf("flagWords:\n got %s\nwant %s", got, tt.want)
		}
	}
}
