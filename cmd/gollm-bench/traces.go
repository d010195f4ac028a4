package main

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/workload"
)

// Trace replay, ramps, burstiness and shared prefixes: the flags, their
// combinations with the others, and their mapping onto the library's
// workload.TraceSpec, loadgen.Arrivals and workload.SharedPrefixSpec.
// bench.go calls in through one-line hooks.

// arrivalFlags are --trace, --trace-format, --trace-speedup,
// --trace-window, --ramp, --burstiness and --shared-prefix, and what
// parseArrivals made of them.
type arrivalFlags struct {
	trace, traceFormat, traceWindow string
	traceSpeedup                    float64
	ramp                            string
	burstiness                      float64
	sharedPrefix                    string

	plan   *workload.TracePlan // --trace, read
	shape  loadgen.Arrivals    // --ramp, --burstiness
	shared *workload.SharedPrefixSpec
}

func (a *arrivalFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&a.trace, "trace", "", "replay this request trace's arrival times and lengths (run only): Mooncake JSONL, Azure LLM inference CSV or BurstGPT CSV; one level, one request per line")
	fs.StringVar(&a.traceFormat, "trace-format", "", "format of --trace: mooncake, azure or burstgpt (default: detected from the first line)")
	fs.Float64Var(&a.traceSpeedup, "trace-speedup", 1, "play --trace this many times faster (0.5: half speed)")
	fs.StringVar(&a.traceWindow, "trace-window", "", "replay only the requests of --trace arriving in START,END (time since its first request: 10m,20m or 600,1200; either may be empty)")
	fs.StringVar(&a.ramp, "ramp", "", `raise the arrival rate within each level (run only), e.g. "linear:1->50:60s" or "exponential:2->64:2m" (req/s; constant arrivals, or Poisson with --profile poisson)`)
	fs.Float64Var(&a.burstiness, "burstiness", 0, "gamma-distributed gaps of this shape K with the level's mean rate (implies --profile poisson): 1 is Poisson, below 1 burstier (0.5: CV 1.41), above 1 smoother")
	fs.StringVar(&a.sharedPrefix, "shared-prefix", "", `groups of prompts sharing a prefix, e.g. "groups=8,prompts=64,prefix=2048,question=128,output=256" (tokens; prefix-cache state shared:GxS)`)
}

