package benchmark

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/cost"
	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/litellm"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/scorecard"
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
func (b *Benchmark) validateFlags() []error {
	s := &b.s
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

	// Numbers in range.
	for _, c := range []struct {
		bad bool
		msg string
	}{
		{s.MaxDuration < 0, fmt.Sprintf("--max-seconds %v: want a level length, e.g. 30s (0: 30s unless --max-requests is given)", s.MaxDuration)},
		{s.PrecisionMaxDuration < 0, fmt.Sprintf("--precision-max-seconds %v: want a positive bound on a level run to a decision, e.g. 2m (0: 10 × --max-seconds)", s.PrecisionMaxDuration)},
		{s.MaxRequests < 0, fmt.Sprintf("--max-requests %d: want a number of requests per level, e.g. 1000 (0: no limit)", s.MaxRequests)},
		{s.MaxErrors < 0, fmt.Sprintf("--max-errors %d: want a number of failed requests, e.g. 50 (0: never stop on errors)", s.MaxErrors)},
		{s.UnreachableAfter < 0, fmt.Sprintf("--unreachable-after %d: want a number of requests, e.g. %d (0: never stop)", s.UnreachableAfter, DefaultUnreachableAfter)},
		{!finite(s.Temperature) || s.Temperature < 0, fmt.Sprintf("--temperature %v: want a number >= 0, e.g. 0 or 0.7", s.Temperature)},
		{s.MinTokens < 0, fmt.Sprintf("--min-tokens %d: want 0 (not sent) or a positive number of tokens", s.MinTokens)},
		{s.MaxConcurrency < 0, fmt.Sprintf("--max-concurrency %d: want 0 for no cap, or a positive number of requests in flight", s.MaxConcurrency)},
		{s.RequestTimeout < 0, fmt.Sprintf("--request-timeout %v: want a duration, e.g. 5m, or 0 for none", s.RequestTimeout)},
		{s.IdleTimeout < 0, fmt.Sprintf("--idle-timeout %v: want a duration, e.g. 60s, or 0 for none", s.IdleTimeout)},
		{s.MaxLineBytes < 1<<10, fmt.Sprintf("--max-line-bytes %d: want at least 1024 bytes; the default is %d (4 MiB)", s.MaxLineBytes, openai.DefaultMaxLineBytes)},
		{s.DrainTimeout < 0, fmt.Sprintf("--drain-timeout %v: want a duration, e.g. 30s, or 0 to cut requests off at the level's end", s.DrainTimeout)},
		{s.MaxLag < 0, fmt.Sprintf("--max-lag %v: want a duration, e.g. 20ms, or 0 for the default (5 %% of the tightest TTFT, TTFOT or E2E threshold, else 10ms)", s.MaxLag)},
		{s.PUE != 0 && (!finite(s.PUE) || s.PUE < 1), fmt.Sprintf("--pue %v: a PUE is facility power over IT power, so at least 1, e.g. 1.4; leave it out when unknown", s.PUE)},
		{!finite(s.GPUCostEURh) || s.GPUCostEURh < 0, fmt.Sprintf("--gpu-cost-eur-h %v: want a cost >= 0 in EUR per hour, e.g. 2.5", s.GPUCostEURh)},
		{!finite(s.GridGCO2KWh) || s.GridGCO2KWh < 0, fmt.Sprintf("--grid-gco2-kwh %v: want a carbon intensity >= 0 in gCO2 per kWh, e.g. 350", s.GridGCO2KWh)},
		{!finite(s.IdleBaselineW) || s.IdleBaselineW < 0, fmt.Sprintf("--idle-baseline-w %v: want a power >= 0 in W, e.g. 60", s.IdleBaselineW)},
		{s.MockPrefixCache < 0, fmt.Sprintf("--mock-prefix-cache %d: want a capacity in tokens, e.g. 2000000, or 0 for the preset's", s.MockPrefixCache)},
		{s.MockPrefixCache > 0 && s.MockPrefixCache < mockCacheBlockTokens, fmt.Sprintf("--mock-prefix-cache %d: less than one cache block of %d tokens, so nothing could be cached; want at least %[2]d tokens, e.g. 2000000, or 0 for the preset's", s.MockPrefixCache, mockCacheBlockTokens)},
		{s.MockPrefixCache > 0 && s.Target != "", fmt.Sprintf("--mock-prefix-cache %d with --target: it sizes the in-process mock, which runs only without --target; size the server's own cache (gollm-bench mock-server: --prefix-cache-blocks)", s.MockPrefixCache)},
	} {
		if c.bad {
			errs = append(errs, errors.New(c.msg))
		}
	}
	if b.isSweep() {
		if s.GridLevels < 2 {
			bad("--levels %d: a rate sweep needs at least 2 levels (synchronous and throughput), e.g. --levels 10", s.GridLevels)
		}
		if !(s.KneeTolerance > 0 && s.KneeTolerance < 1) {
			bad("--knee-tolerance %v: want a fraction in (0, 1) of the knee's load, e.g. 0.05 (5 %%)", s.KneeTolerance)
		}
		if s.MaxLevels < 0 {
			bad("--max-levels %d: want 0 for the default budget (the grid plus the bisection) or a positive number of levels", s.MaxLevels)
		}
	} else {
		// A run searches no knee: a sweep's setting would be ignored.
		for _, c := range []struct {
			key string
			val any
		}{{"levels", s.GridLevels}, {"knee-tolerance", s.KneeTolerance}, {"max-levels", s.MaxLevels}, {"early-stop", s.EarlyStop}} {
			if b.explicit[c.key] {
				bad("--%s %v applies to a sweep (the knee search), which a run does not do: drop it, or make the benchmark a sweep (CommandSweep)", c.key, c.val)
			}
		}
	}

	// Without a results folder nothing is written: a setting that shapes
	// the files would be ignored. The default formats are not refused
	// (console is printed; the files are not written), nor is json, which
	// names no file of its own (run.json is written with every folder):
	// Formats json alone asks for no console table.
	if s.OutputDir == "" {
		for _, c := range []struct {
			key string
			val any
		}{{"gzip", s.Gzip}, {"overwrite", s.Overwrite}} {
			if b.explicit[c.key] {
				bad("--%s %v with no --output-dir: it shapes the results folder, which is not written without one; give --output-dir, or drop it", c.key, c.val)
			}
		}
		if b.explicit["format"] {
			for _, f := range s.Formats {
				if f == FormatCSV || f == FormatHTML {
					bad("--format %s with no --output-dir: %s is a file of the results folder, which is not written without one; give --output-dir, or keep only %s (the table on standard output) or %s", f, f, FormatConsole, FormatJSON)
				}
			}
		}
	}
	if s.Target == "" {
		if _, err := mockserver.Preset(s.MockPreset); err != nil {
			bad("--mock-preset: %w", err)
		}
	}

	// Levels: --rate means a concurrency in closed loop, a rate in open
	// loop, and nothing for synchronous.
	switch s.Profile {
	case "synchronous":
		if len(s.Rates) > 0 {
			bad("--rate %s with --profile synchronous: synchronous runs one request at a time and takes no rate; drop --rate, or use --profile concurrent --rate N (N in flight) or --profile constant --rate R (R req/s)", formatRates(s.Rates))
		}
	case "constant", "poisson":
		for _, v := range s.Rates {
			if math.IsInf(v, 0) || !(v > loadgen.MaxRate) {
				continue // parse reports the others
			}
			bad("--rate %q with --profile %s: arrivals less than 1 µs apart cannot be sent apart, and the level would never run out of them; the largest usable rate is %g req/s, e.g. --rate 1000", formatRates([]float64{v}), s.Profile, float64(loadgen.MaxRate))
		}
	case "concurrent", "throughput":
		what := "requests in flight"
		if s.Profile == "throughput" {
			what = "requests in flight at most"
		}
		for _, v := range s.Rates {
			if !(v > 0) || math.IsInf(v, 0) {
				continue // parse reports it
			}
			if v != math.Trunc(v) || v > math.MaxInt32 {
				bad("--rate %q with --profile %s: a concurrency is a whole number of %s, e.g. --rate 1,2,4; for a request rate use --profile constant", formatRates([]float64{v}), s.Profile, what)
			}
		}
	}

	// Requests.
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		for _, v := range s.Headers[k] {
			if err := openai.CheckHeader(strings.TrimSpace(k), v); err != nil {
				bad("--header: %w", err)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		if strings.TrimSpace(k) == "" {
			bad("--label %q: want KEY=VALUE, with a key", "="+s.Labels[k])
		}
	}
	if s.ExtraBody != nil {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(s.ExtraBody, &obj); err != nil || obj == nil {
			if err == nil {
				err = errors.New("null")
			}
			bad("--extra-body: want a JSON object such as '{\"top_p\":0.9}': %w", err)
		}
	}
	if s.Target != "" {
		if err := openai.CheckBaseURL(s.Target); err != nil {
			bad("--target: %w", fieldname.Replace(err, fieldname.Name{Field: "WithEndpoint", Caller: "--endpoint"}))
		}
	}
	if m, err := openai.ParseReceiveClock(string(s.ReceiveClock)); err != nil {
		bad("--receive-clock: %w", err)
	} else if err := m.Available(); err != nil {
		bad("--receive-clock: %w", err)
	}
	if tc, err := s.tlsConfig(); err != nil {
		errs = append(errs, err)
	} else {
		b.tls = tc
	}

	// SLO.
	if err := b.obj.Validate(); err != nil {
		bad("--slo: %w", err)
	}
	if s.NoStream {
		for _, t := range b.obj.Terms {
			if t.Metric.Streamed() {
				bad("--no-stream with --slo term %s: %s is not measured without streaming (no first-token or chunk times); drop the term (e2e, error_rate and output_tps are measured), or drop --no-stream", t.Name(), t.Name())
			}
		}
		for _, t := range b.precision.Targets {
			if t.Term.Metric.Streamed() {
				bad("--no-stream with --precision target %s: %s is not measured without streaming (no first-token or chunk times), so no level could ever reach it; target e2e instead (e.g. e2e_p99:5%%), or drop --no-stream", t, t.Term.Name())
			}
		}
	}
	if b.precision.Decide && len(b.precision.Targets) == 0 && b.obj.IsZero() {
		bad("--precision decide without --slo: it runs each level until every SLO term is decided, and there is none; give --slo (e.g. --slo \"ttft_p99<=500ms\"), or ask for interval targets (e.g. --precision ttft_p99:5%%)")
	}

	// Telemetry and cost.
	if m := s.EngineMetrics; m != "" && m != "target" {
		if u, err := url.Parse(m); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("--engine-metrics %q: want 'target' (the /metrics of --target) or an http(s) URL, e.g. http://127.0.0.1:8000/metrics", redact.URLs(m))
		}
	}
	switch {
	case s.OpenCost != "":
		if _, err := cost.NewOpenCost(s.OpenCost); err != nil {
			bad("--opencost: %s", redact.URLs(err.Error()))
		}
		if s.OpenCostNamespace == "" {
			bad("--opencost %s needs --opencost-namespace NS, the namespace whose OpenCost allocation is the deployment's cost", redact.URLs(s.OpenCost))
		}
	case s.OpenCostNamespace != "":
		bad("--opencost-namespace %s has no effect without --opencost URL: give both, or neither", s.OpenCostNamespace)
	}
	if st := s.Stabilize; st != nil {
		if err := st.Validate(); err != nil {
			bad("--stabilize %s: %w", energy.StabilizationText(*st), err)
		}
	}
	return append(errs, b.validateTelemetry()...)
}

