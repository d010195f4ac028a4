package benchmark

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/internal/termtext"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/machine"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
	"github.com/gollm-bench/gollm-bench/telemetry"
	"github.com/gollm-bench/gollm-bench/tokenize"
	"github.com/gollm-bench/gollm-bench/workload"
)

// Options are how a Benchmark talks to its caller: where it writes, what
// it reports, and the run's provenance. None of them changes what is
// measured.
type Options struct {
	// Stdout receives the console table (Settings.Formats "console");
	// nil: it is not printed.
	Stdout io.Writer
	// Log receives notes for the person running the benchmark: the mock's
	// banner, an --insecure warning, the thermal gate's wait, where the
	// results are, a summary of failed requests. nil: discarded.
	Log io.Writer
	// Progress, when set, is called with each level's live progress.
	Progress func(harness.Progress)
	// SweepProgress, when set, is called as each level starts and ends,
	// with the sweep's phase, the level's verdict and the levels expected
	// in all (sweep.WithProgress); report.Progress.Sweep shows them. A
	// panic in it stops the levels and is Run's error, as one in
	// Progress is.
	SweepProgress func(sweep.Event)
	// FS is what the results folder is written through (nil: the
	// operating system's); tests give one that fills up.
	FS results.FS
	// Tool is the tool's provenance, recorded in run.json and the scorecard.
	Tool results.Tool
	// Args is the command line, recorded in run.json with its secrets
	// redacted.
	Args []string
	// OpenNVML opens NVML for Settings.Energy "nvml" and "auto" (package
	// energy/nvml's Open); nil: NVML is unavailable. A panic in it is
	// New's error.
	OpenNVML func() (energy.Source, error)
	// Notes are warnings the caller raised while building the settings
	// (e.g. what a --like result could not reproduce), recorded in run.json.
	Notes []metrics.Warning
	// Record is the effective configuration by key, recorded as run.json's
	// settings (results.Run.Settings): every setting with the value
	// given or defaulted, secrets redacted (a CLI builds it from its flags
	// with cmdline.Record). nil: not recorded.
	Record results.Settings
	// Hub, when set, lets a --tokenizer model id that the local Hugging
	// Face cache lacks be downloaded from the Hub (tokenize.Download),
	// with progress on Log. nil: Getenv's HF_* variables configure it
	// (tokenize.HubConfigFromEnv), and without Getenv only the cache is
	// read.
	Hub *tokenize.HubConfig
	// Getenv looks up an environment variable (a CLI passes os.Getenv);
	// nil: none is read.
	Getenv func(string) string
	// FlagNames names each setting, in the errors of New, Check and Run,
	// by its command-line flag (--max-seconds 5), as a CLI does; false,
	// a library caller's default: by its Settings field
	// (Settings.MaxDuration 5s).
	FlagNames bool
}

// InputError is a bad setting, found before anything was sent or written:
// a CLI exits 2 on it. Its message names the setting (its Settings field,
// or its flag with Options.FlagNames) and the fix.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// badInput marks err as an InputError (nil stays nil).
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{Err: err}
}

// Benchmark is one run or sweep, set up by New and carried out by Run,
// once.
type Benchmark struct {
	ran       atomic.Bool // Run was called
	s         Settings
	opt       Options
	obj       slo.Objective
	precision slo.Precision // Settings.Precision parsed
	// precisionDefaulted is set when a sweep with an SLO took "decide"
	// because --precision was not given.
	precisionDefaulted bool
	levels             []float64 // Settings.Rates parsed
	warmup, cooldown   loadgen.Trim
	limits             loadgen.Limits
	shard              loadgen.Shard          // Settings.Shard; zero when unsharded
	explicit           map[string]bool        // the keys of the settings given (explicitSettings)
	tls                *tls.Config            // CACert or Insecure; nil for Go's defaults
	defaultRunID       bool                   // RunID was not given: a taken one gets a suffix
	arr                arrivals               // Trace, Ramp, Burstiness, SharedPrefix parsed
	prices             *scorecard.TokenPrices // Settings.Price parsed
	reference          *scorecard.Reference   // Settings.Reference parsed

	clock  loadgen.Clock
	target string
	mock   *embeddedMock
	client *openai.Client
	model  string
	tok    *tokenize.Tokenizer
	// counter is the server's tokenize endpoint when it sizes the
	// prompts (--tokenizer auto or server); tokSource is run.json's
	// tokenizer_source: tokenize's file, cache or hub, or server or
	// words.
	counter    *openai.TokenCounter
	tokSource  string
	lengths    workload.Data // Settings.Data, when lengths come from it
	work       loadgen.Workload
	dir        string
	log        *harness.RecordLog
	reserve    *results.Reserve // disk space for the outputs, released when they are written
	runner     *harness.Runner
	sources    *telemetry.Sources
	meter      *energy.Meter        // Settings.Energy, opened before anything is sent
	phase      harness.WarmupPhase  // Settings.WarmupPhase and Stabilize; zero: none
	warmRecord *results.WarmupPhase // what the warm-up phase did
	started    time.Time
	host       *machine.Info // the client machine and its RTT to the target

	// chat is the served model's chat template, rendered around each
	// synthetic prompt on /chat/completions so that the ISL includes it;
	// nil: the ISL counts the prompt alone (chatNote says why).
	chat     *tokenize.ChatTemplate
	chatNote *metrics.Warning

	// fdLimit is the open-file limit (openFileLimit) and fdBound the most
	// requests in flight it allows (inFlightBound; 0: no bound); fdNote
	// says how a level was bounded by it (WarnOpenFiles).
	fdLimit, fdBound int
	fdNote           string
	// memCap is set when the open-loop levels were capped at
	// DefaultMaxInFlight (WarnInFlightBound).
	memCap bool

	// stopLevels ends the levels when the reserve could not grow
	// (growReserve), reserveErr saying why; runJSONBytes is the estimate
	// of run.json's size so far.
	stopLevels   context.CancelCauseFunc
	reserveErr   *results.WriteError
	runJSONBytes int64
	// callbackErr is Options.SweepProgress's panic, which stopped the
	// levels (sweepProgress).
	callbackErr error

	proxyUsed string // the target's proxy, credentials redacted; "" for none

	// targetHeader holds what the client sends the target besides the
	// body: the bearer key credential chose and the --header pairs;
	// --litellm-metrics target sends them to the target's /metrics.
	targetHeader http.Header
}

