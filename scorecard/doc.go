// Package scorecard is the one-row summary of a benchmark run,
// OUTPUT-DIR/<run-id>/scorecard.json (docs/outputs.md#scorecardjson): who
// measured what, on which hardware, under which SLO, and what it cost in
// euros, joules and grams of CO2 per token — all from the knee level's window
// (definitions in docs/metrics.md).
//
// # Auditable or anecdote
//
// Metadata carries the twelve mandatory facts of
// docs/outputs.md#the-twelve-mandatory-metadata (engine version, model
// revision, precision, tokenizer and the SHA-256 of its tokenizer.json, ISL,
// OSL, hardware, max concurrency tested, tool version and git commit, SLO,
// warmup, run id) plus extras (model, endpoint, load mode, prefix-cache
// state, seed, GPU count, labels, target URL, start time). Metadata.Missing
// lists the absent ones by JSON key; a scorecard with all of them is
// "auditable", otherwise an "anecdote, not data", and the missing keys are
// listed in it. MandatoryFields maps each key to the flag that declares it.
//
// # Building
//
// Build assembles a Scorecard from measured inputs: the knee level's
// figures (KneePerformance fills most of them from a metrics.Summary), the
// GPU energy over that level's window, and the cost rate. It derives
//
//	CPM (EUR per 1M tokens) = EUR/h × 1e6 / (goodput_tok_s × 3600)
//	Wh/token                = E_J / 3600 / output tokens in the window
//	J/token                 = E_J / output tokens
//	PUE-adjusted Wh/token   = Wh/token × PUE
//	gCO2 per 1M tokens      = Wh/token × 1e6 / 1000 × gCO2/kWh (PUE-adjusted when declared)
//
// so that 3,120 tok/s at 10.8 EUR/h costs 0.96 EUR per 1M tokens, and a
// 4,924 W deployment at that rate spends 0.000438 Wh (1.58 J) per token,
// 0.000614 Wh at PUE 1.4, or 24.55 g CO2 per 1M tokens at 40 g/kWh.
//
// Beside these, from the telemetry of the same window: the cost of its
// tokens at per-type prices (Cost.Tokens, --price), a LiteLLM proxy's spend
// (Cost.LiteLLM), Kepler's energy of the benchmarked pod and its gap to the
// GPU counters (Energy.Pod; Energy.WhPerTokenBasis says which energy
// Wh/token divides), and the plausibility of Wh/token against a published
// reference (Energy.Plausibility: within a factor of 2, or an
// "implausible_energy" warning). ParseReference reads --reference;
// ParseCostBasis and WithCostBasis choose the CPM that Pareto and WriteCSV
// compare on.
//
// Missing numbers are nil pointers, absent from the JSON and empty in the
// CSV: a 0 in a scorecard is always a measured zero.
//
// # Reading, aggregating, comparing
//
// Write and Decode (Read for a file or run directory) handle
// scorecard.json with its schema_version, and the scorecard-exporter
// layout it grew out of (no schema_version, carbon as
// co2_per_1m_tokens_g). FromPeer reads a GuideLLM, AIPerf, GenAI-Perf or
// vLLM result as rows, one per level: anecdotes that name the metadata
// they lack. ReadDirs walks results folders for `gollm-bench aggregate`
// and `gollm-bench pareto`, picking up all three kinds. WriteCSV flattens
// scorecards into one CSV with a fixed column order (section.key, keys
// carrying units) and a label.<k> column per label. Pareto keeps the rows
// that meet the SLO and that no other row beats on cost per token, energy
// per token and TTFT P99 together; every other row comes back with the
// reason it was dropped.
//
// Every function here is safe for concurrent use; values are plain data.
package scorecard
