// Package harness runs benchmark levels end to end: it joins a load
// generator (package loadgen), a records log (requests.jsonl), the metrics
// accumulator, the SLO's goodput predicate and the telemetry sources into a
// sweep.LevelRunner, so that `gollm-bench run`, `gollm-bench sweep` and
// embedders share one way of measuring a level.
//
// A level runs in two stages joined by plain data, as STYLE.md asks:
// records stream to a spool file while the level runs (memory stays flat
// whatever the request count), then, once the level's window is known,
// the spool is re-read into the accumulator, which marks each record in or
// out of the window, and appended to the run's records log.
//
// Before the first level, RunWarmup can run a warm-up phase (WarmupPhase):
// load sent the same way, whose records are logged with phase "warmup" and
// counted in no level, held open with a thermal gate (energy.Gate) until
// the GPUs have settled under it.
package harness