// New checks the settings, reporting every bad one at once as an
// *InputError, then sets the benchmark up: the tokenizer and the workload
// (a dataset is read), the built-in mock when no target is given, the
// client (asking the server its model when none is given), the results
// folder, the telemetry sources and the level runner. Nothing is sent to
// the target before the settings are checked. Close releases what New
// started.
func New(ctx context.Context, s Settings, opt Options) (*Benchmark, error) {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	// A panicking writer of the caller's is an error of Run's, not a
	// panic in the caller's program (or in a goroutine of ours).
	opt.Log = &guardedWriter{name: "Options.Log", w: opt.Log}
	if opt.Stdout != nil {
		opt.Stdout = &guardedWriter{name: "Options.Stdout", w: opt.Stdout}
	}
	b := &Benchmark{s: s, opt: opt}
	if err := b.parse(); err != nil {
		return nil, b.named(badInput(err))
	}
	if err := b.setup(ctx); err != nil {
		b.Close()
		return nil, b.named(err)
	}
	return b, nil
}

// Check checks s as New does before it sets anything up, and returns
// every bad setting at once as an *InputError, or nil; opt.FlagNames says
// how its errors name the settings, and its other fields are not used.
// It reads the files the settings name (a trace, a CA certificate) and
// sends nothing; a CLI uses it to check a configuration file's values
// that its command line overrides (cmdline.Options.Check).
func Check(s Settings, opt Options) error {
	b := &Benchmark{s: s, opt: Options{Log: io.Discard, FlagNames: opt.FlagNames}}
	return b.named(badInput(b.parse()))
}

// Close stops the built-in mock, if one was started, and gives back the
// disk space reserved for the outputs. Run calls it; call it when New
// succeeded and Run is not called.
func (b *Benchmark) Close() {
	if b.mock != nil {
		b.mock.Close()
		b.mock = nil
	}
	if b.meter != nil && b.sources == nil {
		_ = b.meter.Close() // setup failed before the sources took it
	}
	_ = b.reserve.Release()
}

// Settings returns the settings, with the defaults New resolved (run id,
// level length, API key from the caller).
func (b *Benchmark) Settings() Settings { return b.s }

// Dir is the run's results folder.
func (b *Benchmark) Dir() string { return b.dir }

