package main

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// tlsMock serves the fast mock over HTTPS with httptest's self-signed
// certificate, and writes that certificate to a PEM file.
func tlsMock(t *testing.T) (url, caFile string) {
	t.Helper()
	cfg, err := mockserver.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	s, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	ts.StartTLS()
	t.Cleanup(func() { ts.Close(); s.Close() })
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(caFile, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return ts.URL, caFile
}

// TestSelfSignedTarget: a self-signed HTTPS server is refused by default,
// with a hint naming --ca-cert and --insecure (not "give --model NAME");
// --ca-cert with its certificate verifies it; --insecure skips
// verification, says so on stderr, and is recorded in run.json and the
// scorecard.
func TestSelfSignedTarget(t *testing.T) {
	t.Parallel()
	url, ca := tlsMock(t)
	dir := t.TempDir()
	base := func(id string, extra ...string) []string {
		return append([]string{"run", "--target", url, "--profile", "concurrent", "--rate", "2", "--max-requests", "4",
			"--data", "prompt_tokens=4,output_tokens=2", "--energy", "none", "--max-lag", lenientLag,
			"--output-dir", dir, "--run-id", id, "--format", "json"}, extra...)
	}

	for _, tt := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"model lookup", nil, []string{"certificate", "--ca-cert FILE", "--insecure"}},
		{"with --model", []string{"--model", "m", "--max-requests", "40"}, []string{"stopped early", "--ca-cert FILE", "--insecure", "connect"}},
	} {
		code, stdout, stderr := cli(t, context.Background(), base("refused-"+strings.ReplaceAll(tt.name, " ", "-"), tt.extra...)...)
		if code != exitcode.Failure {
			t.Errorf("%s: exit %d, want 1\n%s\n%s", tt.name, code, stdout, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tt.name, w, stderr)
			}
		}
		if strings.Contains(stderr, "give --model NAME") {
			t.Errorf("%s: a TLS failure is blamed on the model lookup:\n%s", tt.name, stderr)
		}
	}

	code, stdout, stderr := cli(t, context.Background(), base("ca", "--ca-cert", ca)...)
	if code != exitcode.OK {
		t.Fatalf("--ca-cert: exit %d\n%s\n%s", code, stdout, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "ca"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Config.CACert != ca || run.Config.Insecure || run.Result.Levels[0].Summary.Requests.OK != 4 {
		t.Errorf("--ca-cert: config %+v, %d ok", run.Config, run.Result.Levels[0].Summary.Requests.OK)
	}

	code, stdout, stderr = cli(t, context.Background(), base("insecure", "--insecure")...)
	if code != exitcode.OK {
		t.Fatalf("--insecure: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "--insecure") || !strings.Contains(stderr, "NOT verified") {
		t.Errorf("--insecure is not loud on stderr:\n%s", stderr)
	}
	run, err = results.Read(filepath.Join(dir, "insecure"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scorecard.Read(filepath.Join(dir, "insecure", results.ScorecardJSON))
	if err != nil {
		t.Fatal(err)
	}
	if !run.Config.Insecure || !sc.Metadata.InsecureTLS || run.Result.Levels[0].Summary.Requests.OK != 4 {
		t.Errorf("--insecure: config.insecure %v, scorecard insecure_tls %v, %d ok", run.Config.Insecure, sc.Metadata.InsecureTLS, run.Result.Levels[0].Summary.Requests.OK)
	}
}
