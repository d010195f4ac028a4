package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

// mockFlags are the flags of mock-server beside the mockserver.Config
// fields they set.
type mockFlags struct {
	preset, addr, scheduler, tokenizer string
}

// mockFlagSet binds mock-server's flags to cfg, with cfg's values as
// their defaults.
func mockFlagSet(e env, cfg *mockserver.Config, m *mockFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("mock-server", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	fs.StringVar(&m.preset, "preset", "", "start from a named configuration: demo, demo-cache, fast or instant (flags below override it)")
	fs.StringVar(&m.addr, "addr", "127.0.0.1:8000", "listen address (loopback by default)")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "model id served by /v1/models (default "+mockserver.DefaultModel+")")
	fs.StringVar(&m.scheduler, "scheduler", string(cfg.Scheduler), "latency model: fixed (per-request TTFT and ITL) or batch (continuous batching with a knee)")
	fs.IntVar(&cfg.MaxBatch, "max-batch", cfg.MaxBatch, "batch: sequences decoded together; more wait in a queue (0: unlimited)")
	fs.DurationVar(&cfg.PrefillPerToken, "prefill-per-token", cfg.PrefillPerToken, "batch: prefill cost per prompt token admitted in a step")
	fs.DurationVar(&cfg.ITLBase, "itl-base", cfg.ITLBase, "batch: decode step time at batch size 0 (step = itl-base + itl-per-seq × batch)")
	fs.DurationVar(&cfg.ITLPerSeq, "itl-per-seq", cfg.ITLPerSeq, "batch: decode step time added per running sequence")
	fs.DurationVar(&cfg.TTFT, "ttft", cfg.TTFT, "fixed: time to first token")
	fs.DurationVar(&cfg.ITL, "itl", cfg.ITL, "fixed: time between tokens")
	fs.IntVar(&cfg.OutputTokens, "output-tokens", cfg.OutputTokens, "force this many output tokens per request (0: honour max_tokens)")
	fs.Float64Var(&cfg.ErrorRate, "error-rate", cfg.ErrorRate, "fraction of requests that fail with --error-status (seeded)")
	fs.IntVar(&cfg.ErrorStatus, "error-status", cfg.ErrorStatus, "HTTP status of injected errors (default 500)")
	fs.StringVar(&cfg.Fault, "fault", cfg.Fault, "fault for every request, in the X-Mock-Fault grammar (docs/mock-server.md), e.g. disconnect-after=5")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of injected errors and early stops")
	fs.IntVar(&cfg.PrefixCacheBlockTokens, "prefix-cache-block", cfg.PrefixCacheBlockTokens, "prefix cache: blocks of this many tokens (e.g. 16); a prompt's leading blocks seen before are not charged prefill and are reported as usage.prompt_tokens_details.cached_tokens (0: off)")
	fs.IntVar(&cfg.PrefixCacheBlocks, "prefix-cache-blocks", cfg.PrefixCacheBlocks, fmt.Sprintf("prefix cache capacity, blocks (0: %d)", mockserver.DefaultPrefixCacheBlocks))
	fs.StringVar(&m.tokenizer, "tokenizer", "", "count prompt tokens with this tokenizer.json (default: whitespace-separated words)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench mock-server [flags]\n\nAn OpenAI-compatible simulated server (vLLM-shaped streams) for trying and testing.\n\n%s", fs.FlagUsages())
	}
	return fs
}

func runMockServer(ctx context.Context, e env, args []string) error {
	var cfg mockserver.Config
	var m mockFlags
	fs := mockFlagSet(e, &cfg, &m)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("unexpected argument %q: mock-server takes flags only (see --help)", fs.Arg(0)))
	}
	if m.preset != "" {
		// The preset's values become the flags' defaults; the flags given
		// (already parsed once without error) override them.
		base, err := mockserver.Preset(m.preset)
		if err != nil {
			return usageErr(fmt.Errorf("--preset: %w", err))
		}
		cfg = base
		_ = mockFlagSet(e, &cfg, &m).Parse(args)
	}
	if err := mockserver.CheckAddr(m.addr); err != nil {
		return usageErr(fmt.Errorf("--addr %w", err))
	}
	cfg.Scheduler, cfg.Addr = mockserver.Scheduler(m.scheduler), m.addr
	opts := []mockserver.Option{mockserver.WithLogger(slog.New(slog.NewTextHandler(e.stderr, nil)))}
	if m.tokenizer != "" {
		tok, err := tokenize.Load(m.tokenizer)
		if err != nil {
			return usageErr(fmt.Errorf("--tokenizer: %w", err))
		}
		opts = append(opts, mockserver.WithTokenCounter(tok.Count))
	}
	if _, err := mockserver.ParseFault(cfg.Fault); err != nil {
		return usageErr(fmt.Errorf("--fault %q: %w", cfg.Fault, err))
	}
	if err := fieldname.Apply(cfg.Validate(), mockFields...); err != nil {
		return usageErr(err)
	}
	s, err := mockserver.New(cfg, opts...)
	if err != nil {
		return usageErr(err)
	}
	defer s.Close()
	url, err := s.Start(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "mock server listening on %s (Ctrl-C to stop)\n", url)
	<-ctx.Done()
	fmt.Fprintln(e.stdout, "mock server stopped")
	return nil
}

// mockFields maps the mockserver.Config fields its Validate names to the
// mock-server flags that set them.
var mockFields = []fieldname.Name{
	{Field: "Scheduler", Caller: "--scheduler"},
	{Field: "MaxBatch", Caller: "--max-batch"},
	{Field: "PrefillPerToken", Caller: "--prefill-per-token"},
	{Field: "ITLBase", Caller: "--itl-base"},
	{Field: "ITLPerSeq", Caller: "--itl-per-seq"},
	{Field: "OutputTokens", Caller: "--output-tokens"},
	{Field: "ErrorRate", Caller: "--error-rate"},
	{Field: "ErrorStatus", Caller: "--error-status"},
	{Field: "TTFT", Caller: "--ttft"},
	{Field: "ITL", Caller: "--itl"},
	{Field: "PrefixCacheBlockTokens", Caller: "--prefix-cache-block"},
	{Field: "PrefixCacheBlocks", Caller: "--prefix-cache-blocks"},
}