// validateTelemetry checks PodEnergy, LiteLLMMetrics, Price and Reference
// (reading the file of Reference @FILE), and keeps the parsed prices and
// reference.
func (b *Benchmark) validateTelemetry() []error {
	s := &b.s
	var errs []error
	if s.PodEnergy != "" {
		if _, err := energy.ParsePodEnergy(s.PodEnergy); err != nil {
			errs = append(errs, errors.New(redact.URLs(flagged("--pod-energy", err).Error())))
		}
	}
	if s.LiteLLMMetrics != "" {
		// "target" is checked against a stand-in: the target may be the
		// in-process mock, started later.
		if _, err := litellm.Parse(s.LiteLLMMetrics, litellm.WithTarget("http://target.invalid")); err != nil {
			errs = append(errs, errors.New(redact.URLs(flagged("--litellm-metrics", err).Error())))
		}
	}
	if p := s.Price; p != nil {
		for _, c := range []struct {
			name string
			v    float64
		}{{"input", p.Input}, {"output", p.Output}, {"cached_input", p.CachedInput}} {
			if !(c.v >= 0) || math.IsInf(c.v, 0) {
				errs = append(errs, fmt.Errorf("--price: prices: %s=%v: want a price >= 0 in EUR per 1M tokens", c.name, c.v))
			}
		}
		b.prices = &scorecard.TokenPrices{Input: p.Input, Output: p.Output}
		if p.HasCachedInput {
			c := p.CachedInput
			b.prices.CachedInput = &c
		}
	}
	if r := s.Reference; r != nil {
		if !(r.WhPerToken > 0) || math.IsInf(r.WhPerToken, 0) || strings.TrimSpace(r.Source) == "" {
			errs = append(errs, fmt.Errorf("--reference: reference: want an energy per token > 0, Wh (got %v), and the source it was published in (got %q)", r.WhPerToken, r.Source))
		}
		b.reference = r
	}
	return errs
}

