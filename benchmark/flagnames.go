package benchmark

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/loadgen"
)

// The library packages name their own fields and options in errors and
// warnings ("Limits.MaxDuration", "WithTemperature", "prices"); the tables
// and helpers here put the settings' names, the flags, in their place, so
// that the user reads the flag to fix. A library caller (Options.FlagNames
// false) then reads the Settings fields in the flags' place (named,
// settingFields).

// flagged puts flag in front of each error joined in err (errors.Join):
// for parsers of a flag's grammar, whose errors name what they parse.
func flagged(flag string, err error) error {
	return fieldname.Apply(err, fieldname.Name{Field: "", Caller: flag})
}

// limitsFields maps the loadgen.Limits fields its Validate names to the
// settings that set them.
var limitsFields = []fieldname.Name{
	{Field: "Limits.MaxDuration", Caller: "--max-seconds"},
	{Field: "Limits.MaxRequests", Caller: "--max-requests"},
	{Field: "Limits.MaxErrors", Caller: "--max-errors"},
	{Field: "Limits.UnreachableAfter", Caller: "--unreachable-after"},
	{Field: "Limits.WarmupRequests", Caller: "--warmup"},
	{Field: "Limits.WarmupFraction", Caller: "--warmup"},
	{Field: "Limits.Warmup", Caller: "--warmup"},
	{Field: "Limits.CooldownRequests", Caller: "--cooldown"},
	{Field: "Limits.CooldownFraction", Caller: "--cooldown"},
	{Field: "Limits.Cooldown", Caller: "--cooldown"},
}

// profileFields maps the loadgen.Profile fields its Validate and
// Shard.Share name to the settings that set them in profile p: --rate is
// the concurrency of concurrent levels, and the cap of throughput levels
// when given.
func (b *Benchmark) profileFields(p loadgen.Profile) []fieldname.Name {
	maxConc := "--max-concurrency"
	if p.Mode == loadgen.ModeThroughput && len(b.levels) > 0 {
		maxConc = "--rate"
	}
	return []fieldname.Name{
		{Field: "Profile.Mode", Caller: "--profile"},
		{Field: "Profile.Concurrency", Caller: "--rate"},
		{Field: "Profile.Rate", Caller: "--rate"},
		{Field: "Profile.MaxConcurrency", Caller: maxConc},
	}
}

// clientOptions maps the openai options and values whose errors New
// returns to the settings that set them.
var clientOptions = []fieldname.Name{
	{Field: "WithTemperature", Caller: "--temperature"},
	{Field: "WithRequestTimeout", Caller: "--request-timeout"},
	{Field: "WithIdleTimeout", Caller: "--idle-timeout"},
	{Field: "WithExtraBody", Caller: "--extra-body"},
	{Field: "min_tokens", Caller: "--min-tokens"},
	{Field: "header ", Caller: "--header"},
	{Field: "base URL", Caller: "--target"},
	{Field: "receive clock", Caller: "--receive-clock"},
}

// syntheticFields maps the workload.SyntheticConfig fields and the length
// specs its Validate names to the settings that set them: --prefix-cache
// warm:N sets both PrefixCache and WarmPrefixTokens.
var syntheticFields = []fieldname.Name{
	{Field: "SyntheticConfig.WarmPrefixTokens ", Caller: "--prefix-cache warm:"},
	{Field: "SyntheticConfig.PrefixCache ", Caller: "--prefix-cache "},
	{Field: "Data ", Caller: "--data "},
	{Field: "SequenceDistribution ", Caller: "--sequence-distribution "},
}

// folderNames maps the words of results.Create and ValidateRunID to the
// settings they stand for.
var folderNames = []fieldname.Name{
	{Field: "run ID", Caller: "--run-id"},
	{Field: "pass overwrite", Caller: "pass --overwrite"},
	{Field: "results: overwrite:", Caller: "results: --overwrite:"},
	{Field: "the output folder", Caller: "--output-dir"},
}

