package main

import (
	"bytes"
	"context"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/cmdline"
)

// The command line's vocabulary beyond each command's flags (package
// cmdline): --config and the peer aliases of run and sweep, "did you
// mean", and shell completion.

// parser adds --config, the peer aliases and check (overridden file values) to run's or sweep's flags.
func parser(fs *pflag.FlagSet, cmd benchmark.Command, check func() error) *cmdline.Parser {
	other := map[benchmark.Command]benchmark.Command{benchmark.CommandRun: benchmark.CommandSweep, benchmark.CommandSweep: benchmark.CommandRun}[cmd]
	sibling := pflag.NewFlagSet(string(other), pflag.ContinueOnError)
	(&bench{s: benchmark.DefaultSettings(other)}).register(sibling, other == benchmark.CommandSweep)
	return cmdline.NewParser(fs, cmdline.Options{DefaultData: benchmark.DefaultData, Sibling: sibling, Check: check})
}

// helpText is a command's --help.
func helpText(ctx context.Context, c command) string {
	var buf bytes.Buffer
	_ = c.run(ctx, env{stdout: &buf, stderr: &buf, getenv: func(string) string { return "" }}, []string{"--help"})
	return buf.String()
}

func runCompletion(ctx context.Context, e env, args []string) error {
	var cmds []cmdline.Command
	for _, c := range commands() {
		cmds = append(cmds, cmdline.Command{Name: c.name, Summary: c.summary, Help: func() string { return helpText(ctx, c) }})
	}
	if err := cmdline.Completion(e.stdout, "gollm-bench", args, cmds); err != nil {
		return usageErr(err)
	}
	return nil
}
