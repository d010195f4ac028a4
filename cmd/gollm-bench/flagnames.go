package main

import (
	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// The library names its own fields in errors (run.json's keys, a parser's
// subject); these tables put in front the flag that set them, so that the
// user reads the flag to fix. The run and sweep settings are mapped by
// package benchmark.

// mergeFlags maps the run.json keys a refused merge names (results.Merge:
// the shards' plans differ) to the flags that set them.
var mergeFlags = []fieldname.Name{
	{Field: "config.profile (", Caller: "--profile"},
	{Field: "config.rates (", Caller: "--rate"},
	{Field: "config.seed (", Caller: "--seed"},
	{Field: "config.max_concurrency (", Caller: "--max-concurrency"},
	{Field: "config.data (", Caller: "--data"},
	{Field: "config.sequence_distribution (", Caller: "--sequence-distribution"},
	{Field: "config.dataset (", Caller: "--dataset"},
	{Field: "config.prefix_cache (", Caller: "--prefix-cache"},
	{Field: "config.sessions (", Caller: "--turns, --think-time"},
	{Field: "config.max_seconds (", Caller: "--max-seconds"},
	{Field: "config.max_requests (", Caller: "--max-requests"},
	{Field: "config.warmup (", Caller: "--warmup"},
	{Field: "config.cooldown (", Caller: "--cooldown"},
	{Field: "config.warmup_phase (", Caller: "--warmup-phase"},
	{Field: "config.endpoint (", Caller: "--endpoint"},
	{Field: "config.model (", Caller: "--model"},
	{Field: "result.slo ", Caller: "--slo"},
}

// mergeErr puts the flag in front of each of results.Merge's errors that
// names a setting of the shards' plan.
func mergeErr(err error) error { return fieldname.Apply(err, mergeFlags...) }

// likeFlags returns u naming the flags that replace its setting
// ("--dataset"), as the user gives them.
func likeFlags(u peer.Unreproducible) peer.Unreproducible {
	flags := make([]string, len(u.Flags))
	for i, f := range u.Flags {
		flags[i] = "--" + f
	}
	u.Flags = flags
	return u
}

// paretoWords maps scorecard.Pareto's reasons for dropping a scorecard
// (scorecard.OwnVerdict) to the flag that would keep it.
var paretoWords = []fieldname.Name{
	{Field: "run without an SLO", Caller: "run without --slo"},
	{Field: "give an SLOCheck", Caller: "pass --slo"},
}

// flagReasons puts the flags in dropped's reasons.
func flagReasons(dropped []scorecard.Dropped) {
	for i := range dropped {
		dropped[i].Reason = fieldname.ReplaceString(dropped[i].Reason, paretoWords...)
	}
}
