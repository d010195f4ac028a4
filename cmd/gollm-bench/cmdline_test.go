package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/cmdline"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/mockserver"
)

// groundTruthMock serves the fast mock and returns its URL and server, whose
// GroundTruth holds every prompt received.
func groundTruthMock(t *testing.T) (string, *mockserver.Server) {
	t.Helper()
	cfg, err := mockserver.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	s, err := mockserver.New(cfg, mockserver.WithGroundTruth())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL, s
}

// runJSON reads the parts of a run.json that state its configuration.
func runJSON(t *testing.T, dir string) (config json.RawMessage, settings map[string]any, given []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Config        json.RawMessage `json:"config"`
		Settings      map[string]any  `json:"settings"`
		SettingsGiven []string        `json:"settings_given"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r.Config, r.Settings, r.SettingsGiven
}

// TestConfigFileEqualsFlags: `run --config cfg.yaml` and the same settings
// as flags give the same configuration in run.json (config, settings and
// which were given); a flag on the command line overrides the file.
func TestConfigFileEqualsFlags(t *testing.T) {
	t.Parallel()
	url, _ := groundTruthMock(t)
	out := t.TempDir()
	flags := []string{"--target", url, "--profile", "concurrent", "--rate", "1,2", "--seed", "9",
		"--data", "prompt_tokens=24,output_tokens=6", "--max-requests", "6", "--max-seconds", "10",
		"--warmup", "0", "--cooldown", "0", "--slo", "ttft_p99<=2s", "--label", "team=a", "--label", "b=c",
		"--header", "X-Tenant=t1", "--overwrite", "--request-timeout", "30s", "--format", "json", "--output-dir", out}
	cfg := filepath.Join(t.TempDir(), "cfg.yaml")
	yaml := "# the same settings as the flags\ntarget: " + url + `
profile: concurrent
rate: [1, 2]
seed: 9
data: prompt_tokens=24,output_tokens=6
max-requests: 6
max-seconds: 10
warmup: "0"
cooldown: "0"
slo: "ttft_p99<=2s"
label: [team=a, b=c]
header: [X-Tenant=t1]
overwrite: true
request-timeout: 30s
format: json
output-dir: ` + out + "\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Exit 5 (a verdict left undecided by 6 requests) is fine here.
	if code, _, stderr := cli(t, ctx, append([]string{"run", "--quiet", "--run-id", "flags"}, flags...)...); code != exitcode.OK && code != exitcode.Undecided {
		t.Fatalf("flags: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(t, ctx, "run", "--quiet", "--run-id", "file", "--config", cfg); code != exitcode.OK && code != exitcode.Undecided {
		t.Fatalf("--config: exit %d: %s", code, stderr)
	}
	c1, s1, g1 := runJSON(t, filepath.Join(out, "flags"))
	c2, s2, g2 := runJSON(t, filepath.Join(out, "file"))
	if len(s1) < 50 {
		t.Fatalf("run.json settings hold %d settings, want every one", len(s1))
	}
	if string(c1) != string(c2) {
		t.Errorf("config differs:\nflags  %s\nconfig %s", c1, c2)
	}
	// The run id, and the nonce that defaults to it, name each run.
	for _, k := range []string{"run-id", "nonce"} {
		delete(s1, k)
		delete(s2, k)
	}
	b1, _ := json.Marshal(s1)
	b2, _ := json.Marshal(s2)
	if string(b1) != string(b2) {
		t.Errorf("settings differ:\nflags  %s\nconfig %s", b1, b2)
	}
	if !slices.Equal(g1, g2) || !slices.Contains(g1, "seed") || slices.Contains(g1, "endpoint") {
		t.Errorf("settings_given: flags %v, config %v (want the same, with seed and without endpoint)", g1, g2)
	}
	if _, ok := s1["api-key"]; ok {
		t.Error("settings hold api-key")
	}

	// The command line wins over the file.
	if code, _, stderr := cli(t, ctx, "run", "--quiet", "--run-id", "override", "--config", cfg, "--seed", "11", "--max-requests", "2"); code != exitcode.OK && code != exitcode.Undecided {
		t.Fatalf("override: exit %d: %s", code, stderr)
	}
	_, s3, _ := runJSON(t, filepath.Join(out, "override"))
	if s3["seed"] != float64(11) || s3["max-requests"] != float64(2) || s3["slo"] != "ttft_p99<=2s" {
		t.Errorf("override: seed %v, max-requests %v, slo %v; want 11, 2 and the file's SLO", s3["seed"], s3["max-requests"], s3["slo"])
	}
}

// TestRerunFromRunJSON: `run --config DIR/run.json --run-id NEW` sends the
// same prompts, byte for byte, as the run it reads (the mock's ground
// truth, in order: one request in flight), pins what the run defaulted,
// and keeps secrets out of the record.
func TestRerunFromRunJSON(t *testing.T) {
	t.Parallel()
	url1, mock1 := groundTruthMock(t)
	url2, mock2 := groundTruthMock(t)
	out := t.TempDir()
	ctx := context.Background()
	code, _, stderr := cli(t, ctx, "run", "--quiet", "--target", url1, "--profile", "concurrent", "--rate", "1",
		"--seed", "1234", "--data", "prompt_tokens=40,output_tokens=4,prompt_tokens_stdev=8", "--max-requests", "8",
		"--header", "Authorization=Bearer s3cret", "--format", "json", "--output-dir", out, "--run-id", "first")
	if code != exitcode.OK {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, "first", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "s3cret") {
		t.Fatal("run.json holds the Authorization header's value")
	}
	// A redacted header cannot be replayed: the rerun says which and how.
	code, _, stderr = cli(t, ctx, "run", "--quiet", "--config", filepath.Join(out, "first", "run.json"), "--run-id", "again", "--target", url2)
	if code != exitcode.Usage || !strings.Contains(stderr, "run.json:") || !strings.Contains(stderr, "header") || !strings.Contains(stderr, "REDACTED") {
		t.Fatalf("rerun with a redacted header: exit %d, %q; want 2 naming the key, its line and REDACTED", code, stderr)
	}
	code, _, stderr = cli(t, ctx, "run", "--quiet", "--config", filepath.Join(out, "first"), "--run-id", "again",
		"--target", url2, "--header", "Authorization=Bearer s3cret")
	if code != exitcode.OK {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	prompts := func(s *mockserver.Server) []string {
		var p []string
		for _, tr := range s.GroundTruth() {
			p = append(p, tr.Prompt)
		}
		return p
	}
	p1, p2 := prompts(mock1), prompts(mock2)
	if len(p1) != 8 || !slices.Equal(p1, p2) {
		t.Errorf("prompts differ: first run %d, rerun %d (want the same 8, byte for byte)", len(p1), len(p2))
	}
	_, s1, g1 := runJSON(t, filepath.Join(out, "first"))
	_, s2, g2 := runJSON(t, filepath.Join(out, "again"))
	for _, k := range []string{"seed", "data", "profile", "rate", "max-requests", "max-seconds", "warmup", "endpoint"} {
		if a, b := s1[k], s2[k]; !jsonEqual(a, b) {
			t.Errorf("%s: first %v, rerun %v", k, a, b)
		}
	}
	if slices.Contains(g2, "endpoint") || !slices.Contains(g2, "seed") || !slices.Contains(g1, "seed") {
		t.Errorf("settings_given: first %v, rerun %v: pinned defaults are not given", g1, g2)
	}
	// A sweep's run.json is rerun by sweep.
	code, _, stderr = cli(t, ctx, "sweep", "--config", filepath.Join(out, "first", "run.json"), "--run-id", "x")
	if code != exitcode.Usage || !strings.Contains(stderr, "gollm-bench run --config") {
		t.Errorf("sweep --config RUN's run.json: exit %d, %q", code, stderr)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestConfigBadInput: a configuration file with an unknown key, a wrong
// type or a value out of range exits 2 before anything is sent, naming the
// key and its line.
func TestConfigBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{"unknown key", "seed: 1\nmax-second: 5\n", []string{"cfg.yaml:2: max-second: unknown key (did you mean max-seconds?)"}},
		{"wrong type", "seed: abc\n", []string{"cfg.yaml:1: seed:", `"abc" is not a whole number of 0 or more`}},
		{"list for one value", "max-seconds: [1, 2]\n", []string{"cfg.yaml:1: max-seconds: want one value"}},
		{"mapping", "rate:\n  a: 1\n", []string{"cfg.yaml:1: rate: want a value or a list"}},
		{"out of range", "seed: 3\nmax-seconds: -1\n", []string{"cfg.yaml:2: --max-seconds -1: want"}},
		{"out of range, JSON", "{\n  \"seed\": 3,\n  \"max-requests\": -5\n}\n", []string{"cfg.yaml:3: --max-requests -5"}},
		{"twice", "seed: 1\nseed: 2\n", []string{"cfg.yaml:2: seed: given twice (first on line 1)"}},
		{"peer spelling", "url: http://127.0.0.1:1\n", []string{"cfg.yaml:1: url:", "gollm-bench's names: --target"}},
		{"not YAML", "seed: [1\n", []string{"cfg.yaml:", "not YAML or JSON"}},
		{"sweep only", "levels: 4\n", []string{"cfg.yaml:1: levels: unknown key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "cfg.yaml")
			if err := os.WriteFile(cfg, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := cli(t, context.Background(), "run", "--config", cfg, "--target", "http://127.0.0.1:1", "--output-dir", dir)
			if code != exitcode.Usage {
				t.Fatalf("exit %d, want 2: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, strings.ReplaceAll(w, "cfg.yaml", cfg)) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("%d entries in the output folder: something was written", len(entries))
			}
		})
	}
}

// parseBench parses a run or sweep command line as runBench does, up to
// the settings (nothing is run).
func parseBench(cmd benchmark.Command, args ...string) (benchmark.Settings, error) {
	b := &bench{s: benchmark.DefaultSettings(cmd)}
	fs := pflag.NewFlagSet(string(cmd), pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	b.register(fs, cmd == benchmark.CommandSweep)
	p := parser(fs, cmd, func() error { return b.text.Check(b.s) })
	err := p.Parse(args)
	b.s.Given = p.Given()
	s, terr := b.text.Settings(b.s)
	return s, errors.Join(err, terr)
}

// TestPeerSpellings: every GuideLLM, AIPerf, GenAI-Perf and vLLM spelling
// a new user types first either works, setting what it means here, or is
// refused with the translation.
func TestPeerSpellings(t *testing.T) {
	t.Parallel()
	type check func(s benchmark.Settings) bool
	cfg := filepath.Join(t.TempDir(), "cfg.yaml")
	if err := os.WriteFile(cfg, []byte("max-seconds: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		ok   check  // nil: refused
		want string // in the error of a refused spelling
	}{
		{[]string{"--config", cfg}, func(s benchmark.Settings) bool { return s.MaxDuration == 7*time.Second && s.Given["max-seconds"] }, ""},
		{[]string{"--url", "http://h:8000"}, func(s benchmark.Settings) bool { return s.Target == "http://h:8000" }, ""},
		{[]string{"--url", "localhost:8000"}, func(s benchmark.Settings) bool { return s.Target == "http://localhost:8000" }, ""},
		{[]string{"-u", "http://h:8000"}, func(s benchmark.Settings) bool { return s.Target == "http://h:8000" }, ""},
		{[]string{"--rate-type", "poisson", "--rate", "3"}, func(s benchmark.Settings) bool { return s.Profile == "poisson" && s.Given["profile"] }, ""},
		{[]string{"--concurrency", "8"}, func(s benchmark.Settings) bool {
			return s.Profile == "concurrent" && slices.Equal(s.Rates, []float64{8}) && s.Given["rate"]
		}, ""},
		{[]string{"--request-rate", "2.5"}, func(s benchmark.Settings) bool {
			return s.Profile == "poisson" && slices.Equal(s.Rates, []float64{2.5})
		}, ""},
		{[]string{"--request-rate", "4", "--concurrency", "16"}, func(s benchmark.Settings) bool {
			return s.Profile == "poisson" && slices.Equal(s.Rates, []float64{4}) && s.MaxConcurrency == 16
		}, ""},
		{[]string{"--request-count", "100"}, func(s benchmark.Settings) bool { return s.MaxRequests == 100 }, ""},
		{[]string{"--num-prompts", "100"}, nil, "here --max-requests N"},
		{[]string{"--isl", "512"}, func(s benchmark.Settings) bool { return dataOf(s) == "prompt_tokens=512,output_tokens=64" }, ""},
		{[]string{"--osl", "128"}, func(s benchmark.Settings) bool { return dataOf(s) == "prompt_tokens=256,output_tokens=128" }, ""},
		{[]string{"--isl", "512", "--osl", "128"}, func(s benchmark.Settings) bool { return dataOf(s) == "prompt_tokens=512,output_tokens=128" }, ""},
		{[]string{"--input-tokens", "100"}, func(s benchmark.Settings) bool { return dataOf(s) == "prompt_tokens=100,output_tokens=64" }, ""},
		{[]string{"--output-tokens", "10"}, func(s benchmark.Settings) bool { return dataOf(s) == "prompt_tokens=256,output_tokens=10" }, ""},
		{[]string{"--synthetic-input-tokens-mean", "300", "--synthetic-input-tokens-stddev", "10.0"}, func(s benchmark.Settings) bool {
			return dataOf(s) == "prompt_tokens=300,output_tokens=64,prompt_tokens_stdev=10"
		}, ""},
		{[]string{"--output-tokens-mean", "32"}, func(s benchmark.Settings) bool { return dataOf(s) == "prompt_tokens=256,output_tokens=32" }, ""},
		{[]string{"--data", "prompt_tokens=8,output_tokens=4", "--osl", "16"}, nil, "--osl 16 with --data prompt_tokens=8,output_tokens=4"},
		{[]string{"--streaming"}, func(s benchmark.Settings) bool { return !s.NoStream }, ""},
		{[]string{"--streaming=false"}, func(s benchmark.Settings) bool { return s.NoStream }, ""},
		{[]string{"--goodput", "ttft:500 tpot:50"}, func(s benchmark.Settings) bool { return s.SLO.String() == "ttft_p99<=500ms,itl_p99<=50ms" }, ""},
		{[]string{"--goodput", "time_to_first_token:200", "--slo", "ttft_p99<=1s"}, nil, "both set the SLO"},
		{[]string{"--output-path", "out"}, func(s benchmark.Settings) bool { return s.OutputDir == "out" }, ""},
		{[]string{"--output-path", "benchmarks.json"}, nil, "--output-dir DIR"},
		{[]string{"--artifact-dir", "art"}, func(s benchmark.Settings) bool { return s.OutputDir == "art" }, ""},
		{[]string{"--endpoint-type", "chat"}, func(s benchmark.Settings) bool { return s.Endpoint == "chat" }, ""},
		{[]string{"--random-seed", "7"}, func(s benchmark.Settings) bool { return s.Seed == 7 && s.Given["seed"] }, ""},
		{[]string{"-H", "X-Team: blue"}, func(s benchmark.Settings) bool { return slices.Equal(s.Headers["X-Team"], []string{"blue"}) }, ""},
		{[]string{"-H", "X-Team=blue"}, func(s benchmark.Settings) bool { return slices.Equal(s.Headers["X-Team"], []string{"blue"}) }, ""},
		{[]string{"--scenario", "scenario.json"}, nil, "--config FILE"},
		{[]string{"--max-concurrency", "4", "--profile", "constant", "--rate", "2"}, func(s benchmark.Settings) bool { return s.MaxConcurrency == 4 }, ""},
		{[]string{"--concurrency", "8", "--rate", "4"}, nil, "give one"},
		{[]string{"--max-second", "5"}, nil, "did you mean --max-seconds?"},
		{[]string{"--levels", "5"}, nil, "a flag of `gollm-bench sweep`"},
	}
	// Every spelling the issue saw answered with a bare "unknown flag".
	for _, sp := range strings.Fields("--url -u --rate-type --concurrency --request-rate --request-count --num-prompts --isl --osl --input-tokens --output-tokens --synthetic-input-tokens-mean --output-tokens-mean --streaming --goodput --output-path --artifact-dir --endpoint-type --random-seed -H --config --scenario") {
		if !slices.ContainsFunc(cases, func(c struct {
			args []string
			ok   check
			want string
		}) bool {
			return slices.ContainsFunc(c.args, func(a string) bool { return a == sp || strings.HasPrefix(a, sp+"=") })
		}) {
			t.Errorf("no case for the peer spelling %s", sp)
		}
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			s, err := parseBench(benchmark.CommandRun, tc.args...)
			switch {
			case tc.ok != nil && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.ok != nil && !tc.ok(s):
				t.Errorf("settings: target %q profile %q rates %v data %q slo %q output-dir %q endpoint %q headers %v max-requests %d max-concurrency %d no-stream %v",
					s.Target, s.Profile, s.Rates, dataOf(s), s.SLO, s.OutputDir, s.Endpoint, s.Headers, s.MaxRequests, s.MaxConcurrency, s.NoStream)
			case tc.ok == nil && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	// --config, with a file, works; GuideLLM's `sweep --rate N` (N
	// benchmarks) gets its exact translation, and exits 2 before sending.
	code, _, stderr := cli(t, context.Background(), "sweep", "--rate", "5", "--target", "http://127.0.0.1:1")
	if code != exitcode.Usage || !strings.Contains(stderr, "--levels 5") || !strings.Contains(stderr, "--profile constant --rate 5") {
		t.Errorf("sweep --rate 5: exit %d, %q; want 2 with --levels 5 and --profile constant --rate 5", code, stderr)
	}
	code, _, stderr = cli(t, context.Background(), "sweep", "--rate-type", "sweep", "--rate", "5", "--target", "http://127.0.0.1:1")
	if code != exitcode.Usage || !strings.Contains(stderr, "--levels 5") {
		t.Errorf("sweep --rate-type sweep --rate 5: exit %d, %q", code, stderr)
	}
}

// TestPeerFlagsDocumented: docs/peer-flags.md lists every spelling the
// aliases accept or refuse, and the README links it.
func TestPeerFlagsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "peer-flags.md"))
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	(&bench{s: benchmark.DefaultSettings(benchmark.CommandRun)}).register(fs, false)
	parser(fs, benchmark.CommandRun, nil)
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden || f.Deprecated != "" {
			return // not an alias
		}
		if !strings.Contains(string(doc), "`--"+f.Name+"`") && !strings.Contains(string(doc), "`-"+f.Shorthand+"`") {
			t.Errorf("docs/peer-flags.md does not list --%s", f.Name)
		}
	})
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil || !strings.Contains(string(readme), "docs/peer-flags.md") {
		t.Errorf("README.md does not link docs/peer-flags.md: %v", err)
	}
}

// TestHelp: help goes to standard output and exits 0, for every command,
// `help COMMAND` and `version --help` included; --shard shows its value
// (I/N) and only on run.
func TestHelp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range commands() {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			code, stdout, stderr := cli(t, ctx, args...)
			if code != exitcode.OK || !strings.Contains(stdout, "usage: gollm-bench "+c.name) || stderr != "" {
				t.Errorf("%v: exit %d, stdout %.60q, stderr %.80q; want 0, the usage on stdout, nothing on stderr", args, code, stdout, stderr)
			}
		}
	}
	_, stdout, _ := cli(t, ctx, "version", "--help")
	if strings.Contains(stdout, "commit:") {
		t.Errorf("version --help printed the version:\n%s", stdout)
	}
	_, run, _ := cli(t, ctx, "run", "--help")
	_, sweep, _ := cli(t, ctx, "sweep", "--help")
	if !strings.Contains(run, "--shard I/N ") || strings.Contains(run, "--shard run") {
		t.Errorf("run --help shows --shard wrongly:\n%s", grepLine(run, "--shard"))
	}
	if strings.Contains(sweep, "--shard") {
		t.Errorf("sweep --help lists --shard, which only run has")
	}
	for _, hidden := range []string{"--url", "--isl", "--concurrency"} {
		if strings.Contains(run, hidden+" ") {
			t.Errorf("run --help lists the peer alias %s", hidden)
		}
	}
}

func grepLine(s, sub string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			return line
		}
	}
	return ""
}

// TestUnknownFlagSuggestion: an unknown flag of any command gets the
// nearest known one.
func TestUnknownFlagSuggestion(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]string{
		"report --formt csv x":      "did you mean --format?",
		"aggregate --ouput-dir d x": "did you mean --output-dir?",
		"sweep --shard 0/2":         "a flag of `gollm-bench run`",
		"run --seeds 3":             "did you mean --seed?",
	} {
		code, _, stderr := cli(t, context.Background(), strings.Fields(args)...)
		if code != exitcode.Usage || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, %q; want 2 with %q", args, code, stderr, want)
		}
	}
}

// TestCompletion: the bash script completes commands, a command's flags
// and the values its help lists; the zsh script is valid zsh where zsh is
// installed.
func TestCompletion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	code, script, stderr := cli(t, ctx, "completion", "bash")
	if code != exitcode.OK {
		t.Fatalf("completion bash: exit %d: %s", code, stderr)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	path := filepath.Join(t.TempDir(), "gollm-bench.bash")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	probe := `source ` + path + `
c() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _gollm_bench; echo "${COMPREPLY[*]}"; }
c gollm-bench swe
c gollm-bench run --max-sec
c gollm-bench sweep --shar
c gollm-bench run --profile con
c gollm-bench completion ""
c gollm-bench help mer
c gollm-bench run --profile s
c gollm-bench sweep --profile s
c gollm-bench sweep --profile t
c gollm-bench run --endpoint c
c gollm-bench run --receive-clock k
c gollm-bench run --trace-format a
`
	outb, err := exec.Command("bash", "-c", probe).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, outb)
	}
	// Each command's --profile offers only what it runs: run has no
	// sweep, sweep no synchronous or throughput.
	// --endpoint offers its two APIs, not the files of the folder.
	want := []string{"sweep", "--max-seconds", "--shared-prefix", "concurrent constant", "bash zsh", "merge", "synchronous", "sweep", "", "completions chat", "kernel", "azure"}
	var got []string
	sc := bufio.NewScanner(strings.NewReader(string(outb)))
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	if !slices.Equal(got, want) {
		t.Errorf("bash completions %q, want %q", got, want)
	}
	code, zsh, _ := cli(t, ctx, "completion", "zsh")
	if code != exitcode.OK || !strings.HasPrefix(zsh, "#compdef gollm-bench") {
		t.Fatalf("completion zsh: exit %d:\n%.200s", code, zsh)
	}
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Log("no zsh: the zsh script's syntax is not checked")
		return
	}
	zpath := filepath.Join(t.TempDir(), "_gollm-bench")
	if err := os.WriteFile(zpath, []byte(zsh), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("zsh", "-n", zpath).CombinedOutput(); err != nil {
		t.Errorf("zsh -n: %v\n%s", err, out)
	}
}

// TestDefaultOutputNotInSourceTree: the default output folder is not a
// package folder of the source tree, so a demo run from the repository
// does not write into it.
func TestDefaultOutputNotInSourceTree(t *testing.T) {
	dir := filepath.Join("..", "..", benchmark.DefaultSettings(benchmark.CommandRun).OutputDir)
	if matches, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(matches) > 0 {
		t.Errorf("the default --output-dir %s is a Go package folder of the repository", dir)
	}
	gitignore, err := os.ReadFile(filepath.Join("..", "..", ".gitignore"))
	if err != nil || !strings.Contains(string(gitignore), benchmark.DefaultOutputDir+"/") {
		t.Errorf(".gitignore does not ignore %s/: %v", benchmark.DefaultOutputDir, err)
	}
}

// TestKubernetesReadmeAggregate: the aggregate command of
// deploy/kubernetes/README.md, as written, writes the scorecards' CSV.
func TestKubernetesReadmeAggregate(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	line := grepLine(string(readme), "gollm-bench aggregate ")
	args := strings.Fields(strings.TrimSpace(line))
	if len(args) < 3 || slices.Contains(args, ">") {
		t.Fatalf("README's aggregate command %q: want arguments only (no redirection)", line)
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "scorecards", "results"))
	if err != nil {
		t.Fatal(err)
	}
	wd := t.TempDir()
	if err := os.Symlink(src, filepath.Join(wd, strings.TrimSuffix(args[2], "/"))); err != nil {
		t.Fatal(err)
	}
	t.Chdir(wd)
	code, _, stderr := cli(t, context.Background(), args[1:]...)
	if code != exitcode.OK {
		t.Fatalf("%s: exit %d: %s", line, code, stderr)
	}
	var out string
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			out = args[i+1]
		}
	}
	b, err := os.ReadFile(filepath.Join(wd, out))
	if out == "" || err != nil || strings.Count(string(b), "\n") < 2 {
		t.Errorf("%s: -o %q: %v, %d lines; want a header and rows", line, out, err, strings.Count(string(b), "\n"))
	}
}

// TestKubernetesConfig: deploy/kubernetes/config.yaml is a configuration
// file of `sweep`: every key is a flag of sweep and every value passes it.
func TestKubernetesConfig(t *testing.T) {
	t.Parallel()
	s, err := parseBench(benchmark.CommandSweep, "--config", filepath.Join("..", "..", "deploy", "kubernetes", "config.yaml"), "--run-id", "k8s")
	if err != nil {
		t.Fatalf("config.yaml: %v", err)
	}
	if s.Target != "http://vllm.inference.svc:8000" || s.OutputDir != "/results" || s.Engine == "" || s.SLO.IsZero() || !s.Given["seed"] {
		t.Errorf("config.yaml read as target %q, output-dir %q, engine %q, slo %q", s.Target, s.OutputDir, s.Engine, s.SLO)
	}
}

// dataOf is s.Data as --data spells it ("" for none).
func dataOf(s benchmark.Settings) string { return cmdline.NewSettingsText(s).Data }
