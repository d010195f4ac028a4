package benchmark

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/workload"
)

// Trace replay, ramps, burstiness and shared prefixes: the settings
// Trace, TraceFormat, TraceSpeedup, TraceWindow, Ramp, Burstiness and
// SharedPrefix, their combinations with the others, and their mapping onto
// the library's workload.TraceSpec, loadgen.Arrivals and
// workload.SharedPrefixSpec.

// arrivals is what parseArrivals made of the settings.
type arrivals struct {
	plan   *workload.TracePlan // Trace, read
	shape  loadgen.Arrivals    // Ramp, Burstiness
	shared *workload.SharedPrefixSpec
	// unread: Trace or Ramp, which set the profile and the rate, was
	// refused, so the profile and rate they leave are not checked (their
	// errors would be about the refused setting's absence).
	unread bool
}

// parseArrivals checks the flags and their combinations with the others,
// reads --trace (so that a bad line stops the run before anything is
// sent), and sets the profile, rate and limits a trace or a ramp implies
// where they were not given. It runs at the start of parse.
func (b *Benchmark) parseArrivals() []error {
	f, a, given := &b.s, &b.arr, b.explicit
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	// clash refuses the flags of others given with flag.
	clash := func(flag, why string, others ...string) {
		for _, o := range others {
			if given[o] {
				bad("--%s with --%s: %s; drop --%s", flag, o, why, o)
			}
		}
	}
	for _, n := range []string{"trace-format", "trace-speedup", "trace-window", "trace-failed"} {
		if given[n] && f.Trace == "" {
			bad("--%s without --trace: it applies to a replayed trace; give --trace FILE, or drop --%s", n, n)
		}
	}
	if given["burstiness"] {
		a.shape.Burstiness = f.Burstiness
		if err := (loadgen.Arrivals{Burstiness: f.Burstiness}).Validate(); err != nil || f.Burstiness == 0 {
			bad("--burstiness %v: want a gamma shape K > 0: 1 is Poisson arrivals, below 1 burstier (0.5 gives gaps with a coefficient of variation of 1.41), above 1 more even", f.Burstiness)
		}
		switch {
		case !given["profile"]:
			f.Profile = "poisson"
		case f.Profile != "poisson":
			bad("--burstiness with --profile %s: gamma gaps replace a Poisson process's exponential ones; use --profile poisson (the default with --burstiness)", f.Profile)
		}
	}
	if f.Ramp == nil && given["ramp"] {
		// A ramp the command line could not parse (cmdline.SettingsText):
		// the profile and rate it would set are not checked.
		a.unread = true
		clash("ramp", "the ramp sets the level's rates", "rate")
	}
	if f.Ramp != nil {
		r := *f.Ramp
		err := r.Validate()
		switch {
		case err != nil:
			bad("--ramp %q: %w", r.String(), fieldname.Replace(err, rampFields...))
			a.unread = true
		case b.isSweep():
			bad("--ramp with sweep: a ramp raises the rate within a level; use `gollm-bench run --ramp %s`", r)
		case given["max-seconds"] && f.MaxDuration < r.Over:
			bad("--max-seconds %s ends the level before --ramp %s reaches its end rate after %v: raise --max-seconds (the level holds the end rate after the ramp), or shorten the ramp", b.seconds(f.MaxDuration), r, r.Over)
		case !given["max-seconds"] && !given["max-requests"]:
			f.MaxDuration = r.Over
		}
		a.shape.Ramp = &r
		clash("ramp", "the ramp sets the level's rates", "rate")
		if !given["profile"] && !given["burstiness"] {
			f.Profile = "constant"
		} else if f.Profile != "constant" && f.Profile != "poisson" {
			bad("--ramp with --profile %s: a ramp paces arrivals by time; use --profile constant (evenly spaced) or poisson", f.Profile)
		}
		if err == nil {
			f.Rates = []float64{r.To} // names the level
		}
	}
	if f.SharedPrefix != nil {
		sp := *f.SharedPrefix
		if err := sp.Validate(); err != nil {
			if b.opt.FlagNames {
				err = fieldname.Replace(err, sharedPrefixFields...)
			}
			bad("--shared-prefix: %w", err)
		}
		a.shared = &sp
		clash("shared-prefix", "the shared prefix sets the prompts and their lengths", "dataset", "data", "sequence-distribution", "prefix-cache", "turns")
	}
	if f.Trace != "" {
		if b.isSweep() {
			bad("--trace with sweep: a trace replays its own arrival times as one level; use `gollm-bench run --trace %s`", f.Trace)
		}
		clash("trace", "a trace sets the arrival times and lengths itself", "profile", "rate", "ramp", "burstiness", "shared-prefix", "dataset", "data", "sequence-distribution", "prefix-cache", "max-requests", "precision", "like", "turns")
		if len(errs) == 0 {
			errs = append(errs, b.readTrace()...)
		}
		a.unread = a.unread || a.plan == nil
	}
	return errs
}

