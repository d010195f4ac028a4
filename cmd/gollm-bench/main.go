// Command gollm-bench measures OpenAI-compatible LLM inference servers: it
// drives an endpoint from idle to saturation, finds the knee under a
// declared SLO, and writes an auditable scorecard. Run `gollm-bench help`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/results"
)

// Set by the linker (see the Makefile); "dev" and the VCS stamp otherwise.
var (
	version = "dev"
	commit  = ""
)

func main() {
	ctx, stop := stopOnSignal(context.Background())
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// signalNames names the signals that end a run early with its partial
// results kept and marked (exit 4): Ctrl-C (SIGINT), SIGTERM (kill, docker
// stop, Kubernetes), SIGHUP (the terminal or the ssh session went away)
// and SIGQUIT (Ctrl-\).
func signalNames() map[os.Signal]string {
	return map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT"}
}

// stopOnSignal returns a context cancelled by the first of the signals of
// signalNames, with the signal, e.g. "SIGHUP (hangup)", as its cause. After that first signal
// the signals take their default action again, so that a second one ends a
// stuck process at once (a second SIGQUIT prints Go's goroutine dump),
// and SIGPIPE is ignored: a hangup often closes the pipe stdout or stderr
// went to (| tee), and a write there must fail, not kill the process
// before it has written its results. stop releases the signals.
func stopOnSignal(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	names := signalNames()
	sigs := make(chan os.Signal, 1)
	for sig := range names {
		signal.Notify(sigs, sig)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			signal.Ignore(syscall.SIGPIPE)
			cancel(fmt.Errorf("%s (%v)", names[sig], sig))
		case <-done:
		}
	})
	return ctx, func() {
		close(done)
		wg.Wait()
		signal.Stop(sigs)
		cancel(nil)
	}
}

// env is what every subcommand gets: its I/O, and the environment lookup
// (injected so tests do not depend on the process environment).
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// fs is what results folders are written through (nil: the
	// operating system's); tests give one that fills up.
	fs results.FS
}

type command struct {
	name, summary string
	run           func(ctx context.Context, e env, args []string) error
}

func commands() []command {
	return []command{
		{"sweep", "the main job: profiles over levels -> knee, goodput, scorecard", runSweep},
		{"run", "one profile at one or more levels (no knee search)", runRun},
		{"mock-server", "OpenAI-compatible simulated server (vLLM-like), for trying and testing", runMockServer},
		{"report", "re-render a results dir: console, csv, html, json (no network)", runReport},
		{"aggregate", "scorecard rows of results dirs -> results/scorecard-aggregate.csv", runAggregate},
		{"pareto", "Pareto frontier (CPM, Wh/tok, TTFT P99) under an SLO", runPareto},
		{"compare", "is B better than A? ours, GuideLLM, AIPerf, vLLM: deltas with intervals, --fail-on for CI", runCompare},
		{"merge", "shards of one distributed run -> one result (exact HDR merge)", runMerge},
		{"tokenize", "count or encode text with a tokenizer.json (debugging aid)", runTokenize},
		{"version", "print the version", runVersion},
	}
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}, args)
}

// runEnv is run with the environment given.
func runEnv(ctx context.Context, e env, args []string) int {
	stdout, stderr := e.stdout, e.stderr
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return exitCode(stderr, c.name, c.run(ctx, e, args[1:]))
		}
	}
	fmt.Fprintf(stderr, "gollm-bench: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gollm-bench COMMAND [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `gollm-bench COMMAND --help` for a command's flags.")
}

func runVersion(ctx context.Context, e env, _ []string) error {
	c := commitOrVCS()
	if c == "" {
		c = "unknown (built without VCS stamp: use `make build`, or `go build` in a git checkout)"
	}
	fmt.Fprintf(e.stdout, "gollm-bench %s\ncommit: %s\ngo:     %s %s/%s\nnvml:   %s\n",
		toolVersion(), c, runtime.Version(), runtime.GOOS, runtime.GOARCH, nvmlStatus(ctx))
	return nil
}

// nvmlStatus says whether NVML can be read here, and what it sees.
func nvmlStatus(ctx context.Context) string {
	src, err := openNVML()
	if err != nil {
		return "not available: " + strings.TrimPrefix(err.Error(), energy.ErrNVMLUnavailable.Error()+": ")
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	snap, err := src.Read(ctx, time.Now())
	if err != nil {
		return "loaded, but reading failed: " + err.Error()
	}
	names := make([]string, 0, len(snap.GPUs))
	for _, g := range snap.GPUs {
		names = append(names, g.Name)
	}
	return fmt.Sprintf("available: driver %s, %d GPU(s): %s", snap.Driver, len(snap.GPUs), strings.Join(names, ", "))
}

// commitOrVCS is the git commit the binary was built from, if known.
func commitOrVCS() string {
	if commit != "" {
		return commit
	}
	return vcsRevision()
}

// toolVersion is the version: the linker's stamp (see the Makefile), else
// the module version `go install module@version` records, else "dev".
func toolVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && isRelease(info.Main.Version) {
		return info.Main.Version
	}
	return version
}

// isRelease reports whether v is a tagged module version, not "(devel)",
// a pseudo-version (v0.0.0-20260616120000-e7a34af6c1d2) or a dirty one.
func isRelease(v string) bool {
	return strings.HasPrefix(v, "v") && !strings.Contains(v, "+") && !pseudoVersion.MatchString(v)
}

var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)
