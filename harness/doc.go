// Package harness runs benchmark levels end to end: it joins a load
// generator (package loadgen), a records log (requests.jsonl), the metrics
// accumulator, the SLO's goodput predicate and a Telemetry read over each
// level's window into a sweep.LevelRunner, so that `gollm-bench run`,
// `gollm-bench sweep` and embedders share one way of measuring a level.
// The Telemetry of the command line (GPU energy, engine metrics, Kepler,
// LiteLLM) is package telemetry's Sources; this package imports none of
// those readers, so that running a level pulls in no Prometheus, protobuf
// or YAML module (internal/depcheck checks it).
//
// A level runs in two stages joined by plain data, as STYLE.md asks:
// records stream to a spool file while the level runs (memory stays flat
// whatever the request count), then, once the level's window is known,
// the spool is re-read into the accumulator, which marks each record in or
// out of the window, and appended to the run's records log.
//
// Before the first level, RunWarmup can run a warm-up phase (WarmupPhase):
// load sent the same way, whose records are logged with phase "warmup" and
// counted in no level, held open with a thermal gate (gpu.Gate of package energy/gpu) until
// the GPUs have settled under it.
package harness