// readTrace reads --trace and sets the level it replays: constant mode
// (its pacer is the trace's schedule), named by the trace's mean rate;
// one request per line; unless given, no warmup or cooldown (every line
// is measured, and none sent in a warmup is cut off at the end); and,
// unless --max-seconds is given, a length that ends a mean gap after the
// last arrival (requests in flight then finish within --drain-timeout).
func (b *Benchmark) readTrace() []error {
	f, a, given := &b.s, &b.arr, b.explicit
	spec := workload.TraceSpec{File: f.Trace, Format: f.TraceFormat, Speedup: f.TraceSpeedup, Window: f.TraceWindow}
	var errs []error
	switch f.TraceFormat {
	case "", "mooncake", "azure", "burstgpt":
	default:
		errs = append(errs, fmt.Errorf("--trace-format %q: want mooncake, azure or burstgpt", f.TraceFormat))
	}
	if w := f.TraceWindow; w.Start < 0 || w.End < 0 || (w.End != 0 && w.End <= w.Start) {
		errs = append(errs, fmt.Errorf("--trace-window %s: want a START before END, both times since the trace's first request >= 0 (END 0: to the end)", w))
	}
	if !(f.TraceSpeedup > 0) {
		errs = append(errs, fmt.Errorf("--trace-speedup %v: want a factor > 0, e.g. 10 (ten times faster) or 0.5 (half speed)", f.TraceSpeedup))
	}
	failed, err := workload.ParseFailedRows(string(f.TraceFailed))
	if err != nil {
		errs = append(errs, fmt.Errorf("--trace-failed: %w", err))
	}
	spec.Failed = failed
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
		return []error{fmt.Errorf("--trace: %w", fieldname.Replace(err, traceFailedFields...))}
	}
	a.plan = plan
	if n := plan.Trace.FailedRows; n > 0 {
		what := "replayed with 1 output token each (max_tokens 1), at their arrival times"
		if plan.Trace.FailedPolicy == workload.FailedSkip {
			what = "skipped: their arrivals are not sent"
		}
		fmt.Fprintf(b.opt.Log, "--trace: %d of the trace's lines describe requests that failed in the traced service (0 output tokens): %s (--trace-failed %s; run.json: config.arrivals.trace.failed_rows)\n", n, what, plan.Trace.FailedPolicy)
	}
	lim := plan.Limits()
	f.Profile = "constant"
	f.Rates = []float64{roundTo4(plan.Rate())}
	f.MaxRequests = lim.MaxRequests
	if !given["max-seconds"] {
		f.MaxDuration = lim.MaxDuration
	}
	for name, v := range map[string]*loadgen.Trim{"warmup": &f.Warmup, "cooldown": &f.Cooldown} {
		if !given[name] {
			*v = loadgen.Trim{}
		}
	}
	return nil
}

// arrivalPacer is the harness's pacer factory: the trace's schedule, or
// the ramp and gamma gaps; nil for neither.
func (b *Benchmark) arrivalPacer() func(loadgen.Profile) loadgen.Pacer {
	a := &b.arr
	switch {
	case a.plan != nil:
		p := a.plan.Pacer()
		return func(loadgen.Profile) loadgen.Pacer { return p }
	case !a.shape.IsZero():
		return a.shape.Pacer
	}
	return nil
}

// arrivalLabel names a level's load in the live view when a trace, a
// ramp or gamma gaps shape it (results.Arrivals.Label); nil for none.
func (b *Benchmark) arrivalLabel() func(loadgen.Profile) string {
	var c results.Config
	b.arr.describe(&c)
	if c.Arrivals == nil {
		return nil
	}
	return c.Arrivals.Label
}

// arrivalWorkload builds the workload of --trace or --shared-prefix into
// b.work; done is false when neither was given.
func (b *Benchmark) arrivalWorkload() (done bool, err error) {
	f, a := &b.s, &b.arr
	var tok workload.Tokenizer
	if b.tok != nil {
		tok = b.tok
	}
	switch {
	case a.plan != nil:
		w, err := workload.NewReplay(workload.ReplayConfig{Trace: a.plan.Trace, Seed: f.Seed, Nonce: b.nonce(), Tokenizer: tok})
		if err != nil {
			return true, fmt.Errorf("--trace %s: %w (--trace-window START,END selects a part)", f.Trace, err)
		}
		b.work = w
	case a.shared != nil:
		cfg := workload.SharedPrefixConfig{Spec: *a.shared, Seed: f.Seed, Nonce: b.nonce(), Tokenizer: tok}
		// As for synthetic prompts: on /chat/completions of a real target
		// the ISL includes the served model's chat template.
		if b.tok != nil && f.Endpoint == "chat" && f.Target != "" {
			if cfg.ChatTemplate, err = b.chatTemplate(); err != nil {
				return true, err
			}
		}
		w, err := workload.NewSharedPrefix(cfg)
		if err != nil {
			return true, fmt.Errorf("--shared-prefix: %w", fieldname.Replace(err, sharedPrefixFields...))
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
func (a *arrivals) prefixCacheState() string {
	switch {
	case a.plan != nil:
		return a.plan.PrefixCacheState()
	case a.shared != nil:
		return a.shared.State()
	}
	return ""
}

// describe records the settings in run.json (Config.Arrivals).
func (a *arrivals) describe(c *results.Config) {
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
			Requests: len(p.Trace.Entries), Speedup: p.Spec.Speedup, SpanS: p.Span().Seconds(),
			FailedRows: p.Trace.FailedRows, FailedPolicy: string(p.Trace.FailedPolicy)}
		if !p.Spec.Window.IsZero() {
			out.Trace.Window = p.Spec.Window.String()
		}
		c.Data = ""
	}
	c.Arrivals = out
}

// scorecardSpec names the workload of a trace or a shared prefix in the
// scorecard's data spec.
func (a *arrivals) scorecardSpec(m *scorecard.Metadata) {
	switch {
	case a.plan != nil:
		m.DataSpec = fmt.Sprintf("trace=%s (%s, %d requests, %gx)", a.plan.Spec.File, a.plan.Trace.Format, len(a.plan.Trace.Entries), a.plan.Spec.Speedup)
	case a.shared != nil:
		m.DataSpec = "shared-prefix=" + a.shared.String()
	}
}

// roundTo4 rounds x to 4 significant digits: a trace's mean rate names its
// level, and more digits would claim a precision the replay does not have.
func roundTo4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}
