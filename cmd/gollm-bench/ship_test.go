package main

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/energy/nvml"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// hasNVMLDriver reports whether this machine has a working NVIDIA driver.
func hasNVMLDriver() bool {
	src, err := nvml.Open()
	if err != nil {
		return false
	}
	if c, ok := src.(interface{ Close() error }); ok {
		c.Close()
	}
	return true
}

func TestVersionLines(t *testing.T) {
	t.Parallel()
	code, stdout, _ := cli(t, context.Background(), "version")
	if code != exitcode.OK {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "gollm-bench ") || !strings.HasPrefix(lines[1], "commit: ") ||
		!strings.HasPrefix(lines[2], "go:     go1.") || !strings.HasPrefix(lines[3], "nvml:   ") {
		t.Fatalf("version output:\n%s", stdout)
	}
	if !hasNVMLDriver() && !strings.HasPrefix(lines[3], "nvml:   not available: libnvidia-ml.so.1 not found") {
		t.Errorf("without a driver: %q", lines[3])
	}
}

// Seen: `--energy nvml` in the CGO_ENABLED=0 build said "NVML not in this
// build"; NVML is now loaded at run time, so it says what is missing.
func TestEnergyNVMLWithoutDriver(t *testing.T) {
	if hasNVMLDriver() {
		t.Skip("this machine has a working NVIDIA driver")
	}
	t.Parallel()
	code, _, stderr := cli(t, context.Background(), "run", "--target", fastMock(t), "--rate", "1", "--max-seconds", "1",
		"--data", "prompt_tokens=4,output_tokens=2", "--energy", "nvml", "--output-dir", t.TempDir(), "--run-id", "nvml")
	if code != exitcode.Failure || !strings.Contains(stderr, "libnvidia-ml.so.1 not found") || strings.Contains(stderr, "not in this build") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// Seen: no metadata on the client side. run.json and the scorecard record
// the client machine and its connect time to the target.
func TestClientMetadata(t *testing.T) {
	t.Parallel()
	target := fastMock(t)
	dir := t.TempDir()
	code, _, stderr := cli(t, context.Background(), "run", "--target", target, "--rate", "2", "--max-requests", "4",
		"--data", "prompt_tokens=4,output_tokens=2", "--energy", "none", "--max-lag", lenientLag, "--output-dir", dir, "--run-id", "client")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	u, _ := url.Parse(target)
	sc, err := scorecard.Read(filepath.Join(dir, "client", results.ScorecardJSON))
	if err != nil {
		t.Fatal(err)
	}
	run, err := results.Read(filepath.Join(dir, "client"))
	if err != nil {
		t.Fatal(err)
	}
	c := sc.Metadata.Client
	if c == nil || c.LogicalCPUs < 1 || c.GOMAXPROCS < 1 || c.OS == "" || !strings.HasPrefix(c.GoVersion, "go") {
		t.Fatalf("client = %+v", c)
	}
	if r := c.TargetRTT; r == nil || r.Addr != u.Host || r.Method != "tcp_connect" || r.Probes != 5 || r.Failed != 0 || r.P50MS <= 0 {
		t.Errorf("target RTT = %+v", r)
	}
	if run.Metadata.Client == nil || *run.Metadata.Client.TargetRTT != *c.TargetRTT {
		t.Errorf("run.json client %+v differs from the scorecard's", run.Metadata.Client)
	}
}

// Seen: a built binary did not know its commit. Built as the README's first
// command builds it (go build in the git checkout, with VCS stamping on, as
// is Go's default) and CGO_ENABLED=0 as `make build`, the binary names the
// checkout's commit and loads NVML at run time.
func TestBuiltBinaryKnowsCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	head, err := exec.Command(git, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	top, _ := exec.Command(git, "rev-parse", "--show-toplevel").Output()
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		t.Skip("a git worktree (.git is a file): Go stamps no VCS information there, the Makefile's -ldflags do")
	}
	status, _ := exec.Command(git, "status", "--porcelain").Output()
	want := string(head[:12])
	if len(status) > 0 {
		want += "-dirty"
	}
	bin := filepath.Join(t.TempDir(), "gollm-bench")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, out)
	}
	if m := regexp.MustCompile(`(?m)^commit: (\S+)$`).FindSubmatch(out); m == nil || string(m[1]) != want {
		t.Errorf("version says\n%s\nwant commit %s", out, want)
	}
	if !hasNVMLDriver() && !strings.Contains(string(out), "nvml:   not available: libnvidia-ml.so.1 not found") {
		t.Errorf("the CGO_ENABLED=0 binary does not look for libnvidia-ml.so.1:\n%s", out)
	}
}
