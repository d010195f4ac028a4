// Command gollm-bench measures OpenAI-compatible LLM inference servers: it
// drives an endpoint from idle to saturation, finds the knee under a
// declared SLO, and writes an auditable scorecard. Run `gollm-bench help`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/gollm-bench/gollm-bench/cmdline"
	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/internal/buildinfo"
	"github.com/gollm-bench/gollm-bench/internal/interrupt"
	"github.com/gollm-bench/gollm-bench/results"
)

// Set by the linker (see the Makefile); "dev" and the VCS stamp otherwise.
var (
	version = "dev"
	commit  = ""
)

func main() {
	ctx, stop := interrupt.OnSignal(context.Background())
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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
		{"aggregate", "scorecard rows of results dirs -> one CSV (-o FILE, or OUTPUT-DIR/scorecard-aggregate.csv)", runAggregate},
		{"pareto", "Pareto frontier (CPM, Wh/tok, TTFT P99) under an SLO", runPareto},
		{"compare", "is B better than A? ours, GuideLLM, AIPerf, vLLM: deltas with intervals, --fail-on for CI", runCompare},
		{"merge", "shards of one distributed run -> one result (exact HDR merge)", runMerge},
		{"tokenize", "count or encode text with a tokenizer.json (debugging aid)", runTokenize},
		{"version", "print the version, commit, Go version and whether NVML can be read", runVersion},
		{"completion", "print a bash or zsh completion script (see `completion --help`)", runCompletion},
	}
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}, args)
}

// runEnv is run with the environment given.
func runEnv(ctx context.Context, e env, args []string) int {
	stdout, stderr := e.stdout, e.stderr
	if len(args) > 1 && args[0] == "help" {
		args = []string{args[1], "--help"}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return exitcode.Usage
		}
		return exitcode.OK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			if cmdline.WantsHelp(args[1:]) {
				e.stderr = e.stdout // help goes to standard output
			}
			return exitCode(stderr, c.name, cmdline.ExplainUsage(c.run(ctx, e, args[1:]), func() string { return helpText(ctx, c) }, c.name))
		}
	}
	fmt.Fprintf(stderr, "gollm-bench: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitcode.Usage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gollm-bench COMMAND [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `gollm-bench COMMAND --help` for a command's flags.")
}

func runVersion(ctx context.Context, e env, args []string) error {
	if err := cmdline.NoFlags(e.stdout, "version", "Prints the version, the commit, the Go version and whether NVML can be read here.", args); err != nil {
		return usageErr(err)
	}
	c := buildinfo.Commit(commit)
	if c == "" {
		c = "unknown (built without VCS stamp: use `make build`, or `go build` in a git checkout)"
	}
	fmt.Fprintf(e.stdout, "gollm-bench %s\ncommit: %s\ngo:     %s %s/%s\nnvml:   %s\n",
		buildinfo.Version(version), c, runtime.Version(), runtime.GOOS, runtime.GOARCH, energy.DescribeNVML(ctx, openNVML))
	return nil
}

// tool is this binary as run.json records it.
func tool() results.Tool {
	return results.Tool{Name: "gollm-bench", Version: buildinfo.Version(version), Commit: buildinfo.Commit(commit), Go: runtime.Version()}
}
