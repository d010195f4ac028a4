package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/cmdline"
	"github.com/gollm-bench/gollm-bench/exitcode"
)

func runRun(ctx context.Context, e env, args []string) error {
	return runBench(ctx, e, args, benchmark.CommandRun)
}

func runSweep(ctx context.Context, e env, args []string) error {
	return runBench(ctx, e, args, benchmark.CommandSweep)
}

// bench is a `run` or `sweep` command line: its settings and the flags
// that only the CLI has.
type bench struct {
	s     benchmark.Settings
	text  cmdline.SettingsText // the text of s's typed fields (--rate, --slo, --data, ...), parsed into them
	quiet bool                 // --quiet: no progress lines
}

// runBench parses the flags into benchmark settings (with --like's load
// as the defaults of the flags not given), then sets up and runs the
// benchmark. The library does the rest and says what it did on stderr.
func runBench(ctx context.Context, e env, args []string, cmd benchmark.Command) error {
	b := &bench{s: benchmark.DefaultSettings(cmd)}
	name := string(cmd)
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	b.register(fs, cmd == benchmark.CommandSweep)
	p := parser(fs, cmd, func() error { return b.text.Check(b.s) })
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench %s [flags]\n\n%s", name, fs.FlagUsages())
	}
	if err := p.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageErr(err)
	}
	if err := cmdline.UnexpectedArgument(fs, args); err != nil {
		return usageErr(err)
	}
	modelGiven := fs.Changed("model")
	notes, err := benchmark.ApplyLike(e.stderr, b.s.Like, b.s.Target == "", fs.Changed, fs.Set)
	if err != nil {
		return usageErr(err)
	}
	b.s.ModelFromLike = !modelGiven && b.s.Like != "" && b.s.Model != ""
	b.s.Given = p.Given()
	b.s.EnvAPIKey = e.getenv("OPENAI_API_KEY")
	b.s.ProxyEnv = benchmark.ProxyEnv(e.getenv)
	opt := benchmark.Options{
		Stdout:    e.stdout,
		Log:       e.stderr,
		FS:        e.fs,
		Tool:      tool(),
		Args:      append([]string{name}, args...),
		OpenNVML:  openNVML,
		Notes:     notes,
		Record:    p.Record("api-key", "quiet"),
		Getenv:    e.getenv,
		FlagNames: true,
	}
	opt.Progress, opt.SweepProgress = liveView(e, b.quiet)
	s, err := b.text.Settings(b.s)
	if err != nil {
		return usageErr(p.Locate(b.text.Check(b.s)))
	}
	run, err := benchmark.New(ctx, s, opt)
	if err != nil {
		var bad *benchmark.InputError
		if errors.As(err, &bad) {
			return usageErr(p.Locate(err))
		}
		return err
	}
	out, err := run.Run(ctx)
	if err != nil {
		return err
	}
	if out.Code != exitcode.OK {
		return withCode(out.Code, nil)
	}
	return nil
}
