package benchmark

import (
	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/loadgen"
)

// The library packages name their own fields and options in errors and
// warnings ("Limits.MaxDuration", "WithTemperature", "prices"); the tables
// and helpers here put the settings' names, the flags, in their place, so
// that the user reads the flag to fix.

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
// a running sweep (harness, metrics, sweep, enginemetrics, energy) to the
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