// parse checks and converts the settings, reporting every problem at once.
func (b *Benchmark) parse() error {
	s := &b.s
	var errs []error
	bad := func(err error) { errs = append(errs, err) }
	b.explicit = explicitSettings(*s)
	errs = append(errs, b.parseArrivals()...)
	var err error
	b.obj = s.SLO
	switch {
	case s.Precision == nil && s.Command == CommandSweep && !s.SLO.IsZero():
		// A user who gives a sweep an SLO asks for the knee: decide it.
		// `--precision quick` keeps the undecided grid of short levels.
		b.precisionDefaulted = true
		b.precision = slo.Precision{Decide: true}
	case s.Precision != nil:
		// Checked as its text would be: a target the grammar could not
		// spell (a fraction out of range, a statistic twice) is refused.
		if b.precision, err = slo.ParsePrecision(s.Precision.String()); err != nil {
			bad(fmt.Errorf("--precision: %w", err))
		}
	}
	if s.Repeat < 0 {
		bad(fmt.Errorf("--repeat %d: a level runs at least once; give 1 (the default) or more, e.g. --repeat 3", s.Repeat))
	}
	s.Repeat = max(s.Repeat, 1) // 0: once
	for _, v := range s.Rates {
		if b.arr.unread {
			break
		}
		if !(v > 0) || math.IsInf(v, 0) {
			bad(fmt.Errorf("--rate %q: want positive numbers, e.g. --rate 1,2,4", formatRates([]float64{v})))
			continue
		}
		b.levels = append(b.levels, v)
	}
	b.warmup, b.cooldown = s.Warmup, s.Cooldown
	if err := s.Warmup.Validate(); err != nil {
		bad(fmt.Errorf("--warmup %v: %w", s.Warmup, err))
	}
	if err := s.Cooldown.Validate(); err != nil {
		bad(fmt.Errorf("--cooldown %v: %w", s.Cooldown, err))
	}
	if err := b.parseWarmupPhase(); err != nil {
		bad(err)
	}
	switch s.Profile {
	case "synchronous", "throughput":
		if b.isSweep() {
			bad(fmt.Errorf("--profile %s: a sweep runs sweep (rate grid and knee search), constant, poisson, or concurrent with --rate levels; use `gollm-bench run --profile %s` for one %s level", s.Profile, s.Profile, s.Profile))
		}
	case "concurrent", "constant", "poisson":
		// Given: a --rate whose every value was refused is not also missing.
		if len(s.Rates) == 0 && !b.explicit["rate"] && !(b.isSweep() && s.Profile != "concurrent") && !b.arr.unread {
			what := "req/s levels, e.g. --rate 5,10,20"
			if s.Profile == "concurrent" {
				what = "concurrency levels, e.g. --rate 8 or --rate 1,2,4,8"
			}
			bad(fmt.Errorf("--profile %s needs --rate (%s)", s.Profile, what))
		}
	case "sweep":
		if !b.isSweep() {
			bad(errors.New("--profile sweep: use `gollm-bench sweep`"))
		}
		if len(s.Rates) == 1 {
			// GuideLLM's --profile (--rate-type) sweep --rate N means N
			// benchmarks; ours would be a sweep from one N req/s level.
			r := strconv.FormatFloat(s.Rates[0], 'g', -1, 64)
			bad(fmt.Errorf("--rate %[1]s with --profile sweep is ambiguous: in GuideLLM it means %[1]s benchmarks, which is --levels %[1]s here; here --rate gives the levels themselves: for one level at %[1]s req/s write --profile constant --rate %[1]s, for a sweep over rates of your choice give a list, e.g. --profile constant --rate 1,2,4,8", r))
		}
	default:
		bad(fmt.Errorf("--profile %q: `%s` runs %s", s.Profile, s.Command, strings.Join(s.Command.Profiles(), ", ")))
	}
	if s.Endpoint != EndpointCompletions && s.Endpoint != EndpointChat {
		bad(fmt.Errorf("--endpoint %q: want completions or chat", s.Endpoint))
	}
	if s.Data != nil && s.SequenceDistribution != nil {
		bad(errors.New("--data and --sequence-distribution both set lengths: give one"))
	}
	var lengths workload.LengthSampler
	if sd := s.SequenceDistribution; sd != nil {
		if err := sd.Validate(); err != nil {
			bad(flagged("--sequence-distribution", err))
		} else {
			lengths = *sd
		}
	} else if d := b.dataLengths(); d.Validate() != nil {
		bad(flagged("--data", d.Validate()))
	} else {
		lengths = d
	}
	if s.Dataset != "" && b.explicit["sequence-distribution"] {
		bad(errors.New("--sequence-distribution with --dataset: the dataset's prompts are sent, so the distribution would be ignored; drop one of them"))
	}
	if s.Dataset != "" && b.explicit["data"] {
		// Only output_tokens is read: the length of the entries that
		// give none.
		var ignored []string
		for _, kv := range strings.Split(dataText(s.Data), ",") {
			if k, _, _ := strings.Cut(kv, "="); k != "output_tokens" && k != "" {
				ignored = append(ignored, k)
			}
		}
		if len(ignored) > 0 {
			bad(fmt.Errorf("--data %s with --dataset: the dataset's prompts are sent as they are, so %s would be ignored; with --dataset, --data takes only output_tokens (the output length of entries that give none), e.g. --data output_tokens=256", dataText(s.Data), strings.Join(ignored, ", ")))
		}
	}
	if s.Dataset != "" && (s.PrefixCache != PrefixCache{} || b.explicit["prefix-cache"]) {
		bad(fmt.Errorf("--prefix-cache %s with --dataset: the dataset's prompts are sent as they are, so their prefix-cache state is the dataset's; drop --prefix-cache, or use --data for synthetic prompts whose prefix sharing gollm-bench controls", s.PrefixCache))
	}
	if pc, warmN, err := s.PrefixCache.synthetic(); err != nil {
		bad(err)
	} else if lengths != nil && s.Dataset == "" {
		// Checked here, with the lengths, so that a warm prefix as long
		// as the prompts is refused before any request is sent.
		if err := (workload.SyntheticConfig{Lengths: lengths, PrefixCache: pc, WarmPrefixTokens: warmN}).Validate(); err != nil {
			bad(fieldname.Replace(err, syntheticFields...))
		}
	}
	if err := b.parseShard(); err != nil {
		bad(err)
	}
	if s.RunID != "" && (strings.ContainsAny(s.RunID, `/\`) || s.RunID == "." || s.RunID == "..") {
		bad(fmt.Errorf("--run-id %q: must be a plain folder name", s.RunID))
	}
	for _, fm := range s.Formats {
		switch fm {
		case FormatConsole, FormatJSON, FormatCSV, FormatHTML:
		default:
			bad(fmt.Errorf("--format %q: want console, json, csv or html", fm))
		}
	}
	b.fdLimit = openFileLimit()
	b.fdBound = inFlightBound(b.fdLimit, s.Target == "")
	errs = append(errs, b.parseSessions()...)
	errs = append(errs, b.validateFlags()...)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if n := b.warmup.Requests + b.cooldown.Requests; s.MaxRequests > 0 && n >= s.MaxRequests {
		return fmt.Errorf("--warmup %s and --cooldown %s exclude %d requests of --max-requests %d: nothing would be measured; lower them or raise --max-requests", s.Warmup, s.Cooldown, n, s.MaxRequests)
	}
	if s.Repeat > 1 && !s.Shard.IsZero() {
		return fmt.Errorf("--repeat %d with --shard %s: repeats are pooled within one process; run the repeats as separate distributed runs, or drop one flag", s.Repeat, s.Shard)
	}
	if s.MaxDuration == 0 && s.MaxRequests == 0 {
		s.MaxDuration = 30 * time.Second
		if b.isSweep() && s.Target == "" {
			s.MaxDuration = 8 * time.Second // the demo: a knee within a couple of minutes
		}
		if !b.precision.IsZero() && !b.isSweep() {
			// Levels run to a decision stop when measured well enough;
			// this is only their bound.
			s.MaxDuration = 120 * time.Second
		}
	}
	if s.PrecisionMaxDuration > 0 && b.precision.IsZero() {
		return fmt.Errorf("--precision-max-seconds %s without --precision: it bounds the levels --precision runs to a decision; give --precision too, or drop it", b.seconds(s.PrecisionMaxDuration))
	}
	if b.isSweep() && !b.precision.IsZero() && s.PrecisionMaxDuration == 0 {
		s.PrecisionMaxDuration = 10 * s.MaxDuration
		if s.MaxDuration == 0 {
			s.PrecisionMaxDuration = 300 * time.Second
		}
	}
	b.limits = loadgen.Limits{
		MaxDuration:      s.MaxDuration,
		MaxRequests:      s.MaxRequests,
		MaxErrors:        s.MaxErrors,
		UnreachableAfter: s.UnreachableAfter,
	}
	if err := b.validateBuilt(); err != nil {
		return err
	}
	if err := b.checkWarmupLength(); err != nil {
		return err
	}
	if s.RunID == "" {
		s.RunID = time.Now().UTC().Format("20060102T150405Z")
		b.defaultRunID = true
	}
	return nil
}

// dataLengths is Settings.Data, or the default lengths (DefaultData).
//
// With --dataset only output_tokens is read (the output length of entries
// that give none), so a --data without prompt_tokens is accepted: a
// placeholder prompt length, never used, completes it.
func (b *Benchmark) dataLengths() workload.Data {
	d := workload.Data{PromptTokens: 256, OutputTokens: 64} // DefaultData
	if b.s.Data != nil {
		d = *b.s.Data
	}
	if b.s.Dataset != "" && d.PromptTokens == 0 {
		d.PromptTokens = 1
	}
	return d
}

// dataText spells d as --data does, without a prompt_tokens it lacks
// (the output length of a dataset's entries); "" for nil.
func dataText(d *workload.Data) string {
	if d == nil {
		return ""
	}
	return strings.TrimPrefix(d.String(), "prompt_tokens=0,")
}

// prefixCacheSpec is Settings.PrefixCache as the flag spells it.
func (b *Benchmark) prefixCacheSpec() string { return b.s.PrefixCache.String() }

// nonce is what makes the cold prefixes of this run its own: Settings.Nonce,
// or the run id.
func (b *Benchmark) nonce() string { return cmp.Or(b.s.Nonce, b.s.RunID) }

// record is Options.Record with the nonce used, so that a rerun from
// run.json sends the same prompts.
func (b *Benchmark) record() results.Settings {
	if b.opt.Record == nil {
		return nil
	}
	r := maps.Clone(b.opt.Record)
	if _, ok := r["nonce"]; ok {
		r.SetString("nonce", b.nonce())
	}
	return r
}

// nonceWarnings says when the cold prefixes are another run's.
func (b *Benchmark) nonceWarnings() []metrics.Warning {
	if b.s.Nonce == "" || b.s.Nonce == b.s.RunID {
		return nil
	}
	return []metrics.Warning{{Code: WarnNonceReused, Level: -1, Message: fmt.Sprintf("--nonce %s: the prompts repeat those of the run with that nonce byte for byte, cold prefixes included; a server whose prefix cache still holds them serves them warm (restart it, or give --nonce= for prefixes of this run's own)", b.s.Nonce)}}
}

// given lists the recorded settings that were given explicitly, sorted.
func (b *Benchmark) given() []string {
	var out []string
	for k := range b.opt.Record {
		if b.explicit[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// isSweep reports whether the benchmark searches for the knee.
func (b *Benchmark) isSweep() bool { return b.s.Command == CommandSweep }

// setup starts the target (or the mock), the client, the tokenizer, the
// workload, the results folder and the level runner.
func (b *Benchmark) setup(ctx context.Context) error {
	s := &b.s
	b.started = time.Now()
	b.clock = loadgen.NewClock(b.started)
	b.target = s.Target
	if s.Tokenizer != "" && tokenizerChoice(s.Tokenizer) == "" {
		tok, err := b.loadTokenizer(ctx, s.Tokenizer)
		if err != nil {
			return badInput(fmt.Errorf("--tokenizer: %w", err))
		}
		b.tok, b.tokSource = tok, tok.Source()
	}
	// The workload (a --dataset is read here) is checked before the
	// client sends anything, even GET /v1/models.
	if err := b.newWorkload(); err != nil {
		return badInput(err)
	}
	if err := b.openMeter(); err != nil {
		return err
	}
	if s.Insecure {
		fmt.Fprintln(b.opt.Log, "*** --insecure: the server's TLS certificate is NOT verified; anyone on the path can read and alter the traffic. run.json and the scorecard record it. ***")
	}
	if b.target == "" {
		m, err := startEmbeddedMock(ctx, s.MockPreset, s.MockPrefixCache, b.tok)
		if err != nil {
			return err
		}
		b.mock = m
		b.target = m.URL
		fmt.Fprintf(b.opt.Log, "*** no --target given: measuring the BUILT-IN MOCK server (preset %q) at %s ***\n*** these figures describe the simulator, not a real inference server ***\n", s.MockPreset, m.URL)
		if demoLag := 20 * time.Millisecond; s.MaxLag == 0 && b.obj.MaxLag() < demoLag {
			// The mock shares this process's cores with the client, so
			// its own work shows up as scheduling lag.
			s.MaxLag = demoLag
			fmt.Fprintf(b.opt.Log, "*** demo: --max-lag raised from %v to 20ms: the in-process mock shares the client's CPU (a real target keeps the default, 5 %% of the tightest TTFT, TTFOT or E2E threshold) ***\n", b.obj.MaxLag())
		}
	}
	if b.precisionDefaulted {
		fmt.Fprintln(b.opt.Log, "sweep with --slo: the levels that decide the knee run until every term is decided (--precision decide, the default with an SLO; --precision quick keeps the short, undecided grid)")
	}
	b.suggestWarmupPhase()
	if err := b.newClient(ctx); err != nil {
		return err
	}
	if err := b.chooseTokenizer(ctx); err != nil {
		return err
	}
	b.warnISLFloor()
	if err := b.checkContextWindow(ctx); err != nil {
		return err
	}
	if err := b.describeHost(ctx); err != nil {
		return err
	}
	if err := b.openFolder(); err != nil {
		return err
	}
	var err error
	if b.sources, err = b.telemetry(ctx); err != nil {
		return err
	}
	maxLag := s.MaxLag
	if maxLag == 0 {
		maxLag = b.obj.MaxLag()
	}
	b.runner, err = harness.New(harness.Config{
		Requester: b.client,
		Workload:  b.work,
		Pacer:     b.arrivalPacer(),
		Clock:     b.clock,
		Limits:    b.limits,
		Warmup:    b.warmup,
		Cooldown:  b.cooldown,
		Objective: b.obj,
		Precision: b.precision,
		DecideLimits: loadgen.Limits{
			MaxDuration: s.PrecisionMaxDuration,
			MaxErrors:   b.limits.MaxErrors, UnreachableAfter: b.limits.UnreachableAfter,
		},
		Repeat:      s.Repeat,
		MaxLag:      maxLag,
		Drain:       s.DrainTimeout,
		Log:         b.log,
		Telemetry:   b.sources,
		Progress:    b.opt.Progress,
		Label:       b.arrivalLabel(),
		Shard:       b.shard,
		SettleProbe: true,
	})
	return err
}

// describeHost records the client machine and its TCP connect time to the
// target (the median of 5 probes), before the first level.
func (b *Benchmark) describeHost(ctx context.Context) error {
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

func (b *Benchmark) newClient(ctx context.Context) error {
	s := &b.s
	endpoint, err := openai.ParseEndpoint(string(s.Endpoint))
	if err != nil {
		return badInput(fmt.Errorf("--endpoint: %w", err))
	}
	opts := []openai.Option{
		openai.WithEndpoint(endpoint),
		openai.WithStream(!s.NoStream),
		openai.WithIgnoreEOS(!s.NoIgnoreEOS),
		openai.WithTemperature(s.Temperature),
		openai.WithRequestTimeout(s.RequestTimeout),
		openai.WithIdleTimeout(s.IdleTimeout),
		openai.WithMaxConcurrency(b.maxInFlight()),
		openai.WithMaxLineBytes(s.MaxLineBytes),
	}
	if b.fdBound > 0 {
		// The open-file bound holds for connections too, idle ones
		// included, not only for requests in flight.
		opts = append(opts, openai.WithMaxConnections(b.fdBound))
	}
	if s.MinTokens > 0 {
		opts = append(opts, openai.WithMinTokens(s.MinTokens))
	}
	b.targetHeader = http.Header{}
	if key := b.credential(s.Headers); key != "" {
		opts = append(opts, openai.WithAPIKey(key))
		b.targetHeader.Set("Authorization", "Bearer "+key)
	}
	for k, vs := range s.Headers {
		for _, v := range vs {
			opts = append(opts, openai.WithHeader(strings.TrimSpace(k), v))
			b.targetHeader.Add(strings.TrimSpace(k), v)
		}
	}
	if s.ExtraBody != nil {
		opts = append(opts, openai.WithExtraBody(s.ExtraBody))
	}
	if b.tok != nil {
		opts = append(opts, openai.WithByteTokenCounter(b.tok.CountBytes))
	}
	if b.tls != nil {
		opts = append(opts, openai.WithTLSConfig(b.tls))
	}
	if proxy, err := b.proxy(); err != nil {
		return badInput(err)
	} else if proxy != nil {
		opts = append(opts, openai.WithProxy(proxy))
	}
	if m, err := openai.ParseReceiveClock(string(s.ReceiveClock)); err == nil {
		opts = append(opts, openai.WithReceiveClock(m))
	}
	if b.model == "" {
		b.model = s.Model
	}
	if b.model == "" {
		probe, err := openai.New(b.target, opts...)
		if err != nil {
			return badInput(fieldname.Apply(err, clientOptions...))
		}
		mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		models, err := probe.Models(mctx)
		cancel()
		if err != nil {
			return modelLookupError(b.target, err)
		}
		b.model = models[0]
	} else if s.ModelFromLike {
		if err := b.checkLikeModel(ctx, opts); err != nil {
			return err
		}
	}
	c, err := openai.New(b.target, append(opts, openai.WithModel(b.model))...)
	if err != nil {
		return badInput(fieldname.Apply(err, clientOptions...))
	}
	b.client = c
	return nil
}

// checkLikeModel refuses a --like model the target does not serve,
// before any request is sent: every request would be a 404. A server
// whose GET /v1/models fails, or does not answer within 10 s, is not
// refused (not every server lists its models); the run then says what
// the requests met.
func (b *Benchmark) checkLikeModel(ctx context.Context, opts []openai.Option) error {
	probe, err := openai.New(b.target, opts...)
	if err != nil {
		return nil // New reports it below, with the model
	}
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	models, err := probe.Models(mctx)
	cancel()
	if err != nil || slices.Contains(models, b.model) {
		return nil
	}
	shown := models
	if len(shown) > 5 {
		shown = shown[:5]
	}
	list := make([]string, len(shown))
	for i, m := range shown {
		list[i] = strconv.Quote(termtext.Escape(m))
	}
	more := ""
	if len(models) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(models)-len(shown))
	}
	return badInput(fmt.Errorf("--like %s: the file's model %q is not served by %s, which serves %s%s: give --model with one of those to rerun the file's load against this server",
		b.s.Like, b.model, redact.URL(b.target), strings.Join(list, ", "), more))
}

// maxInFlight is the most requests the run can have in flight, which sizes
// the connection pool so that it never caps concurrency.
func (b *Benchmark) maxInFlight() int {
	n := loadgen.DefaultThroughputConcurrency
	for _, l := range b.levels {
		if b.s.Profile == "concurrent" || b.s.Profile == "throughput" {
			n = max(n, int(l))
		}
	}
	if b.s.MaxConcurrency > 0 {
		n = max(n, b.s.MaxConcurrency)
	}
	return max(n, b.phase.Profile.Concurrency)
}

func (b *Benchmark) newWorkload() error {
	if b.sessions() {
		return b.newSessionWorkload() // multi-turn sessions: sessions.go
	}
	if done, err := b.arrivalWorkload(); done {
		return err // a trace or shared prefixes: arrivals.go
	}
	s := &b.s
	var lengths workload.LengthSampler
	var defaultOSL int
	switch {
	case s.SequenceDistribution != nil:
		sd := *s.SequenceDistribution
		lengths, defaultOSL = sd, sd.Entries[0].OSL
	default:
		d := b.dataLengths()
		lengths, defaultOSL = d, d.OutputTokens
		b.lengths = d
	}
	var tok workload.Tokenizer
	if b.tok != nil {
		tok = b.tok
	}
	if s.Dataset != "" {
		entries, err := workload.ReadDatasetFile(s.Dataset)
		if err != nil {
			return fmt.Errorf("--dataset: %w", err)
		}
		w, err := workload.NewDataset(entries, defaultOSL, tok)
		if err != nil {
			return err
		}
		b.work = w
		return nil
	}
	pc, warmN, err := s.PrefixCache.synthetic()
	if err != nil {
		return err
	}
	cfg := workload.SyntheticConfig{
		Lengths: lengths, Seed: s.Seed, Nonce: b.nonce(), Tokenizer: tok,
		PrefixCache: pc, WarmPrefixTokens: warmN, Counter: b.counterOrNil(),
	}
	// The built-in mock (no target) counts messages without any chat
	// template, so prompts for it are sized without one.
	if b.tok != nil && s.Endpoint == "chat" && s.Target != "" {
		if cfg.ChatTemplate, err = b.chatTemplate(); err != nil {
			return err
		}
	}
	w, err := workload.NewSynthetic(cfg)
	if err != nil {
		return fieldname.Replace(err, syntheticFields...)
	}
	b.work = w
	return nil
}

// chatTemplate reads the chat template beside the tokenizer.json and
// returns the function that renders a prompt as the single user message
// with the generation prompt, the way the server renders it; nil, with a
// warning, when there is none or it does not render. A template whose
// rendering leaves the user message out is an error: no prompt could be
// sized to an ISL under it, which would fail every request.
func (b *Benchmark) chatTemplate() (func(string) (string, error), error) {
	const probe = "gollm-bench probe: does the template keep this message?"
	tmpl, err := tokenize.LoadChatTemplate(b.tok.Path())
	var out string
	if err == nil {
		out, err = tmpl.Render([]tokenize.ChatMessage{{Role: "user", Content: probe}}, true)
	}
	if err != nil {
		b.noChatTemplate(err)
		return nil, nil
	}
	if !strings.Contains(out, probe) {
		if len(out) > 80 {
			out = out[:80] + "..."
		}
		return nil, fmt.Errorf("the chat template of %s leaves the user message out (a message renders as %q): no prompt can be sized to an ISL under it; fix chat_template in its tokenizer_config.json, or use --endpoint completions", tmpl.Path(), out)
	}
	b.chat = tmpl
	return func(prompt string) (string, error) {
		return tmpl.Render([]tokenize.ChatMessage{{Role: "user", Content: prompt}}, true)
	}, nil
}

// noChatTemplate records why prompts are sized without the chat template.
func (b *Benchmark) noChatTemplate(err error) {
	b.chat = nil
	w := metrics.Warning{Code: workload.WarnChatTemplate, Level: -1, Message: fmt.Sprintf(
		"the served model's chat template was not rendered (%v): the ISL counts the prompt alone, and the server's usage.prompt_tokens adds the template's tokens", err)}
	b.chatNote = &w
	fmt.Fprintf(b.opt.Log, "warning: %s\n", termtext.Escape(w.Message)) // the template is a downloaded file
}

// prefixCacheState is the prefix-cache state the run declares: the
// --prefix-cache value for synthetic prompts, "dataset" for a --dataset's
// prompts, which gollm-bench sends unchanged and so does not control.
// A session run (--turns) declares "sessions:" and the state of each
// session's first turn: its later turns resend the conversation so far, a
// prefix the server has seen.
func (b *Benchmark) prefixCacheState() string {
	if s := b.arr.prefixCacheState(); s != "" {
		return s
	}
	state := b.prefixCacheSpec()
	if b.s.Dataset != "" {
		state = "dataset"
	}
	if b.s.Turns != nil {
		return "sessions:" + state
	}
	return state
}

// profiles returns the levels of a `run`.
func (b *Benchmark) profiles() []loadgen.Profile {
	s := &b.s
	base := loadgen.Profile{Mode: loadgen.Mode(s.Profile), MaxConcurrency: b.rateCap(), Seed: s.Seed}
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
			p.Concurrency = b.bounded(int(l), fmt.Sprintf("--rate %d (requests in flight)", int(l)))
		case loadgen.ModeThroughput:
			p.MaxConcurrency = b.bounded(int(l), fmt.Sprintf("--rate %d (requests in flight)", int(l)))
		default:
			p.Rate = l
			p.Seed = s.Seed + uint64(i)
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
func (b *Benchmark) folder() results.Folder { return results.Folder{Path: b.dir, FS: b.opt.FS} }

// openFolder creates the run's results folder, sets its disk reserve
// aside and opens its records log, unless Settings.OutputDir is empty:
// then nothing is written, and the records and figures are only in Run's
// Outcome (and on Options.Stdout as the console table).
func (b *Benchmark) openFolder() error {
	s := &b.s
	if s.OutputDir == "" {
		return nil
	}
	if b.opt.FS == nil {
		for _, p := range results.RemoveStaleReserves(s.OutputDir) {
			fmt.Fprintf(b.opt.Log, "removed %s: the disk reserve of a run killed before it could give it back\n", p)
		}
	}
	dir, err := b.createDir()
	if err != nil {
		return badInput(err)
	}
	b.dir = dir
	// Space for run.json and the scorecard, should the records fill the
	// disk. A disk too full for it is refused before anything is sent.
	free, ferr := b.folder().FileSystem().FreeSpace(dir)
	if b.reserve, err = b.folder().Reserve(reserveSize(free, ferr)); err != nil {
		// Nothing was run: the folder goes too (it is empty), so that a
		// rerun with the same --run-id is not refused.
		_ = b.folder().FileSystem().Remove(dir)
		b.dir = ""
		return fmt.Errorf("%w: free some space, or choose another --output-dir", err)
	}
	name := results.RequestsJSONL
	if s.Gzip {
		name = results.RequestsJSONLGz
	}
	b.log, err = harness.CreateRecordLogIn(b.folder().FileSystem(), b.folder().Path, name, s.Gzip)
	return err
}

// where says where the results are: prefix and the folder, or, with no
// output folder, that they were not written.
func (b *Benchmark) where(prefix string) string {
	if b.dir == "" {
		return " not written: no output folder"
	}
	return prefix + b.dir
}

// Outcome is what Run did.
type Outcome struct {
	// Run is run.json as written.
	Run results.Run
	// Scorecard is scorecard.json as written.
	Scorecard scorecard.Scorecard
	// Dir is the results folder; "" when Settings.OutputDir was empty
	// and nothing was written.
	Dir string
	// Code is the exit code a CLI gives the outcome (package exitcode):
	// OK, SLOFailed, Partial, Undecided, or Failure with Run's error.
	Code int
}

// Run runs the levels (or the sweep), then writes every output, even
// after an interruption or a failure, and closes the benchmark. Its error
// is a runtime failure (Outcome.Code exitcode.Failure): a failed write
// (naming the file, the space left, and what was kept), no request
// succeeded at any level, or the runner's error (e.g. an Options callback
// panicked: the levels so far are kept, marked partial, with the error as
// the reason); an interruption (ctx cancelled) is not an error but Code
// exitcode.Partial, with the partial results written and marked.
//
// Run may be called once: it closes the benchmark. A second call, at the
// same time as the first or after it, returns an error and runs nothing;
// build a new Benchmark with New for another run.
func (b *Benchmark) Run(ctx context.Context) (Outcome, error) {
	if !b.ran.CompareAndSwap(false, true) {
		return Outcome{Code: exitcode.Failure}, errors.New("benchmark: Run was already called on this Benchmark (a Benchmark runs once, and Run closes it): build a new one with New")
	}
	out, err := b.run(ctx)
	if werr := b.writerPanic(); werr != nil {
		out.Code = exitcode.Failure
		err = errors.Join(err, werr)
	}
	return out, b.named(err)
}

// writerPanic is the first panic of Options.Log or Options.Stdout, as an
// error, or nil.
func (b *Benchmark) writerPanic() error {
	var errs []error
	for _, w := range []io.Writer{b.opt.Log, b.opt.Stdout} {
		if g, ok := w.(*guardedWriter); ok {
			errs = append(errs, g.panicked())
		}
	}
	return errors.Join(errs...)
}

// guardedWriter is a writer of the caller's (Options.Log, Options.Stdout)
// whose panic becomes an error: the first panic is kept, that write and
// every later one fail with it, and the writer gets nothing more. Writes
// are serialised, since notes come from more than one goroutine.
type guardedWriter struct {
	name string
	w    io.Writer
	mu   sync.Mutex
	err  error
}

func (g *guardedWriter) Write(p []byte) (n int, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return 0, g.err
	}
	defer func() {
		if v := recover(); v != nil {
			g.err = fmt.Errorf("%s panicked: %v", g.name, v)
			n, err = 0, g.err
		}
	}()
	return g.w.Write(p)
}

func (g *guardedWriter) panicked() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

func (b *Benchmark) run(ctx context.Context) (Outcome, error) {
	defer b.Close()
	var res sweep.Result
	runErr := b.warmUp(ctx)
	switch {
	case runErr != nil:
		// The phase failed or was stopped: no level runs.
		res = sweep.Result{Kind: sweep.KindLevels, Objective: b.obj}
		if b.isSweep() {
			res.Kind = b.plan().Kind
		}
	case b.isSweep():
		res, runErr = sweep.Run(b.levelContext(ctx), b.plan(), b.runner, b.sweepOptions()...)
	default:
		res, runErr = b.runLevels(b.levelContext(ctx))
	}
	if b.reserveErr != nil {
		runErr = b.reserveErr // the disk filled: stopped to keep room for run.json
	} else if b.callbackErr != nil {
		runErr = b.callbackErr // what stopped the levels, not the stop
	}
	var writeErr *results.WriteError
	failedWrite := errors.As(runErr, &writeErr)
	if ctx.Err() != nil || failedWrite {
		res.Partial = true
	}
	if failedWrite {
		res.Warnings = append(res.Warnings, metrics.Warning{Code: results.WarnWriteFailed, Level: -1, Message: writeFailedWarning(writeErr, b.log.Records())})
	}
	run := b.result(res)
	// A runner that failed (an Options callback panicked, say) with ctx
	// live was not interrupted: its error is Run's, and the reason says it.
	runnerFailed := res.Partial && runErr != nil && ctx.Err() == nil && !failedWrite
	switch {
	case failedWrite:
		run.PartialReason = "stopped by a failed write: " + writeErr.Error()
	case ctx.Err() != nil:
		run.PartialReason = interruptedBy(ctx)
	case runnerFailed:
		run.PartialReason = "stopped by an error: " + fieldname.Replace(runErr, warningWords...).Error()
	}
	if !b.shard.IsZero() {
		run.Config.Shard = b.shard.String()
	}
	out := Outcome{Dir: b.dir, Code: exitcode.Failure}
	var outErr error
	out.Run, out.Scorecard, outErr = b.writeOutputs(ctx, run)
	if failedWrite || errors.As(outErr, &writeErr) {
		return out, b.writeFailure(writeErr, failedWrite, outErr)
	}
	failures := tallyFailures(b.runner.Levels())
	b.printUnreachable(res)
	// The hint goes on the summary unless the final error carries it.
	lastWord := outErr == nil && !res.Partial && runErr == nil && failures.noSuccess(b.target, b.dir != "") != nil
	failures.print(b.opt.Log, b.target, !lastWord)
	switch {
	case outErr != nil:
		return out, errors.Join(runErr, outErr)
	case runnerFailed:
		fmt.Fprintf(b.opt.Log, "stopped by an error: partial results%s\n", b.where(" kept in "))
		return out, fmt.Errorf("%w (partial results%s)", fieldname.Replace(runErr, warningWords...), b.where(" kept in "))
	case res.Partial:
		fmt.Fprintf(b.opt.Log, "%s: partial results%s\n", interruptedBy(ctx), b.where(" kept in "))
		out.Code = exitcode.Partial
		return out, nil
	case runErr != nil && errors.Is(runErr, sweep.ErrGridUndefined) && failures.noSuccess(b.target, b.dir != "") != nil:
		// Nothing answered: say so, rather than that the grid is undefined.
		return out, fmt.Errorf("%w (results so far%s)", failures.noSuccess(b.target, b.dir != ""), b.where(" are in "))
	case runErr != nil:
		return out, fmt.Errorf("%w (results so far%s)", fieldname.Replace(runErr, warningWords...), b.where(" are in "))
	}
	fmt.Fprintf(b.opt.Log, "results%s\n", b.where(": "))
	if err := failures.noSuccess(b.target, b.dir != ""); err != nil {
		return out, err // a dead or refusing server is a runtime failure, not an SLO verdict
	}
	out.Code = res.ExitCode()
	if out.Code == exitcode.SLOFailed && !b.shard.IsZero() {
		// A shard sees only its share of the load; the verdict that
		// counts is the merged one (merge exits 3 if it fails). A healthy
		// shard must not fail its Kubernetes Job.
		fmt.Fprintf(b.opt.Log, "shard %s: this shard's share missed the SLO; the verdict that counts is the merged one (gollm-bench merge)\n", b.shard)
		out.Code = exitcode.OK
	}
	return out, nil
}

func (b *Benchmark) plan() sweep.Plan {
	s := &b.s
	p := sweep.Plan{
		Kind:           sweep.KindRate,
		RateMode:       loadgen.ModeConstant,
		N:              s.GridLevels,
		MaxConcurrency: b.rateCap(),
		Seed:           s.Seed,
		Objective:      b.obj,
		KneeTolerance:  s.KneeTolerance,
		MaxLevels:      s.MaxLevels,
		EarlyStop:      s.EarlyStop,
		Decide:         !b.precision.IsZero(),
	}
	switch s.Profile {
	case "poisson":
		p.RateMode = loadgen.ModePoisson
	case "concurrent":
		p.Kind = sweep.KindConcurrency
	}
	if len(b.levels) > 0 {
		p.Rates = b.levels
		p.N = 0
	}
	if p.Kind == sweep.KindConcurrency && b.fdBound > 0 {
		// Each level holds its concurrency in flight: bounded as a run's.
		// Only a level above the bound changes (a bad one is left for
		// sweep.Plan's checks to refuse).
		p.Rates = slices.Clone(p.Rates)
		for i, c := range p.Rates {
			if c > float64(b.fdBound) {
				p.Rates[i] = float64(b.bounded(b.fdBound+1, fmt.Sprintf("the sweep's concurrency %g (requests in flight)", c)))
			}
		}
		p.Rates = slices.Compact(p.Rates) // 200,500 bounded to 100,100: one level
	}
	return p
}

// runLevels runs the `run` command's levels in order, each judged
// against the SLO, with no knee search (sweep.KindLevels).
func (b *Benchmark) runLevels(ctx context.Context) (sweep.Result, error) {
	return sweep.Run(ctx, sweep.Plan{Kind: sweep.KindLevels, Levels: b.profiles(), Objective: b.obj, Decide: !b.precision.IsZero()}, b.runner, b.sweepOptions()...)
}

// sweepOptions passes Options.SweepProgress on to the sweep, and grows
// the disk reserve at the end of each level (growReserve).
func (b *Benchmark) sweepOptions() []sweep.Option {
	return []sweep.Option{sweep.WithProgress(func(ev sweep.Event) {
		if ev.Type == sweep.LevelEnd {
			b.growReserve(ev)
		}
		b.sweepProgress(ev)
	})}
}

// sweepProgress calls Options.SweepProgress, turning a panic into
// callbackErr, which stops the levels (as a panic in Options.Progress
// does) and becomes Run's error; no event follows it.
func (b *Benchmark) sweepProgress(ev sweep.Event) {
	if b.opt.SweepProgress == nil || b.callbackErr != nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			b.callbackErr = fmt.Errorf("benchmark: level %d: Options.SweepProgress panicked: %v", ev.Index, v)
			if b.stopLevels != nil {
				b.stopLevels(b.callbackErr)
			}
		}
	}()
	b.opt.SweepProgress(ev)
}

// result assembles run.json.
func (b *Benchmark) result(res sweep.Result) results.Run {
	s := &b.s
	res.Warnings = append(res.Warnings, b.islWarnings(res)...)
	res.Warnings = append(res.Warnings, b.opt.Notes...)
	if b.chatNote != nil {
		res.Warnings = append(res.Warnings, *b.chatNote)
	}
	res.Warnings = append(res.Warnings, b.nonceWarnings()...)
	res.Warnings = append(res.Warnings, b.openFilesWarnings()...)
	res.Warnings = append(res.Warnings, b.inFlightWarnings(res)...)
	res.Warnings = append(res.Warnings, b.proxyWarnings()...)
	redactWarnings(&res)
	labels := maps.Clone(s.Labels)
	run := results.Run{
		SchemaVersion: results.SchemaVersion,
		RunID:         s.RunID,
		Tool:          b.opt.Tool,
		Command:       redact.Args(b.opt.Args),
		StartedAt:     b.started,
		FinishedAt:    time.Now(),
		Partial:       res.Partial,
		Result:        res,
		Settings:      b.record(),
		SettingsGiven: b.given(),
		Config: results.Config{
			Command: string(s.Command), Target: redact.URL(b.target), Endpoint: string(s.Endpoint), Model: b.model,
			Stream: !s.NoStream, IgnoreEOS: !s.NoIgnoreEOS, Profile: string(s.Profile), Rates: b.levels,
			MaxConcurrency: s.MaxConcurrency, Seed: s.Seed, Data: b.dataLengths().String(),
			Dataset: s.Dataset, PrefixCache: b.prefixCacheState(), Warmup: b.warmup.String(), Cooldown: b.cooldown.String(),
			MaxSeconds: s.MaxDuration.Seconds(), MaxRequests: s.MaxRequests, MaxErrors: s.MaxErrors,
			RequestTimeoutS: s.RequestTimeout.Seconds(), IdleTimeoutS: s.IdleTimeout.Seconds(),
			MaxLagMs: msOf(b.runnerMaxLag()), SLO: b.obj.String(), Precision: b.precision.String(), PrecisionMaxS: s.PrecisionMaxDuration.Seconds(), Repeat: s.Repeat,
			Energy: redact.URLs(s.Energy), Labels: labels,
			UnreachableAfter: s.UnreachableAfter, CACert: s.CACert, Insecure: s.Insecure, ReceiveClock: string(cmp.Or(s.ReceiveClock, openai.ReceiveAuto)), Like: s.Like,
		},
	}
	if s.SequenceDistribution != nil {
		run.Config.Data, run.Config.SequenceDistribution = "", s.SequenceDistribution.String()
	}
	run.Config.Proxy = b.proxyUsed
	if s.Dataset != "" && s.Data != nil && s.Data.PromptTokens == 0 {
		run.Config.Data = dataText(s.Data) // not dataLengths' placeholder prompt length
	}
	b.arr.describe(&run.Config)
	b.recordWarmup(&run)
	if b.mock != nil {
		run.Config.MockPreset = s.MockPreset
		run.Config.MockPrefixCache = s.MockPrefixCache
	}
	if b.tok != nil {
		run.Config.Tokenizer, run.Config.TokenizerSHA256 = absPath(b.tok.Path()), b.tok.SHA256()
		run.Config.TokenizerSource, run.Config.TokenizerCommit = b.tok.Source(), b.tok.Commit()
		if b.tok.Source() != tokenize.SourceFile {
			run.Config.TokenizerModel = b.tok.Name()
		}
		run.Config.ISLMeaning = "prompt tokens counted with the served tokenizer, without any chat template"
		if b.chat != nil {
			run.Config.ISLMeaning = "prompt tokens counted with the served tokenizer, including the chat template and its generation prompt (" + b.chat.Path() + ")"
			run.Config.ChatTemplate = b.chat.Path()
		}
	} else if b.counter != nil {
		run.Config.Tokenizer, run.Config.TokenizerSource, run.Config.TokenizerEndpoint = SourceServerCount, SourceServerCount, b.tokenizerAPI()
		run.Config.ISLMeaning = "prompt tokens as the server's tokenize endpoint counts them (" + b.tokenizerAPI() + "), special tokens it adds included, without any chat template"
		if b.counter.API().Chat {
			run.Config.ISLMeaning = "prompt tokens as the server's tokenize endpoint counts them (" + b.tokenizerAPI() + "), including the server's chat template and its generation prompt"
		}
	} else {
		run.Config.TokenizerSource = b.tokSource
		run.Config.ISLMeaning = "the server's usage.prompt_tokens (no tokenizer: prompts sized in whitespace words)"
	}
	for _, lv := range b.runner.Levels() {
		tl := lv.Timeline
		tl.Repeat = lv.Repeat
		run.Timelines = append(run.Timelines, tl)
		if r, _ := lv.Telemetry.(*telemetry.LevelReading); r != nil && (r.Energy != nil || r.Engine != nil || r.Pod != nil || r.LiteLLM != nil) {
			run.Telemetry = append(run.Telemetry, results.LevelTelemetry{Level: lv.Result.Level, Repeat: lv.Repeat,
				Energy: r.Energy, Engine: r.Engine, Pod: r.Pod, PodGap: r.PodGap, LiteLLM: r.LiteLLM})
		}
	}
	return run
}

func (b *Benchmark) runnerMaxLag() time.Duration {
	if b.s.MaxLag > 0 {
		return b.s.MaxLag
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
func (b *Benchmark) writeOutputs(ctx context.Context, run results.Run) (results.Run, scorecard.Scorecard, error) {
	errs := []error{b.reserve.Release()}
	if b.sources != nil && b.sources.Meter != nil {
		errs = append(errs, b.sources.Meter.Close())
	}
	run = b.withScorecardInputs(ctx, run)
	b.declareSessions(&run)
	sc := run.Scorecard()
	run.Metadata = sc.Metadata
	dir := b.folder()
	var formats []string
	for _, f := range b.s.Formats {
		if f != FormatJSON {
			formats = append(formats, string(f))
		}
	}
	if b.dir == "" {
		// No folder: only the console table, which needs none.
		formats = slices.DeleteFunc(formats, func(f string) bool { return f != "console" })
	} else {
		errs = append(errs, dir.WriteRun(run), dir.WriteScorecard(sc), b.log.Close())
	}
	errs = append(errs, report.WriteFormats(b.opt.Stdout, dir, run, formats))
	if sc.Status == scorecard.StatusAnecdote {
		fmt.Fprintf(b.opt.Log, "scorecard: anecdote, missing %s (give them as flags to make it auditable)\n", strings.Join(sc.Missing, ", "))
	} else {
		fmt.Fprintf(b.opt.Log, "scorecard: %s\n", sc.Status)
	}
	return run, sc, errors.Join(errs...)
}

// writeFailure is the error of a run that a failed write (a full disk)
// stopped, or whose outputs did not all fit: exit 1, not 4 (which says
// the user stopped the run). It names the file, the space left, what was
// written, and where the records are.
func (b *Benchmark) writeFailure(first *results.WriteError, duringRun bool, outErr error) error {
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
func (b *Benchmark) islWarnings(res sweep.Result) []metrics.Warning {
	want := b.lengths.PromptTokens
	if b.tok != nil || b.counter != nil || want == 0 || b.s.Dataset != "" || b.s.SequenceDistribution != nil {
		return nil
	}
	for _, lv := range res.Levels {
		got := lv.Summary.PromptTokens.Mean
		if lv.Summary.PromptTokens.Count == 0 || math.Abs(got-float64(want)) <= 0.1*float64(want) {
			continue
		}
		return []metrics.Warning{{Code: workload.WarnISLNotExact, Level: -1, Message: fmt.Sprintf(
			"the server counted a mean ISL of %.0f tokens for a requested %d: without --tokenizer, prompts are sized in words; give the served model's tokenizer for an exact ISL",
			got, want)}}
	}
	return nil
}

// printUnreachable says on stderr which levels stopped because their first
// requests all failed to connect (the warnings of --unreachable-after).
func (b *Benchmark) printUnreachable(res sweep.Result) {
	for _, lv := range res.Levels {
		for _, w := range lv.Summary.Warnings {
			if w.Code == harness.WarnUnreachable {
				fmt.Fprintf(b.opt.Log, "warning: %s\n", termtext.Escape(redact.URLs(w.Message)))
			}
		}
	}
}

// redactWarnings redacts the URLs that warnings quote (a telemetry source
// that failed, say), since run.json and the report show them, and puts the
// flags in place of the library's words (flagWords), in the receive
// clock's note too (loadgen.ReceiveClockChosen: the user clock was chosen
// by --receive-clock).
func redactWarnings(res *sweep.Result) {
	for i := range res.Warnings {
		res.Warnings[i].Message = flagWords(redact.URLs(res.Warnings[i].Message))
	}
	for i := range res.Levels {
		sum := &res.Levels[i].Summary
		sum.ReceiveClockNote = strings.ReplaceAll(sum.ReceiveClockNote, loadgen.ReceiveClockChosen, "chosen by --receive-clock")
		ws := res.Levels[i].Summary.Warnings
		for j := range ws {
			ws[j].Message = flagWords(redact.URLs(ws[j].Message))
		}
	}
}
