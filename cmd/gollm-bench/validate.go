package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/cost"
	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/openai"
)

// The checks of `run` and `sweep` flags, in two stages, both run by parse
// before anything is sent or created: validateFlags checks each value and
// combination of flags, and validateBuilt passes what the flags build
// (level limits, profiles, the sweep plan) to the library's own Validate.
// Every message names the flag and says how to fix the value; none quotes
// a secret (a header's value, a URL's credentials).

// validateFlags checks the flags parse does not convert. It reads the file
// --ca-cert names (and keeps the TLS configuration built from it), and no
// network.
func (b *bench) validateFlags() []error {
	f := &b.f
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

	// Numbers in range.
	for _, c := range []struct {
		bad bool
		msg string
	}{
		{!finite(f.maxSeconds) || f.maxSeconds < 0, fmt.Sprintf("--max-seconds %v: want a level length in seconds, e.g. 30 (0: 30 unless --max-requests is given)", f.maxSeconds)},
		{f.maxRequests < 0, fmt.Sprintf("--max-requests %d: want a number of requests per level, e.g. 1000 (0: no limit)", f.maxRequests)},
		{f.maxErrors < 0, fmt.Sprintf("--max-errors %d: want a number of failed requests, e.g. 50 (0: never stop on errors)", f.maxErrors)},
		{f.unreachable < 0, fmt.Sprintf("--unreachable-after %d: want a number of requests, e.g. %d (0: never stop)", f.unreachable, defaultUnreachableAfter)},
		{!finite(f.temperature) || f.temperature < 0, fmt.Sprintf("--temperature %v: want a number >= 0, e.g. 0 or 0.7", f.temperature)},
		{f.minTokens < 0, fmt.Sprintf("--min-tokens %d: want 0 (not sent) or a positive number of tokens", f.minTokens)},
		{f.maxConcurrency < 0, fmt.Sprintf("--max-concurrency %d: want 0 for no cap, or a positive number of requests in flight", f.maxConcurrency)},
		{f.requestTimeout < 0, fmt.Sprintf("--request-timeout %v: want a duration, e.g. 5m, or 0 for none", f.requestTimeout)},
		{f.idleTimeout < 0, fmt.Sprintf("--idle-timeout %v: want a duration, e.g. 60s, or 0 for none", f.idleTimeout)},
		{f.drain < 0, fmt.Sprintf("--drain-timeout %v: want a duration, e.g. 30s, or 0 to cut requests off at the level's end", f.drain)},
		{f.maxLag < 0, fmt.Sprintf("--max-lag %v: want a duration, e.g. 20ms, or 0 for the default (5 %% of the tightest SLO latency)", f.maxLag)},
		{f.minSamples < 0, fmt.Sprintf("--min-samples %d: want a number of requests, e.g. 1000", f.minSamples)},
		{f.pue != 0 && (!finite(f.pue) || f.pue < 1), fmt.Sprintf("--pue %v: a PUE is facility power over IT power, so at least 1, e.g. 1.4; leave it out when unknown", f.pue)},
		{!finite(f.gpuCostEURh) || f.gpuCostEURh < 0, fmt.Sprintf("--gpu-cost-eur-h %v: want a cost >= 0 in EUR per hour, e.g. 2.5", f.gpuCostEURh)},
		{!finite(f.gridGCO2kWh) || f.gridGCO2kWh < 0, fmt.Sprintf("--grid-gco2-kwh %v: want a carbon intensity >= 0 in gCO2 per kWh, e.g. 350", f.gridGCO2kWh)},
		{!finite(f.idleBaselineW) || f.idleBaselineW < 0, fmt.Sprintf("--idle-baseline-w %v: want a power >= 0 in W, e.g. 60", f.idleBaselineW)},
	} {
		if c.bad {
			errs = append(errs, errors.New(c.msg))
		}
	}
	if b.sweep {
		if f.levels < 2 {
			bad("--levels %d: a rate sweep needs at least 2 levels (synchronous and throughput), e.g. --levels 10", f.levels)
		}
		if !(f.kneeTolerance > 0 && f.kneeTolerance < 1) {
			bad("--knee-tolerance %v: want a fraction in (0, 1) of the knee's load, e.g. 0.05 (5 %%)", f.kneeTolerance)
		}
		if f.maxLevels < 0 {
			bad("--max-levels %d: want 0 for the default budget (the grid plus the bisection) or a positive number of levels", f.maxLevels)
		}
	}

	// Levels: --rate means a concurrency in closed loop, a rate in open
	// loop, and nothing for synchronous.
	switch f.profile {
	case "synchronous":
		if len(f.rates) > 0 {
			bad("--rate %s with --profile synchronous: synchronous runs one request at a time and takes no rate; drop --rate, or use --profile concurrent --rate N (N in flight) or --profile constant --rate R (R req/s)", strings.Join(f.rates, ","))
		}
	case "concurrent", "throughput":
		what := "requests in flight"
		if f.profile == "throughput" {
			what = "requests in flight at most"
		}
		for _, r := range f.rates {
			v, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				continue // parse reports it
			}
			if v != math.Trunc(v) || v > math.MaxInt32 {
				bad("--rate %q with --profile %s: a concurrency is a whole number of %s, e.g. --rate 1,2,4; for a request rate use --profile constant", r, f.profile, what)
			}
		}
	}

	// Requests.
	for _, kv := range f.headers {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			continue // parseKV reports it
		}
		if err := openai.CheckHeader(strings.TrimSpace(k), v); err != nil {
			errs = append(errs, err)
		}
	}
	if f.target != "" {
		if err := openai.CheckBaseURL(f.target); err != nil {
			errs = append(errs, err)
		}
	}
	if m, err := openai.ParseReceiveClock(f.rxClock); err != nil {
		errs = append(errs, err)
	} else if err := m.Available(); err != nil {
		errs = append(errs, err)
	}
	if tc, err := f.tlsConfig(); err != nil {
		errs = append(errs, err)
	} else {
		b.tls = tc
	}

	// SLO.
	if err := b.obj.Validate(); err != nil {
		bad("--slo: %w", err)
	}
	if f.noStream {
		for _, t := range b.obj.Terms {
			if t.Metric.Streamed() {
				bad("--no-stream with --slo term %s: %s is not measured without streaming (no first-token or chunk times); drop the term (e2e, error_rate and output_tps are measured), or drop --no-stream", t.Name(), t.Name())
			}
		}
	}

	// Telemetry and cost.
	if m := f.engineMetrics; m != "" && m != "target" {
		if u, err := url.Parse(m); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("--engine-metrics %q: want 'target' (the /metrics of --target) or an http(s) URL, e.g. http://127.0.0.1:8000/metrics", redactURLs(m))
		}
	}
	switch {
	case f.openCost != "":
		if _, err := cost.NewOpenCost(f.openCost); err != nil {
			errs = append(errs, errors.New(redactURLs(err.Error())))
		}
		if f.openCostNS == "" {
			bad("--opencost %s needs --opencost-namespace NS, the namespace whose OpenCost allocation is the deployment's cost", redactURLs(f.openCost))
		}
	case f.openCostNS != "":
		bad("--opencost-namespace %s has no effect without --opencost URL: give both, or neither", f.openCostNS)
	}
	if f.energyFilter != "" {
		if _, err := energy.ParseFilter(f.energyFilter); err != nil {
			bad("--energy-filter: %w", err)
		}
	}
	if f.stabilize != "" {
		if _, err := parseStabilize(f.stabilize); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// validateBuilt hands what the flags build to the library's Validate: the
// level limits (the warmup and cooldown must leave a window), each level's
// profile (`run`) or the sweep plan. Their messages name the flags.
func (b *bench) validateBuilt() error {
	errs := []error{harness.LevelLimits(b.limits, b.warmup, b.cooldown).Validate()}
	if b.sweep {
		errs = append(errs, withFlagNames(b.plan().Validate(), planFlags()))
	} else {
		for _, p := range b.profiles() {
			errs = append(errs, p.Validate())
		}
	}
	return errors.Join(errs...)
}

// planFlags maps the sweep.Plan fields its Validate names to the flags
// that set them.
func planFlags() []struct{ field, flag string } {
	return []struct{ field, flag string }{
		{"Plan.N =", "--levels"},
		{"Plan.Rates", "--rate"},
		{"Plan.MaxConcurrency", "--max-concurrency"},
		{"Plan.KneeTolerance", "--knee-tolerance"},
		{"Plan.MaxLevels", "--max-levels"},
		{"Plan.MinSamples", "--min-samples"},
		{"Plan.EarlyStopFactor", "--early-stop"},
	}
}

// withFlagNames prefixes each error joined in err with the flag of the
// first field it names.
func withFlagNames(err error, fields []struct{ field, flag string }) error {
	if err == nil {
		return nil
	}
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		for _, f := range fields {
			if strings.Contains(e.Error(), f.field) {
				e = fmt.Errorf("%s: %w", f.flag, e)
				break
			}
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// tlsConfig builds the TLS configuration of --ca-cert and --insecure (nil
// when neither is given: Go's defaults, the system's roots).
func (f *benchFlags) tlsConfig() (*tls.Config, error) {
	switch {
	case f.insecure && f.caCert != "":
		return nil, errors.New("--insecure and --ca-cert both say how to trust the server: give --ca-cert FILE to verify its certificate against a private CA, or --insecure to skip verification, not both")
	case f.insecure:
		// The user asked for it, loudly (see newClient); the run records it.
		return &tls.Config{InsecureSkipVerify: true}, nil //nolint:gosec // --insecure
	case f.caCert == "":
		return nil, nil
	}
	data, err := os.ReadFile(f.caCert)
	if err != nil {
		return nil, fmt.Errorf("--ca-cert: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("--ca-cert %s: holds no PEM certificate: want the CA's certificate in PEM (a block starting -----BEGIN CERTIFICATE-----)", f.caCert)
	}
	return &tls.Config{RootCAs: pool}, nil
}