// parseArrivals checks the flags and their combinations with the others,
// reads --trace (so that a bad line stops the run before anything is
// sent), and sets the profile, rate and limits a trace or a ramp implies
// where they were not given. It runs at the start of parse.
func (b *bench) parseArrivals() []error {
	f, a := &b.f, &b.f.arrivals
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	// clash refuses the flags of others given with flag.
	clash := func(flag, why string, others ...string) {
		for _, o := range others {
			if f.changed[o] {
				bad("--%s with --%s: %s; drop --%s", flag, o, why, o)
			}
		}
	}
	for _, n := range []string{"trace-format", "trace-speedup", "trace-window"} {
		if f.changed[n] && a.trace == "" {
			bad("--%s without --trace: it applies to a replayed trace; give --trace FILE, or drop --%s", n, n)
		}
	}
	if f.changed["burstiness"] {
		a.shape.Burstiness = a.burstiness
		if err := (loadgen.Arrivals{Burstiness: a.burstiness}).Validate(); err != nil || a.burstiness == 0 {
			bad("--burstiness %v: want a gamma shape K > 0: 1 is Poisson arrivals, below 1 burstier (0.5 gives gaps with a coefficient of variation of 1.41), above 1 more even", a.burstiness)
		}
		switch {
		case !f.changed["profile"]:
			f.profile = "poisson"
		case f.profile != "poisson":
			bad("--burstiness with --profile %s: gamma gaps replace a Poisson process's exponential ones; use --profile poisson (the default with --burstiness)", f.profile)
		}
	}
	if a.ramp != "" {
		r, err := loadgen.ParseRamp(a.ramp)
		switch {
		case err != nil:
			bad("--%w", err)
		case b.sweep:
			bad("--ramp with sweep: a ramp raises the rate within a level; use `gollm-bench run --ramp %s`", a.ramp)
		case f.changed["max-seconds"] && time.Duration(f.maxSeconds*float64(time.Second)) < r.Over:
			bad("--max-seconds %v ends the level before --ramp %s reaches its end rate after %v: raise --max-seconds (the level holds the end rate after the ramp), or shorten the ramp", f.maxSeconds, a.ramp, r.Over)
		case !f.changed["max-seconds"] && !f.changed["max-requests"]:
			f.maxSeconds = r.Over.Seconds()
		}
		a.shape.Ramp = &r
		clash("ramp", "the ramp sets the level's rates", "rate")
		if !f.changed["profile"] && !f.changed["burstiness"] {
			f.profile = "constant"
		} else if f.profile != "constant" && f.profile != "poisson" {
			bad("--ramp with --profile %s: a ramp paces arrivals by time; use --profile constant (evenly spaced) or poisson", f.profile)
		}
		f.rates = []string{strconv.FormatFloat(r.To, 'g', -1, 64)} // names the level
	}
	if a.sharedPrefix != "" {
		sp, err := workload.ParseSharedPrefix(a.sharedPrefix)
		if err != nil {
			bad("--shared-prefix: %w", err)
		}
		a.shared = &sp
		clash("shared-prefix", "the shared prefix sets the prompts and their lengths", "dataset", "data", "sequence-distribution", "prefix-cache")
	}
	if a.trace != "" {
		if b.sweep {
			bad("--trace with sweep: a trace replays its own arrival times as one level; use `gollm-bench run --trace %s`", a.trace)
		}
		clash("trace", "a trace sets the arrival times and lengths itself", "profile", "rate", "ramp", "burstiness", "shared-prefix", "dataset", "data", "sequence-distribution", "prefix-cache", "max-requests", "precision", "like")
		if len(errs) == 0 {
			errs = append(errs, b.readTrace()...)
		}
	}
	return errs
}

// readTrace reads --trace and sets the level it replays: constant mode
// (its pacer is the trace's schedule), named by the trace's mean rate;
// one request per line; unless given, no warmup or cooldown (every line
// is measured, and none sent in a warmup is cut off at the end); and,
// unless --max-seconds is given, a length that ends a mean gap after the
// last arrival (requests in flight then finish within --drain-timeout).
func (b *bench) readTrace() []error {
	f, a := &b.f, &b.f.arrivals
	spec := workload.TraceSpec{File: a.trace, Format: workload.TraceFormat(a.traceFormat), Speedup: a.traceSpeedup}
	var errs []error
	switch a.traceFormat {
	case "", "mooncake", "azure", "burstgpt":
	default:
		errs = append(errs, fmt.Errorf("--trace-format %q: want mooncake, azure or burstgpt", a.traceFormat))
	}
	if a.traceWindow != "" {
		w, err := workload.ParseTraceWindow(a.traceWindow)
		if err != nil {
			errs = append(errs, fmt.Errorf("--trace-window: %w", err))
		}
		spec.Window = w
	}
	if !(a.traceSpeedup > 0) {
		errs = append(errs, fmt.Errorf("--trace-speedup %v: want a factor > 0, e.g. 10 (ten times faster) or 0.5 (half speed)", a.traceSpeedup))
	}
	if len(errs) > 0 {
		return errs
	}
	plan, err := workload.LoadTrace(spec)
	switch {
	case errors.Is(err, workload.ErrTraceFormatUnknown):
		return []error{fmt.Errorf("--trace: %w (--trace-format mooncake|azure|burstgpt)", err)}
	case errors.Is(err, workload.ErrTraceWindowEmpty):
		return []error{fmt.Errorf("--trace-window: %w", err)}
	case err != nil:
		return []error{fmt.Errorf("--trace: %w", err)}
	}
	a.plan = plan
	lim := plan.Limits()
	f.profile = "constant"
	f.rates = []string{strconv.FormatFloat(plan.Rate(), 'g', 4, 64)}
	f.maxRequests = lim.MaxRequests
	if !f.changed["max-seconds"] {
		f.maxSeconds = lim.MaxDuration.Seconds()
	}
	for name, v := range map[string]*string{"warmup": &f.warmup, "cooldown": &f.cooldown} {
		if !f.changed[name] {
			*v = "0"
		}
	}
	return nil
}

