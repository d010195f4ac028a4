package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/exitcode"
)

// badInputFixtures writes the files the bad-input table needs into dir: a
// binary "dataset", a results folder without run.json, one whose run.json
// is not JSON, one whose run.json is a JSON array, and one whose first
// histogram is corrupt.
func badInputFixtures(t *testing.T, dir string) {
	t.Helper()
	write := func(name string, data []byte) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, '\n', 0, 0, 0x01, 0x02, 'x', '\n'}
	write("model.bin", bin)
	write("prompts.txt", []byte("hello there\nsecond prompt\n"))
	if err := os.MkdirAll(filepath.Join(dir, "empty-results"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("notjson/run.json", []byte("{\"schema_version\": 1, \"run_id\": "))
	write("array/run.json", []byte("[1, 2, 3]\n"))
	good, err := os.ReadFile(filepath.Join("..", "..", "testdata", "report", "run-from-another-machine", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(good)
	const key = `"histogram": "`
	i := strings.Index(s, key)
	if i < 0 {
		t.Fatal("no histogram in the fixture run.json")
	}
	i += len(key)
	write("badhist/run.json", []byte(s[:i]+"!!not-base64!!"+s[i+8:]))
}

// TestBadInputRefusedBeforeSending holds every bad input the fault and
// bad-input campaign found accepted (or exiting 1): each exits 2 with an
// error naming the flag (or the file) and a fix, before any request reaches
// the target, and without creating the output folder.
func TestBadInputRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no request should reach the target", http.StatusTeapot)
	}))
	t.Cleanup(ts.Close)
	fx := t.TempDir()
	badInputFixtures(t, fx)
	bench := func(cmd string, args ...string) []string {
		return append([]string{cmd, "--target", ts.URL, "--energy", "none", "--data", "prompt_tokens=4,output_tokens=2"}, args...)
	}
	run := func(args ...string) []string { return bench("run", args...) }
	sweep := func(args ...string) []string { return bench("sweep", args...) }
	constant := func(args ...string) []string {
		return run(append([]string{"--profile", "constant", "--rate", "1", "--max-seconds", "1"}, args...)...)
	}
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"rate NaN", run("--profile", "constant", "--rate", "NaN"), []string{`--rate "NaN"`, "positive"}},
		{"rate Inf", run("--profile", "constant", "--rate", "Inf"), []string{`--rate "Inf"`, "positive"}},
		{"rate runaway constant", run("--profile", "constant", "--rate", "1e10", "--max-seconds", "1"), []string{`--rate "1e+10"`, "largest usable rate is 1e+06 req/s"}},
		{"rate runaway poisson", run("--profile", "poisson", "--rate", "1e308", "--max-seconds", "1"), []string{`--rate "1e+308"`, "largest usable rate is 1e+06 req/s"}},
		{"max-seconds NaN", run("--profile", "synchronous", "--max-seconds", "NaN"), []string{"--max-seconds NaN", "e.g. 30"}},
		// Issue 25 item 10: an overflowed duration was printed; a mean
		// outside its bounds was silently clamped; --data beside
		// --dataset was silently ignored.
		{"max-seconds 1e300", run("--profile", "synchronous", "--max-seconds", "1e300"), []string{"--max-seconds 1e+300", "292 years", "e.g. 30"}},
		{"data mean outside its bounds", run("--profile", "synchronous", "--max-seconds", "1", "--data", "prompt_tokens=10,prompt_tokens_min=20,output_tokens=10,output_tokens_max=5"), []string{"prompt_tokens=10 is below prompt_tokens_min=20", "output_tokens=10 is above output_tokens_max=5"}},
		{"data with dataset", constant("--dataset", filepath.Join(fx, "prompts.txt")), []string{"--data prompt_tokens=4,output_tokens=2 with --dataset", "only output_tokens"}},
		{"knee-tolerance negative", sweep("--knee-tolerance", "-1"), []string{"--knee-tolerance -1", "e.g. 0.05"}},
		{"knee-tolerance 2", sweep("--knee-tolerance", "2"), []string{"--knee-tolerance 2", "e.g. 0.05"}},
		{"levels 1", sweep("--levels", "1"), []string{"--levels 1", "at least 2"}},
		{"levels -3", sweep("--levels", "-3"), []string{"--levels -3", "at least 2"}},
		{"max-levels -1", sweep("--max-levels", "-1"), []string{"--max-levels -1", "0 for"}},
		{"max-concurrency -1", constant("--max-concurrency", "-1"), []string{"--max-concurrency -1", "0 for no cap"}},
		{"warmup leaves nothing", run("--profile", "synchronous", "--max-seconds", "2", "--warmup", "60s"), []string{"--warmup", "--max-seconds", "shorten"}},
		{"header name with a space", constant("--header", "Bad Header=x"), []string{`--header: header name "Bad Header"`, "e.g. Bad-Header"}},
		{"header value with a newline", constant("--header", "X-Trace=a\nb"), []string{"--header: header X-Trace", "one line"}},
		{"temperature NaN", constant("--temperature", "NaN"), []string{"--temperature NaN", "e.g. 0"}},
		{"receive clock", constant("--receive-clock", "wall"), []string{`--receive-clock: receive clock "wall"`, "auto, kernel or user"}},
		{"target without scheme", append(constant(), "--target", "127.0.0.1:8000"), []string{"--target", "http://127.0.0.1:8000"}},
		{"target port out of range", append(constant(), "--target", "http://127.0.0.1:99999"), []string{"--target", "port 99999", "1 to 65535"}},
		{"fractional concurrency", run("--profile", "concurrent", "--rate", "1.5", "--max-seconds", "1"), []string{`--rate "1.5"`, "whole number", "--profile concurrent"}},
		{"rate with synchronous", run("--profile", "synchronous", "--rate", "5", "--max-seconds", "1"), []string{"--rate", "--profile synchronous", "drop --rate"}},
		{"duplicate SLO term", constant("--slo", "ttft_p99<=1s,ttft_p99<=2s"), []string{"--slo", "ttft_p99", "once"}},
		{"sequence weights sum to 90", run("--profile", "synchronous", "--max-seconds", "1", "--data", "", "--sequence-distribution", "64|10,32|8:50;256|40,128|20:40"), []string{"--sequence-distribution", "sum to 90", "100"}},
		{"binary dataset", constant("--data", "output_tokens=2", "--dataset", filepath.Join(fx, "model.bin")), []string{"--dataset", "model.bin", "not a text file"}},
		{"pue negative", constant("--pue", "-1"), []string{"--pue -1", "at least 1"}},
		{"pue below 1", constant("--pue", "0.5"), []string{"--pue 0.5", "at least 1"}},
		{"gpu cost negative", constant("--gpu-cost-eur-h", "-3"), []string{"--gpu-cost-eur-h -3", ">= 0"}},
		{"min-tokens negative", constant("--min-tokens", "-1"), []string{"--min-tokens -1", "0 (not sent)"}},
		{"max-lag negative", constant("--max-lag", "-5ms"), []string{"--max-lag -5ms", "0 for the default"}},
		{"drain-timeout negative", constant("--drain-timeout", "-1s"), []string{"--drain-timeout -1s", "0 to cut"}},
		{"precision malformed", constant("--precision", "ttft_p99=5%"), []string{"--precision", "statistic:fraction"}},
		{"precision zero", constant("--precision", "ttft_p99:0%"), []string{"--precision", "above 0 and below 100%"}},
		{"precision negative", constant("--precision", "itl_p95:-3%"), []string{"--precision", "above 0 and below 100%"}},
		{"precision unknown metric", constant("--precision", "tpot_p99:5%"), []string{"--precision", "unknown metric"}},
		{"precision given a dtype", constant("--precision", "fp8"), []string{"--precision", "--model-precision fp8"}},
		{"precision-max-seconds without precision", []string{"sweep", "--target", ts.URL, "--model", "m", "--precision-max-seconds", "60"}, []string{"--precision-max-seconds", "without --precision"}},
		{"repeat zero", constant("--repeat", "0"), []string{"--repeat 0", "at least once"}},
		{"repeat negative", constant("--repeat", "-2"), []string{"--repeat -2", "at least once"}},
		{"repeat malformed", constant("--repeat", "three"), []string{"--repeat", "three"}},
		{"engine-metrics not a URL", constant("--engine-metrics", "::::"), []string{`--engine-metrics "::::"`, "target", "http://"}},
		{"opencost without namespace", constant("--opencost", "http://127.0.0.1:9003"), []string{"--opencost", "--opencost-namespace"}},
		{"no-stream with a TTFT term", constant("--no-stream", "--slo", "ttft_p99<=1s"), []string{"--no-stream", "ttft_p99", "drop"}},
		{"no-stream with an ITL term", constant("--no-stream", "--slo", "itl_p95<=50ms"), []string{"--no-stream", "itl_p95"}},
		{"no-stream with a TTFT precision target", constant("--no-stream", "--precision", "ttft_mean:5%"), []string{"--no-stream", "--precision target ttft_mean:5%", "e2e"}},
		{"precision decide without an SLO", constant("--precision", "decide"), []string{"--precision decide without --slo", "give --slo"}},
		{"min-samples negative", constant("--min-samples", "-5"), []string{"--min-samples", ">= 0", "deprecated"}},
		{"insecure with ca-cert", constant("--insecure", "--ca-cert", filepath.Join(fx, "model.bin")), []string{"--insecure", "--ca-cert", "not both"}},
		{"ca-cert not PEM", constant("--ca-cert", filepath.Join(fx, "model.bin")), []string{"--ca-cert", "model.bin", "PEM"}},
		{"mock-server extra argument", []string{"mock-server", "extra-arg", "--addr", "127.0.0.1:0"}, []string{`"extra-arg"`, "flags only"}},
		{"mock-server bad addr", []string{"mock-server", "--addr", "nonsense"}, []string{`--addr "nonsense"`, "HOST:PORT"}},
		{"mock-server bad fault", []string{"mock-server", "--addr", "127.0.0.1:0", "--fault", "bogus"}, []string{`--fault "bogus"`, "docs/mock-server.md"}},
		{"compare folder without run.json", []string{"compare", filepath.Join(fx, "empty-results"), filepath.Join(fx, "array")}, []string{filepath.Join(fx, "empty-results", "run.json"), "not found"}},
		{"compare invalid run.json", []string{"compare", filepath.Join(fx, "notjson"), filepath.Join(fx, "empty-results")}, []string{filepath.Join(fx, "notjson", "run.json")}},
		{"report corrupt histogram", []string{"report", filepath.Join(fx, "badhist"), "--format", "console"}, []string{filepath.Join(fx, "badhist", "run.json"), "histogram"}},
		{"report run.json array", []string{"report", filepath.Join(fx, "array"), "--format", "console"}, []string{filepath.Join(fx, "array", "run.json"), "JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := tt.args
			if args[0] == "run" || args[0] == "sweep" {
				args = append(args, "--output-dir", out)
			}
			// A mock-server that is not refused serves until the context
			// ends: exit 0 after 3 s.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			before := hits.Load()
			code, stdout, stderr := cli(t, ctx, args...)
			if code != exitcode.Usage {
				t.Errorf("exit %d, want 2\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, no := range []string{"is a directory", "ParseFault", "(give --model NAME)"} {
				if strings.Contains(stderr, no) {
					t.Errorf("stderr has %q:\n%s", no, stderr)
				}
			}
			if n := hits.Load() - before; n != 0 {
				t.Errorf("the target got %d requests before the refusal", n)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("the output folder %s was created", out)
			}
		})
	}
}
