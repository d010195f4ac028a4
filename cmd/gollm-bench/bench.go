package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/machine"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
	"github.com/gollm-bench/gollm-bench/tokenize"
	"github.com/gollm-bench/gollm-bench/workload"
)

func runRun(ctx context.Context, e env, args []string) error   { return runBench(ctx, e, args, false) }
func runSweep(ctx context.Context, e env, args []string) error { return runBench(ctx, e, args, true) }

// bench is one run or sweep being set up and carried out.
type bench struct {
	e                env
	sweep            bool
	f                benchFlags
	args             []string
	obj              slo.Objective
	precision        slo.Precision // --precision parsed
	levels           []float64     // --rate parsed
	warmup, cooldown harness.Trim
	limits           loadgen.Limits
	shard            loadgen.Shard // --shard; zero when unsharded
	tls              *tls.Config   // --ca-cert or --insecure; nil for Go's defaults

	clock      loadgen.Clock
	target     string
	mock       *embeddedMock
	client     *openai.Client
	model      string
	tok        *tokenize.Tokenizer
	lengths    workload.Data // --data, when lengths come from it
	work       loadgen.Workload
	dir        string
	log        *harness.RecordLog
	reserve    *results.Reserve // disk space for the outputs, released when they are written
	runner     *harness.Runner
	sources    *harness.Sources
	stabilized *energy.Stabilized
	started    time.Time
	host       *machine.Info // the client machine and its RTT to the target
}

func runBench(ctx context.Context, e env, args []string, isSweep bool) (err error) {
	name := "run"
	if isSweep {
		name = "sweep"
	}
	b := &bench{e: e, sweep: isSweep, args: append([]string{name}, args...)}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	b.f.register(fs, isSweep)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench %s [flags]\n\n%s", name, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("unexpected argument %q (flags only; see --help)", fs.Arg(0)))
	}
	if err := b.parse(fs); err != nil {
		return usageErr(err)
	}
	defer func() {
		if b.mock != nil {
			b.mock.Close()
		}
		_ = b.reserve.Release()
	}()
	if err := b.setup(ctx); err != nil {
		return err
	}
	return b.execute(ctx)
}