// arrivalPacer is the harness's pacer factory: the trace's schedule, or
// the ramp and gamma gaps; nil for neither.
func (b *bench) arrivalPacer() func(loadgen.Profile) loadgen.Pacer {
	a := &b.f.arrivals
	switch {
	case a.plan != nil:
		p := a.plan.Pacer()
		return func(loadgen.Profile) loadgen.Pacer { return p }
	case !a.shape.IsZero():
		return a.shape.Pacer
	}
	return nil
}

// arrivalWorkload builds the workload of --trace or --shared-prefix into
// b.work; done is false when neither was given.
func (b *bench) arrivalWorkload() (done bool, err error) {
	f, a := &b.f, &b.f.arrivals
	var tok workload.Tokenizer
	if b.tok != nil {
		tok = b.tok
	}
	switch {
	case a.plan != nil:
		w, err := workload.NewReplay(workload.ReplayConfig{Trace: a.plan.Trace, Seed: f.seed, Nonce: f.runID, Tokenizer: tok})
		if err != nil {
			return true, fmt.Errorf("--trace %s: %w (--trace-window START,END selects a part)", a.trace, err)
		}
		b.work = w
	case a.shared != nil:
		w, err := workload.NewSharedPrefix(workload.SharedPrefixConfig{Spec: *a.shared, Seed: f.seed, Nonce: f.runID, Tokenizer: tok})
		if err != nil {
			return true, fmt.Errorf("--shared-prefix: %w", err)
		}
		b.work = w
		b.lengths = workload.Data{PromptTokens: a.shared.PrefixTokens + a.shared.QuestionTokens, OutputTokens: a.shared.OutputTokens}
	default:
		return false, nil
	}
	return true, nil
}

// prefixCacheState is the prefix-cache state a trace or a shared prefix
// declares ("" for neither).
func (a *arrivalFlags) prefixCacheState() string {
	switch {
	case a.plan != nil:
		return a.plan.PrefixCacheState()
	case a.shared != nil:
		return a.shared.State()
	}
	return ""
}

// describe records the flags in run.json (Config.Arrivals).
func (a *arrivalFlags) describe(c *results.Config) {
	if a.plan == nil && a.shape.IsZero() && a.shared == nil {
		return
	}
	out := &results.Arrivals{Burstiness: a.shape.Burstiness}
	if r := a.shape.Ramp; r != nil {
		out.Ramp = r.String()
	}
	if sp := a.shared; sp != nil {
		out.SharedPrefix, c.Data = sp.String(), ""
	}
	if p := a.plan; p != nil {
		out.Trace = &results.TraceReplay{File: p.Spec.File, Format: string(p.Trace.Format), SHA256: p.SHA256, Lines: p.Lines,
			Requests: len(p.Trace.Entries), Speedup: p.Spec.Speedup, SpanS: p.Span().Seconds()}
		if !p.Spec.Window.IsZero() {
			out.Trace.Window = p.Spec.Window.String()
		}
		c.Data = ""
	}
	c.Arrivals = out
}

// scorecardSpec names the workload of a trace or a shared prefix in the
// scorecard's data spec.
func (a *arrivalFlags) scorecardSpec(m *scorecard.Metadata) {
	switch {
	case a.plan != nil:
		m.DataSpec = fmt.Sprintf("trace=%s (%s, %d requests, %gx)", a.trace, a.plan.Trace.Format, len(a.plan.Trace.Entries), a.plan.Spec.Speedup)
	case a.shared != nil:
		m.DataSpec = "shared-prefix=" + a.shared.String()
	}
}