// warningWords maps the library's words in warnings and in the errors of
// a running sweep (harness, metrics, sweep, enginemetrics, energy,
// litellm) to the
// flags they stand for, so that run.json's warnings and stderr give the
// CLI's advice.
var warningWords = []fieldname.Name{
	{Field: "the Requester's base URL", Caller: "--target"},
	{Field: "check the client's TLS configuration", Caller: "see --ca-cert and --insecure"},
	{Field: "Config.Limits.UnreachableAfter", Caller: "--unreachable-after"},
	{Field: "Config.Limits.MaxDuration", Caller: "--max-seconds"},
	{Field: "Config.Limits.MaxRequests", Caller: "--max-requests"},
	{Field: "Limits.MaxDuration", Caller: "--max-seconds"},
	{Field: "Profile.MaxConcurrency", Caller: "--max-concurrency"},
	{Field: "point the Scraper", Caller: "point --engine-metrics"},
	{Field: "give the Runner a CapacityReporter, such as engine metrics,", Caller: "give --engine-metrics"},
	{Field: "give the rates in Plan.Rates", Caller: "give the rates with --rate"},
	{Field: "Plan.EarlyStop", Caller: "--early-stop"},
	{Field: "a precision target with Plan.Decide", Caller: "--precision"},
	{Field: "the maximum scheduling lag (MaxLag)", Caller: "--max-lag"},
	{Field: "the GPU filter, WithFilter", Caller: "--energy-filter"},
	{Field: "its GPU filter, WithFilter", Caller: "--energy-filter"},
	{Field: `use the source "target"`, Caller: "use --litellm-metrics target"},
	{Field: "the run's key (the target's Authorization header)", Caller: "the run's key (--api-key, $OPENAI_API_KEY or an Authorization --header)"},
}

// flagWords puts the flags in place of the library's words in msg.
func flagWords(msg string) string { return fieldname.ReplaceString(msg, warningWords...) }

// rampFields and sharedPrefixFields drop the field names that
// loadgen.Ramp and workload.SharedPrefixSpec put after the words of their
// spec ("the end rate (Ramp.To)", "groups (SharedPrefixSpec.Groups)"):
// the error already names the flag and quotes its value, whose words
// (from, to, groups=) are the user's.
var (
	rampFields = []fieldname.Name{
		{Field: " (Ramp.From)", Caller: ""},
		{Field: " (Ramp.To)", Caller: ""},
		{Field: " (Ramp.Over)", Caller: ""},
		{Field: " (Ramp.Shape)", Caller: ""},
	}
	sharedPrefixFields = []fieldname.Name{
		{Field: " (SharedPrefixSpec.Groups)", Caller: "="},
		{Field: " (SharedPrefixSpec.Prompts)", Caller: "="},
		{Field: " (SharedPrefixSpec.PrefixTokens)", Caller: "="},
		{Field: " (SharedPrefixSpec.QuestionTokens)", Caller: "="},
		{Field: " (SharedPrefixSpec.OutputTokens)", Caller: "="},
	}
)

// traceFailedFields are the failed-row policies as a trace error names
// them, with their flag.
var traceFailedFields = []fieldname.Name{
	{Field: "the failed-row policy FailedReplay", Caller: "--trace-failed replay"},
	{Field: "FailedSkip", Caller: "--trace-failed skip"},
}