// validateBuilt hands what the flags build to the library's Validate: the
// level limits (the warmup and cooldown must leave a window), each level's
// profile (`run`) or the sweep plan. Their messages name the flags.
func (b *Benchmark) validateBuilt() error {
	errs := []error{fieldname.Replace(b.limits.WithTrims(b.warmup, b.cooldown).Validate(), limitsFields...)}
	if b.isSweep() {
		errs = append(errs, fieldname.Apply(b.plan().Validate(), planFields...))
	} else {
		for _, p := range b.profiles() {
			errs = append(errs, fieldname.Replace(p.Validate(), b.profileFields(p)...))
		}
	}
	return errors.Join(errs...)
}

// planFields maps the sweep.Plan fields its Validate names to the
// settings that set them.
var planFields = []fieldname.Name{
	{Field: "Plan.N =", Caller: "--levels"},
	{Field: "Plan.Rates", Caller: "--rate"},
	{Field: "Plan.MaxConcurrency", Caller: "--max-concurrency"},
	{Field: "Plan.KneeTolerance", Caller: "--knee-tolerance"},
	{Field: "Plan.MaxLevels", Caller: "--max-levels"},
	{Field: "Plan.EarlyStopFactor", Caller: "--early-stop"},
}

// tlsConfig builds the TLS configuration of --ca-cert and --insecure (nil
// when neither is given: Go's defaults, the system's roots).
func (s *Settings) tlsConfig() (*tls.Config, error) {
	switch {
	case s.Insecure && s.CACert != "":
		return nil, errors.New("--insecure and --ca-cert both say how to trust the server: give --ca-cert FILE to verify its certificate against a private CA, or --insecure to skip verification, not both")
	case s.Insecure:
		// The user asked for it, loudly (see newClient); the run records it.
		return &tls.Config{InsecureSkipVerify: true}, nil //nolint:gosec // --insecure
	case s.CACert == "":
		return nil, nil
	}
	data, err := os.ReadFile(s.CACert)
	if err != nil {
		return nil, fmt.Errorf("--ca-cert: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("--ca-cert %s: holds no PEM certificate: want the CA's certificate in PEM (a block starting -----BEGIN CERTIFICATE-----)", s.CACert)
	}
	return &tls.Config{RootCAs: pool}, nil
}

// CheckMinSamples checks a value of the deprecated --min-samples flag,
// which has no effect (every figure carries an interval instead): a
// sample count, so a whole number >= 0. A value that cannot be a count
// is refused like any other bad input rather than silently ignored.
func CheckMinSamples(v string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("want a number of samples >= 0; the flag is deprecated and has no effect (every figure carries a 95 %% interval), so drop it")
	}
	return nil
}

// formatRates spells rates as the flag does: 1,2.5,4.
func formatRates(rates []float64) string {
	parts := make([]string, len(rates))
	for i, r := range rates {
		parts[i] = strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}
