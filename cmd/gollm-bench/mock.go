package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

// embeddedMock is the mock server started in-process when run or sweep has
// no --target.
type embeddedMock struct {
	*mockserver.Server
	URL    string
	cancel context.CancelFunc
}

func startEmbeddedMock(ctx context.Context, preset string, tok *tokenize.Tokenizer) (*embeddedMock, error) {
	cfg, err := mockserver.Preset(preset)
	if err != nil {
		return nil, usageErr(fmt.Errorf("--mock-preset: %w", err))
	}
	var opts []mockserver.Option
	if tok != nil {
		opts = append(opts, mockserver.WithTokenCounter(tok.Count))
	}
	s, err := mockserver.New(cfg, opts...)
	if err != nil {
		return nil, err
	}
	// The mock outlives an interruption of the run until its results are
	// written: it stops when the command returns.
	mctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	url, err := s.Start(mctx)
	if err != nil {
		cancel()
		s.Close()
		return nil, err
	}
	return &embeddedMock{Server: s, URL: url, cancel: cancel}, nil
}

// Close stops the server.
func (m *embeddedMock) Close() {
	m.cancel()
	m.Server.Close()
}

func runMockServer(ctx context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("mock-server", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	preset := fs.String("preset", "", "start from a named configuration: demo, demo-cache, fast or instant (flags below override it)")
	var cfg mockserver.Config
	addr := fs.String("addr", "127.0.0.1:8000", "listen address (loopback by default)")
	fs.StringVar(&cfg.Model, "model", "", "model id served by /v1/models (default "+mockserver.DefaultModel+")")
	sched := fs.String("scheduler", "", "latency model: fixed (per-request TTFT and ITL) or batch (continuous batching with a knee)")
	fs.IntVar(&cfg.MaxBatch, "max-batch", 0, "batch: sequences decoded together; more wait in a queue (0: unlimited)")
	fs.DurationVar(&cfg.PrefillPerToken, "prefill-per-token", 0, "batch: prefill cost per prompt token admitted in a step")
	fs.DurationVar(&cfg.ITLBase, "itl-base", 0, "batch: decode step time at batch size 0 (step = itl-base + itl-per-seq × batch)")
	fs.DurationVar(&cfg.ITLPerSeq, "itl-per-seq", 0, "batch: decode step time added per running sequence")
	fs.DurationVar(&cfg.TTFT, "ttft", 0, "fixed: time to first token")
	fs.DurationVar(&cfg.ITL, "itl", 0, "fixed: time between tokens")
	fs.IntVar(&cfg.OutputTokens, "output-tokens", 0, "force this many output tokens per request (0: honour max_tokens)")
	fs.Float64Var(&cfg.ErrorRate, "error-rate", 0, "fraction of requests that fail with --error-status (seeded)")
	fs.IntVar(&cfg.ErrorStatus, "error-status", 0, "HTTP status of injected errors (default 500)")
	fs.StringVar(&cfg.Fault, "fault", "", "fault for every request, in the X-Mock-Fault grammar (docs/mock-server.md), e.g. disconnect-after=5")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed of injected errors and early stops")
	tokPath := fs.String("tokenizer", "", "count prompt tokens with this tokenizer.json (default: whitespace-separated words)")
	cache := registerMockCache(fs) // sessions.go
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench mock-server [flags]\n\nAn OpenAI-compatible simulated server (vLLM-shaped streams) for trying and testing.\n\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("unexpected argument %q: mock-server takes flags only (see --help)", fs.Arg(0)))
	}
	if err := checkListenAddr(*addr); err != nil {
		return usageErr(err)
	}
	if *preset != "" {
		base, err := mockserver.Preset(*preset)
		if err != nil {
			return usageErr(fmt.Errorf("--preset: %w", err))
		}
		fs.Visit(func(f *pflag.Flag) { base = overrideMock(base, cfg, f.Name) })
		cfg = base
	}
	if *sched != "" {
		cfg.Scheduler = mockserver.Scheduler(*sched)
	}
	cfg.Addr = *addr
	var opts []mockserver.Option
	if *tokPath != "" {
		tok, err := tokenize.Load(*tokPath)
		if err != nil {
			return usageErr(fmt.Errorf("--tokenizer: %w", err))
		}
		opts = append(opts, mockserver.WithTokenCounter(tok.Count))
	}
	opts = append(opts, mockserver.WithLogger(slog.New(slog.NewTextHandler(e.stderr, nil))))
	if _, err := mockserver.ParseFault(cfg.Fault); err != nil {
		return usageErr(fmt.Errorf("--fault %q: %w", cfg.Fault, err))
	}
	cache.apply(&cfg)
	if err := withFlagNames(cfg.Validate(), mockFlags()); err != nil {
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

// overrideMock copies the field behind flag name from flags into base.
func overrideMock(base, flags mockserver.Config, name string) mockserver.Config {
	switch name {
	case "model":
		base.Model = flags.Model
	case "max-batch":
		base.MaxBatch = flags.MaxBatch
	case "prefill-per-token":
		base.PrefillPerToken = flags.PrefillPerToken
	case "itl-base":
		base.ITLBase = flags.ITLBase
	case "itl-per-seq":
		base.ITLPerSeq = flags.ITLPerSeq
	case "ttft":
		base.TTFT = flags.TTFT
	case "itl":
		base.ITL = flags.ITL
	case "output-tokens":
		base.OutputTokens = flags.OutputTokens
	case "error-rate":
		base.ErrorRate = flags.ErrorRate
	case "error-status":
		base.ErrorStatus = flags.ErrorStatus
	case "fault":
		base.Fault = flags.Fault
	case "seed":
		base.Seed = flags.Seed
	}
	return base
}

// checkListenAddr checks --addr: HOST:PORT with a port from 0 to 65535
// (0: any free port), HOST empty for every interface.
func checkListenAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8000 (or 127.0.0.1:0 for any free port)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--addr %q: port %q is not a number from 0 to 65535; want HOST:PORT, e.g. %s:8000", addr, port, cmp.Or(host, "127.0.0.1"))
	}
	return nil
}

// mockFlags maps the mockserver.Config fields its Validate names to the
// mock-server flags that set them.
func mockFlags() []struct{ field, flag string } {
	return []struct{ field, flag string }{
		{"Scheduler", "--scheduler"},
		{"MaxBatch", "--max-batch"},
		{"PrefillPerToken", "--prefill-per-token"},
		{"ITLBase", "--itl-base"},
		{"ITLPerSeq", "--itl-per-seq"},
		{"OutputTokens", "--output-tokens"},
		{"ErrorRate", "--error-rate"},
		{"ErrorStatus", "--error-status"},
		{"TTFT", "--ttft"},
		{"ITL", "--itl"},
		{"PrefixCacheBlockTokens", "--prefix-cache-block"},
		{"PrefixCacheBlocks", "--prefix-cache-blocks"},
	}
}