// settingFields maps each setting's key, the flag that sets it (without
// its dashes), to its Settings field: the name an error gives a library
// caller (Options.FlagNames false), and the field Given's keys stand for.
var settingFields = map[string]string{
	"target": "Target", "model": "Model", "endpoint": "Endpoint", "api-key": "APIKey",
	"header": "Headers", "extra-body": "ExtraBody", "no-stream": "NoStream", "no-ignore-eos": "NoIgnoreEOS",
	"min-tokens": "MinTokens", "temperature": "Temperature", "ca-cert": "CACert", "insecure": "Insecure",
	"receive-clock": "ReceiveClock",

	"profile": "Profile", "rate": "Rates", "max-concurrency": "MaxConcurrency", "seed": "Seed", "nonce": "Nonce",
	"levels": "GridLevels", "knee-tolerance": "KneeTolerance", "max-levels": "MaxLevels", "early-stop": "EarlyStop",

	"data": "Data", "sequence-distribution": "SequenceDistribution", "dataset": "Dataset", "tokenizer": "Tokenizer",
	"prefix-cache": "PrefixCache", "turns": "Turns", "think-time": "ThinkTime", "max-context": "MaxContext",
	"trace": "Trace", "trace-format": "TraceFormat", "trace-speedup": "TraceSpeedup", "trace-window": "TraceWindow",
	"trace-failed": "TraceFailed", "ramp": "Ramp", "burstiness": "Burstiness", "shared-prefix": "SharedPrefix",

	"warmup": "Warmup", "cooldown": "Cooldown", "warmup-phase": "WarmupPhase", "max-seconds": "MaxDuration",
	"max-requests": "MaxRequests", "max-errors": "MaxErrors", "unreachable-after": "UnreachableAfter",
	"request-timeout": "RequestTimeout", "idle-timeout": "IdleTimeout", "max-line-bytes": "MaxLineBytes",
	"drain-timeout": "DrainTimeout", "max-lag": "MaxLag",

	"slo": "SLO", "precision": "Precision", "precision-max-seconds": "PrecisionMaxDuration", "repeat": "Repeat",

	"energy": "Energy", "energy-filter": "EnergyFilter", "engine-metrics": "EngineMetrics", "gpu-cost-eur-h": "GPUCostEURh",
	"opencost": "OpenCost", "opencost-namespace": "OpenCostNamespace", "currency": "Currency", "pue": "PUE",
	"grid-gco2-kwh": "GridGCO2KWh", "idle-baseline-w": "IdleBaselineW", "stabilize": "Stabilize",
	"pod-energy": "PodEnergy", "litellm-metrics": "LiteLLMMetrics", "price": "Price", "reference": "Reference",

	"engine": "Engine", "model-revision": "ModelRevision", "model-precision": "ModelPrecision", "hardware": "Hardware",
	"run-id": "RunID", "label": "Labels",

	"output-dir": "OutputDir", "format": "Formats", "overwrite": "Overwrite", "gzip": "Gzip",
	"mock-preset": "MockPreset", "mock-prefix-cache": "MockPrefixCache",

	"shard": "Shard", "like": "Like",
}

// flagToken matches a long flag in a message, or a command quoted in
// backticks (`gollm-bench run --profile synchronous`), which is left as
// the command line's.
var flagToken = regexp.MustCompile("`[^`]*`|--[a-z][a-z0-9-]*")

// fieldWords puts the Settings fields in place of the flags in msg:
// "--max-seconds" reads "Settings.MaxDuration". A flag that sets no
// field (--model-precision's advice aside, e.g. mock-server's) is left.
func fieldWords(msg string) string {
	return flagToken.ReplaceAllStringFunc(msg, func(tok string) string {
		if f, ok := settingFields[strings.TrimPrefix(tok, "--")]; ok && tok[0] == '-' {
			return "Settings." + f
		}
		return tok
	})
}

// named is err as the caller names the settings: by their flags when
// Options.FlagNames is set, else by their Settings fields. An
// *InputError stays one, outermost.
func (b *Benchmark) named(err error) error {
	if err == nil || b.opt.FlagNames {
		return err
	}
	if in, ok := err.(*InputError); ok {
		return &InputError{Err: fieldname.Rewrite(in.Err, fieldWords)}
	}
	return fieldname.Rewrite(err, fieldWords)
}

// seconds spells a level length as the caller gives it: seconds for
// --max-seconds (5), a Duration for Settings.MaxDuration (5s).
func (b *Benchmark) seconds(d time.Duration) string {
	if b.opt.FlagNames {
		return strconv.FormatFloat(d.Seconds(), 'g', -1, 64)
	}
	return d.String()
}

// explicitSettings is s.Given, or, when that is nil (a library
// caller), the keys of the settings whose value differs from
// DefaultSettings(s.Command)'s; an empty list or map is its default's
// nil.
func explicitSettings(s Settings) map[string]bool {
	if s.Given != nil {
		return s.Given
	}
	out := map[string]bool{}
	v, def := reflect.ValueOf(s), reflect.ValueOf(DefaultSettings(s.Command))
	for key, field := range settingFields {
		a, d := v.FieldByName(field), def.FieldByName(field)
		if (a.Kind() == reflect.Slice || a.Kind() == reflect.Map) && a.Len() == 0 && d.Len() == 0 {
			continue
		}
		if !reflect.DeepEqual(a.Interface(), d.Interface()) {
			out[key] = true
		}
	}
	return out
}