// parse checks and converts the flags, reporting every problem at once.
func (b *bench) parse(fs *pflag.FlagSet) error {
	f := &b.f
	var errs []error
	bad := func(err error) { errs = append(errs, err) }
	f.changed = map[string]bool{}
	fs.Visit(func(fl *pflag.Flag) { f.changed[fl.Name] = true })
	var err error
	if b.obj, err = slo.Parse(f.slo); err != nil {
		bad(fmt.Errorf("--slo: %w", err))
	}
	if b.precision, err = slo.ParsePrecision(f.precision); err != nil {
		if !strings.Contains(f.precision, ":") {
			// A model precision (fp8, bf16) given the old way.
			bad(fmt.Errorf("--precision %q: --precision sets how precisely each level is measured, e.g. ttft_p99:5%%; for the model's numeric precision (metadata) use --model-precision %s", f.precision, f.precision))
		} else {
			bad(fmt.Errorf("--precision: %w", err))
		}
	}
	if f.repeat < 1 {
		bad(fmt.Errorf("--repeat %d: a level runs at least once; give 1 (the default) or more, e.g. --repeat 3", f.repeat))
	}
	for _, r := range f.rates {
		v, perr := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if perr != nil || !(v > 0) || math.IsInf(v, 0) {
			bad(fmt.Errorf("--rate %q: want positive numbers, e.g. --rate 1,2,4", r))
			continue
		}
		b.levels = append(b.levels, v)
	}
	if b.warmup, err = trim("warmup", f.warmup); err != nil {
		bad(err)
	}
	if b.cooldown, err = trim("cooldown", f.cooldown); err != nil {
		bad(err)
	}
	switch f.profile {
	case "synchronous", "throughput":
		if b.sweep {
			bad(fmt.Errorf("--profile %s: a sweep runs sweep (rate grid and knee search), constant, poisson, or concurrent with --rate levels; use `gollm-bench run --profile %s` for one %s level", f.profile, f.profile, f.profile))
		}
	case "concurrent", "constant", "poisson":
		if len(f.rates) == 0 && !(b.sweep && f.profile != "concurrent") {
			what := "req/s levels, e.g. --rate 5,10,20"
			if f.profile == "concurrent" {
				what = "concurrency levels, e.g. --rate 8 or --rate 1,2,4,8"
			}
			bad(fmt.Errorf("--profile %s needs --rate (%s)", f.profile, what))
		}
	case "sweep":
		if !b.sweep {
			bad(errors.New("--profile sweep: use `gollm-bench sweep`"))
		}
	default:
		bad(fmt.Errorf("--profile %q: want synchronous, concurrent, throughput, constant, poisson or sweep", f.profile))
	}
	if f.endpoint != "completions" && f.endpoint != "chat" {
		bad(fmt.Errorf("--endpoint %q: want completions or chat", f.endpoint))
	}
	if f.data != "" && f.sequenceDistribution != "" && fs.Changed("data") {
		bad(errors.New("--data and --sequence-distribution both set lengths: give one"))
	}
	var lengths workload.LengthSampler
	if f.sequenceDistribution != "" {
		if sd, err := workload.ParseSequenceDistribution(f.sequenceDistribution); err != nil {
			bad(err)
		} else {
			lengths = sd
		}
	} else if d, err := workload.ParseData(f.data); err != nil {
		bad(err)
	} else {
		lengths = d
	}
	if f.dataset != "" && fs.Changed("prefix-cache") {
		bad(fmt.Errorf("--prefix-cache %s with --dataset: the dataset's prompts are sent as they are, so their prefix-cache state is the dataset's; drop --prefix-cache, or use --data for synthetic prompts whose prefix sharing gollm-bench controls", f.prefixCache))
	}
	if pc, warmN, err := parsePrefixCache(f.prefixCache); err != nil {
		bad(err)
	} else if lengths != nil && f.dataset == "" {
		// Checked here, with the lengths, so that a warm prefix as long
		// as the prompts is refused before any request is sent.
		if err := (workload.SyntheticConfig{Lengths: lengths, PrefixCache: pc, WarmPrefixTokens: warmN}).Validate(); err != nil {
			bad(err)
		}
	}
	if _, err := parseKV("header", f.headers); err != nil {
		bad(err)
	}
	if _, err := parseKV("label", f.labels); err != nil {
		bad(err)
	}
	if err := b.parseShard(); err != nil {
		bad(err)
	}
	if f.runID != "" && (strings.ContainsAny(f.runID, `/\`) || f.runID == "." || f.runID == "..") {
		bad(fmt.Errorf("--run-id %q: must be a plain folder name", f.runID))
	}
	for _, fm := range f.formats {
		switch fm {
		case "console", "json", "csv", "html":
		default:
			bad(fmt.Errorf("--format %q: want console, json, csv or html", fm))
		}
	}
	errs = append(errs, b.validateFlags()...)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if n := b.warmup.Requests + b.cooldown.Requests; f.maxRequests > 0 && n >= f.maxRequests {
		return fmt.Errorf("--warmup %s and --cooldown %s exclude %d requests of --max-requests %d: nothing would be measured; lower them or raise --max-requests", f.warmup, f.cooldown, n, f.maxRequests)
	}
	if f.repeat > 1 && f.shard != "" {
		return fmt.Errorf("--repeat %d with --shard %s: repeats are pooled within one process; run the repeats as separate distributed runs, or drop one flag", f.repeat, f.shard)
	}
	if f.maxSeconds == 0 && f.maxRequests == 0 {
		f.maxSeconds = 30
		if b.sweep && f.target == "" {
			f.maxSeconds = 8 // the demo: a knee within a couple of minutes
		}
		if !b.precision.IsZero() && !b.sweep {
			// Levels run to a decision stop when measured well enough;
			// this is only their bound.
			f.maxSeconds = 120
		}
	}
	if f.precisionMax < 0 || math.IsNaN(f.precisionMax) || math.IsInf(f.precisionMax, 0) {
		return fmt.Errorf("--precision-max-seconds %v: want a positive number of seconds, e.g. 120", f.precisionMax)
	}
	if f.precisionMax > 0 && b.precision.IsZero() {
		return fmt.Errorf("--precision-max-seconds %v without --precision: it bounds the levels --precision runs to a decision; give --precision too, or drop it", f.precisionMax)
	}
	if b.sweep && !b.precision.IsZero() && f.precisionMax == 0 {
		f.precisionMax = 10 * f.maxSeconds
		if f.maxSeconds == 0 {
			f.precisionMax = 300
		}
	}
	b.limits = loadgen.Limits{
		MaxDuration:      time.Duration(f.maxSeconds * float64(time.Second)),
		MaxRequests:      f.maxRequests,
		MaxErrors:        f.maxErrors,
		UnreachableAfter: f.unreachable,
	}
	if err := b.validateBuilt(); err != nil {
		return err
	}
	if f.runID == "" {
		f.runID = time.Now().UTC().Format("20060102T150405Z")
	}
	if f.apiKey == "" {
		f.apiKey = b.e.getenv("OPENAI_API_KEY")
	}
	return nil
}

func trim(flag, s string) (harness.Trim, error) {
	t, err := parseWindowTrim(flag, s)
	return harness.Trim{Duration: t.dur, Requests: t.requests, Fraction: t.fraction}, err
}

// setup starts the target (or the mock), the client, the tokenizer, the
// workload, the results folder and the level runner.
func (b *bench) setup(ctx context.Context) error {
	f := &b.f
	b.started = time.Now()
	b.clock = loadgen.NewClock(b.started)
	b.target = f.target
	if f.tokenizer != "" {
		tok, err := tokenize.Load(f.tokenizer)
		if err != nil {
			return usageErr(fmt.Errorf("--tokenizer: %w", err))
		}
		b.tok = tok
	}
	// The workload (a --dataset is read here) is checked before the
	// client sends anything, even GET /v1/models.
	if err := b.newWorkload(); err != nil {
		return usageErr(err)
	}
	if f.insecure {
		fmt.Fprintln(b.e.stderr, "*** --insecure: the server's TLS certificate is NOT verified; anyone on the path can read and alter the traffic. run.json and the scorecard record it. ***")
	}
	if b.target == "" {
		m, err := startEmbeddedMock(ctx, f.mockPreset, b.tok)
		if err != nil {
			return err
		}
		b.mock = m
		b.target = m.URL
		fmt.Fprintf(b.e.stderr, "*** no --target given: measuring the BUILT-IN MOCK server (preset %q) at %s ***\n*** these figures describe the simulator, not a real inference server ***\n", f.mockPreset, m.URL)
		if !f.changed["max-lag"] {
			// The mock shares this process's cores with the client, so
			// its own work shows up as scheduling lag.
			f.maxLag = 20 * time.Millisecond
			fmt.Fprintln(b.e.stderr, "*** demo: --max-lag raised to 20ms: the in-process mock shares the client's CPU (a real target keeps the default, 5 % of the tightest SLO latency) ***")
		}
	}
	if err := b.newClient(ctx); err != nil {
		return err
	}
	if err := b.describeHost(ctx); err != nil {
		return err
	}
	dir, err := b.createDir()
	if err != nil {
		return usageErr(err)
	}
	b.dir = dir
	// Space for run.json and the scorecard, should the records fill the
	// disk. A disk too full for it is refused before anything is sent.
	free, ferr := b.folder().FileSystem().FreeSpace(dir)
	if b.reserve, err = b.folder().Reserve(reserveSize(free, ferr)); err != nil {
		return fmt.Errorf("%w: free some space, or choose another --output-dir", err)
	}
	name := results.RequestsJSONL
	if f.gzip {
		name = results.RequestsJSONLGz
	}
	if b.log, err = harness.CreateRecordLogIn(b.folder(), name, f.gzip); err != nil {
		return err
	}
	if b.sources, err = b.telemetry(ctx); err != nil {
		return err
	}
	maxLag := f.maxLag
	if maxLag == 0 {
		maxLag = b.obj.MaxLag()
	}
	b.runner, err = harness.New(harness.Config{
		Requester: b.client,
		Workload:  b.work,
		Clock:     b.clock,
		Limits:    b.limits,
		Warmup:    b.warmup,
		Cooldown:  b.cooldown,
		Objective: b.obj,
		Precision: b.precision,
		DecideLimits: loadgen.Limits{
			MaxDuration: time.Duration(f.precisionMax * float64(time.Second)),
			MaxErrors:   b.limits.MaxErrors, UnreachableAfter: b.limits.UnreachableAfter,
		},
		Repeat:      f.repeat,
		MaxLag:      maxLag,
		Drain:       f.drain,
		Log:         b.log,
		Telemetry:   b.sources,
		Progress:    b.progressPrinter(),
		Shard:       b.shard,
		SettleProbe: true,
	})
	return err
}

// describeHost records the client machine and its TCP connect time to the
// target (the median of 5 probes), before the first level.
func (b *bench) describeHost(ctx context.Context) error {
	host := machine.Describe()
	if addr, err := machine.Addr(b.target); err == nil {
		rtt, err := machine.ProbeRTT(ctx, addr, 5)
		if err != nil {
			return err
		}
		host.TargetRTT = &rtt
	}
	b.host = &host
	return nil
}

func (b *bench) newClient(ctx context.Context) error {
	f := &b.f
	endpoint, err := openai.ParseEndpoint(f.endpoint)
	if err != nil {
		return usageErr(err)
	}
	opts := []openai.Option{
		openai.WithEndpoint(endpoint),
		openai.WithStream(!f.noStream),
		openai.WithIgnoreEOS(!f.noIgnoreEOS),
		openai.WithTemperature(f.temperature),
		openai.WithRequestTimeout(f.requestTimeout),
		openai.WithIdleTimeout(f.idleTimeout),
		openai.WithMaxConcurrency(b.maxInFlight()),
	}
	if f.minTokens > 0 {
		opts = append(opts, openai.WithMinTokens(f.minTokens))
	}
	if f.apiKey != "" {
		opts = append(opts, openai.WithAPIKey(f.apiKey))
	}
	headers, _ := parseKV("header", f.headers)
	for k, v := range headers {
		opts = append(opts, openai.WithHeader(k, v))
	}
	if f.extraBody != "" {
		opts = append(opts, openai.WithExtraBody(f.extraBody))
	}
	if b.tok != nil {
		opts = append(opts, openai.WithByteTokenCounter(b.tok.CountBytes))
	}
	if b.tls != nil {
		opts = append(opts, openai.WithTLSConfig(b.tls))
	}
	if m, err := openai.ParseReceiveClock(f.rxClock); err == nil {
		opts = append(opts, openai.WithReceiveClock(m))
	}
	b.model = f.model
	if b.model == "" {
		probe, err := openai.New(b.target, opts...)
		if err != nil {
			return usageErr(err)
		}
		mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		models, err := probe.Models(mctx)
		cancel()
		if err != nil {
			return modelLookupError(b.target, err)
		}
		b.model = models[0]
	}
	c, err := openai.New(b.target, append(opts, openai.WithModel(b.model))...)
	if err != nil {
		return usageErr(err)
	}
	b.client = c
	return nil
}

// maxInFlight is the most requests the run can have in flight, which sizes
// the connection pool so that it never caps concurrency.
func (b *bench) maxInFlight() int {
	n := loadgen.DefaultThroughputConcurrency
	for _, l := range b.levels {
		if b.f.profile == "concurrent" || b.f.profile == "throughput" {
			n = max(n, int(l))
		}
	}
	if b.f.maxConcurrency > 0 {
		n = max(n, b.f.maxConcurrency)
	}
	return n
}

func (b *bench) newWorkload() error {
	f := &b.f
	var lengths workload.LengthSampler
	var defaultOSL int
	switch {
	case f.sequenceDistribution != "":
		sd, err := workload.ParseSequenceDistribution(f.sequenceDistribution)
		if err != nil {
			return err
		}
		lengths, defaultOSL = sd, sd.Entries[0].OSL
	default:
		d, err := workload.ParseData(f.data)
		if err != nil {
			return err
		}
		lengths, defaultOSL = d, d.OutputTokens
		b.lengths = d
	}
	var tok workload.Tokenizer
	if b.tok != nil {
		tok = b.tok
	}
	if f.dataset != "" {
		entries, err := workload.ReadDatasetFile(f.dataset)
		if err != nil {
			var de *workload.DatasetError
			if errors.As(err, &de) {
				err = fmt.Errorf("--dataset: %w", err)
			}
			return err
		}
		w, err := workload.NewDataset(entries, defaultOSL, tok)
		if err != nil {
			return err
		}
		b.work = w
		return nil
	}
	pc, warmN, err := parsePrefixCache(f.prefixCache)
	if err != nil {
		return err
	}
	w, err := workload.NewSynthetic(workload.SyntheticConfig{
		Lengths: lengths, Seed: f.seed, Nonce: f.runID, Tokenizer: tok,
		PrefixCache: pc, WarmPrefixTokens: warmN,
	})
	if err != nil {
		return err
	}
	b.work = w
	return nil
}

// parsePrefixCache parses --prefix-cache cold | warm:N.
// prefixCacheState is the prefix-cache state the run declares: the
// --prefix-cache value for synthetic prompts, "dataset" for a --dataset's
// prompts, which gollm-bench sends unchanged and so does not control.
func (b *bench) prefixCacheState() string {
	if b.f.dataset != "" {
		return "dataset"
	}
	return b.f.prefixCache
}

func parsePrefixCache(s string) (workload.PrefixCache, int, error) {
	mode, n, hasN := strings.Cut(s, ":")
	switch workload.PrefixCache(mode) {
	case workload.PrefixCold:
		if hasN {
			return "", 0, fmt.Errorf("--prefix-cache %q: cold takes no length", s)
		}
		return workload.PrefixCold, 0, nil
	case workload.PrefixWarm:
		v, err := strconv.Atoi(n)
		if !hasN || err != nil || v < 1 {
			return "", 0, fmt.Errorf("--prefix-cache %q: warm needs the shared prefix length in tokens, e.g. warm:256", s)
		}
		return workload.PrefixWarm, v, nil
	}
	return "", 0, fmt.Errorf("--prefix-cache %q: want cold or warm:N", s)
}

// profiles returns the levels of a `run`.
func (b *bench) profiles() []loadgen.Profile {
	f := &b.f
	base := loadgen.Profile{Mode: loadgen.Mode(f.profile), MaxConcurrency: f.maxConcurrency, Seed: f.seed}
	switch base.Mode {
	case loadgen.ModeSynchronous:
		base.Concurrency = 1
		return []loadgen.Profile{base}
	case loadgen.ModeThroughput:
		if len(b.levels) == 0 {
			return []loadgen.Profile{base}
		}
	}
	var out []loadgen.Profile
	for i, l := range b.levels {
		p := base
		switch p.Mode {
		case loadgen.ModeConcurrent:
			p.Concurrency = int(l)
		case loadgen.ModeThroughput:
			p.MaxConcurrency = int(l)
		default:
			p.Rate = l
			p.Seed = f.seed + uint64(i)
		}
		out = append(out, p)
	}
	return out
}

// reserveSize is the disk space, bytes, set aside for a run's outputs
// (results.Folder.Reserve): a quarter of the space free, between 16 KiB
// and 256 KiB (run.json takes about 15 KiB a level, scorecard.json 2 KiB).
func reserveSize(free int64, err error) int64 {
	const lo, hi = 16 << 10, 256 << 10
	if err != nil {
		return hi
	}
	return min(max(free/4, lo), hi)
}

// interruptedBy says what cancelled ctx: "interrupted by SIGHUP (hangup)"
// after a signal, "interrupted" when the cause is not known.
func interruptedBy(ctx context.Context) string {
	if c := context.Cause(ctx); c != nil && c != ctx.Err() {
		return "interrupted by " + c.Error()
	}
	return "interrupted"
}

// folder is the run's results folder.
func (b *bench) folder() results.Folder { return results.Folder{Path: b.dir, FS: b.e.fs} }

// execute runs the levels (or the sweep), then writes every output, even
// after an interruption or a failure.
func (b *bench) execute(ctx context.Context) error {
	var res sweep.Result
	var runErr error
	if b.sweep {
		res, runErr = sweep.Run(ctx, b.plan(), b.runner)
	} else {
		res, runErr = b.runLevels(ctx)
	}
	var writeErr *results.WriteError
	failedWrite := errors.As(runErr, &writeErr)
	if ctx.Err() != nil || failedWrite {
		res.Partial = true
	}
	if failedWrite {
		res.Warnings = append(res.Warnings, metrics.Warning{Code: "write_failed", Level: -1, Message: writeFailedWarning(writeErr, b.log.Records())})
	}
	run := b.result(res)
	switch {
	case failedWrite:
		run.PartialReason = "stopped by a failed write: " + writeErr.Error()
	case ctx.Err() != nil:
		run.PartialReason = interruptedBy(ctx)
	}
	b.recordShard(&run)
	outErr := b.writeOutputs(ctx, run)
	if failedWrite || errors.As(outErr, &writeErr) {
		return b.writeFailure(writeErr, failedWrite, outErr)
	}
	failures := tallyFailures(b.runner.Levels())
	b.printUnreachable(res)
	// The hint goes on the summary unless the final error carries it.
	lastWord := outErr == nil && !res.Partial && runErr == nil && failures.noSuccess(b.target) != nil
	failures.print(b.e.stderr, b.target, !lastWord)
	switch {
	case outErr != nil:
		return errors.Join(runErr, outErr)
	case res.Partial:
		what := "interrupted"
		if ctx.Err() != nil {
			what = interruptedBy(ctx)
		}
		fmt.Fprintf(b.e.stderr, "%s: partial results kept in %s\n", what, b.dir)
		return withCode(exitPartial, nil)
	case runErr != nil:
		return fmt.Errorf("%w (results so far are in %s)", runErr, b.dir)
	}
	fmt.Fprintf(b.e.stderr, "results: %s\n", b.dir)
	if err := failures.noSuccess(b.target); err != nil {
		return err // a dead or refusing server is a runtime failure, not an SLO verdict
	}
	if code := res.ExitCode(); code != exitOK && !b.shardSLOExit(code) {
		return withCode(code, nil)
	}
	return nil
}

func (b *bench) plan() sweep.Plan {
	f := &b.f
	p := sweep.Plan{
		Kind:           sweep.KindRate,
		RateMode:       loadgen.ModeConstant,
		N:              f.levels,
		MaxConcurrency: f.maxConcurrency,
		Seed:           f.seed,
		Objective:      b.obj,
		KneeTolerance:  f.kneeTolerance,
		MaxLevels:      f.maxLevels,
		EarlyStop:      f.earlyStop,
		Decide:         !b.precision.IsZero(),
	}
	switch f.profile {
	case "poisson":
		p.RateMode = loadgen.ModePoisson
	case "concurrent":
		p.Kind = sweep.KindConcurrency
	}
	if len(b.levels) > 0 {
		p.Rates = b.levels
		p.N = 0
	}
	return p
}

// runLevels runs the `run` command's levels in order, each judged
// against the SLO, with no knee search (sweep.KindLevels).
func (b *bench) runLevels(ctx context.Context) (sweep.Result, error) {
	return sweep.Run(ctx, sweep.Plan{Kind: sweep.KindLevels, Levels: b.profiles(), Objective: b.obj, Decide: !b.precision.IsZero()}, b.runner)
}

// result assembles run.json.
func (b *bench) result(res sweep.Result) results.Run {
	f := &b.f
	res.Warnings = append(res.Warnings, b.islWarnings(res)...)
	redactWarnings(&res)
	labels, _ := parseKV("label", f.labels)
	cmd := "run"
	if b.sweep {
		cmd = "sweep"
	}
	run := results.Run{
		SchemaVersion: results.SchemaVersion,
		RunID:         f.runID,
		Tool:          results.Tool{Name: "gollm-bench", Version: toolVersion(), Commit: commitOrVCS(), Go: runtime.Version()},
		Command:       redactArgs(b.args),
		StartedAt:     b.started,
		FinishedAt:    time.Now(),
		Partial:       res.Partial,
		Result:        res,
		Config: results.Config{
			Command: cmd, Target: redactURL(b.target), Endpoint: f.endpoint, Model: b.model,
			Stream: !f.noStream, IgnoreEOS: !f.noIgnoreEOS, Profile: f.profile, Rates: b.levels,
			MaxConcurrency: f.maxConcurrency, Seed: f.seed, Data: f.data, SequenceDistribution: f.sequenceDistribution,
			Dataset: f.dataset, PrefixCache: b.prefixCacheState(), Warmup: b.warmup.String(), Cooldown: b.cooldown.String(),
			MaxSeconds: f.maxSeconds, MaxRequests: f.maxRequests, MaxErrors: f.maxErrors,
			RequestTimeoutS: f.requestTimeout.Seconds(), IdleTimeoutS: f.idleTimeout.Seconds(),
			MaxLagMs: msOf(b.runnerMaxLag()), SLO: b.obj.String(), Precision: b.precision.String(), PrecisionMaxS: f.precisionMax, Repeat: f.repeat,
			Energy: redactURLs(f.energy), Labels: labels,
			UnreachableAfter: f.unreachable, CACert: f.caCert, Insecure: f.insecure, ReceiveClock: f.rxClock,
		},
	}
	if f.sequenceDistribution != "" {
		run.Config.Data = ""
	}
	if b.mock != nil {
		run.Config.MockPreset = f.mockPreset
	}
	if b.tok != nil {
		run.Config.Tokenizer, run.Config.TokenizerSHA256 = b.tok.Path(), b.tok.SHA256()
		run.Config.ISLMeaning = "prompt tokens counted with the served tokenizer, without any chat template"
	} else {
		run.Config.ISLMeaning = "the server's usage.prompt_tokens (no --tokenizer given)"
	}
	for _, lv := range b.runner.Levels() {
		run.Timelines = append(run.Timelines, lv.Timeline)
		if lv.Telemetry != nil {
			run.Telemetry = append(run.Telemetry, results.LevelTelemetry{Level: lv.Result.Level, Energy: lv.Telemetry})
		}
	}
	return run
}

func (b *bench) runnerMaxLag() time.Duration {
	if b.f.maxLag > 0 {
		return b.f.maxLag
	}
	return b.obj.MaxLag()
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// writeOutputs writes run.json and the scorecard, closes the records log,
// and writes the formats asked for. Every output is attempted; errors are
// joined. The order matters when the disk is full: the reserve is given
// back first; then come run.json, which every other command reads, the
// scorecard, the records still in memory after a failed write, and last
// levels.csv and report.html, which `gollm-bench report` can render again
// from run.json. Each file is written whole or not at all.
func (b *bench) writeOutputs(ctx context.Context, run results.Run) error {
	errs := []error{b.reserve.Release()}
	if b.sources != nil && b.sources.Meter != nil {
		errs = append(errs, b.sources.Meter.Close())
	}
	sc := b.scorecardFor(ctx, run)
	run.Metadata = sc.Metadata
	dir := b.folder()
	errs = append(errs, dir.WriteRun(run), writeScorecard(dir, sc), b.log.Close())
	formats := slices.DeleteFunc(slices.Clone(b.f.formats), func(f string) bool { return f == "json" })
	errs = append(errs, writeFormats(b.e.stdout, dir, run, formats))
	if sc.Status == scorecard.StatusAnecdote {
		fmt.Fprintf(b.e.stderr, "scorecard: anecdote, missing %s (give them as flags to make it auditable)\n", strings.Join(sc.Missing, ", "))
	} else {
		fmt.Fprintf(b.e.stderr, "scorecard: %s\n", sc.Status)
	}
	return errors.Join(errs...)
}

// writeFailure is the error of a run that a failed write (a full disk)
// stopped, or whose outputs did not all fit: exit 1, not 4 (which says
// the user stopped the run). It names the file, the space left, what was
// written, and where the records are.
func (b *bench) writeFailure(first *results.WriteError, duringRun bool, outErr error) error {
	var msg strings.Builder
	fmt.Fprintf(&msg, "%v", first)
	if duringRun {
		msg.WriteString("\nthe run stopped there and sent no new request; its results are partial (run.json says so, with the reason)")
	}
	var errs []error
	if j, ok := outErr.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else if outErr != nil {
		errs = []error{outErr}
	}
	for _, err := range errs {
		var we *results.WriteError
		if err != nil && !(errors.As(err, &we) && we == first) {
			fmt.Fprintf(&msg, "\n%v", err)
		}
	}
	var written []string
	for _, name := range []string{results.RunJSON, results.ScorecardJSON, results.LevelsCSV, results.ReportHTML} {
		if _, err := os.Stat(filepath.Join(b.dir, name)); err == nil {
			written = append(written, name)
		}
	}
	fmt.Fprintf(&msg, "\nwritten in %s: %s", b.dir, strings.Join(written, ", "))
	if !slices.Contains(written, results.RunJSON) {
		msg.WriteString(" (no run.json: nothing more fitted)")
	} else if len(written) < 4 {
		fmt.Fprintf(&msg, " (once there is space, `gollm-bench report %s` renders the others again from run.json)", b.dir)
	}
	fmt.Fprintf(&msg, "\nrecords: %s", b.log.Records())
	return errors.New(msg.String())
}

// writeFailedWarning is run.json's account of a write failure: which
// file, the space left, and where the records of the run are.
func writeFailedWarning(err *results.WriteError, recs harness.Records) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: the run stopped there. %s holds the whole levels before it", err, filepath.Base(recs.Path))
	for _, k := range recs.Kept {
		fmt.Fprintf(&b, "; level %d's records are in %s, those that fitted on the disk (written before its window was known, they carry in_window false: the window is in this file)", k.Level, filepath.Base(k.Path))
	}
	b.WriteString("; every request sent is counted in its level's summary here, written or not")
	return b.String()
}

// islWarnings says when prompts sized without the served tokenizer missed
// the requested ISL by more than 10 % in the server's count: without
// --tokenizer, synthetic prompts are cut in words, and a server counts
// tokens.
func (b *bench) islWarnings(res sweep.Result) []metrics.Warning {
	want := b.lengths.PromptTokens
	if b.tok != nil || want == 0 || b.f.dataset != "" || b.f.sequenceDistribution != "" {
		return nil
	}
	for _, lv := range res.Levels {
		got := lv.Summary.PromptTokens.Mean
		if lv.Summary.PromptTokens.Count == 0 || math.Abs(got-float64(want)) <= 0.1*float64(want) {
			continue
		}
		return []metrics.Warning{{Code: "isl_not_exact", Level: -1, Message: fmt.Sprintf(
			"the server counted a mean ISL of %.0f tokens for a requested %d: without --tokenizer, prompts are sized in words; give the served model's tokenizer for an exact ISL",
			got, want)}}
	}
	return nil
}

// printUnreachable says on stderr which levels stopped because their first
// requests all failed to connect (the warnings of --unreachable-after).
func (b *bench) printUnreachable(res sweep.Result) {
	for _, lv := range res.Levels {
		for _, w := range lv.Summary.Warnings {
			if w.Code == harness.WarningUnreachable {
				fmt.Fprintf(b.e.stderr, "warning: %s\n", redactURLs(w.Message))
			}
		}
	}
}

// redactWarnings redacts the URLs that warnings quote (a telemetry source
// that failed, say), since run.json and the report show them.
func redactWarnings(res *sweep.Result) {
	for i := range res.Warnings {
		res.Warnings[i].Message = redactURLs(res.Warnings[i].Message)
	}
	for i := range res.Levels {
		ws := res.Levels[i].Summary.Warnings
		for j := range ws {
			ws[j].Message = redactURLs(ws[j].Message)
		}
	}
}
