package results

import "github.com/gollm-bench/gollm-bench/metrics"

// Warning codes raised while writing and merging results
// (metrics.Warning.Code).
const (
	// WarnWriteFailed: a write failed (a full disk): the records not
	// written to requests.jsonl are in the level's spool file, which the
	// message names.
	WarnWriteFailed metrics.WarningCode = "write_failed"
	// WarnTornRecord: a shard's records file ended in a torn record, which
	// merge left out; the merged result is partial.
	WarnTornRecord metrics.WarningCode = "torn_record"
	// WarnShardPartial: a shard was interrupted; the merged result is
	// partial and leaves out the levels some shard lacks.
	WarnShardPartial metrics.WarningCode = "shard_partial"
	// WarnTelemetryShard0: the shards read the same GPUs or the same
	// engine's /metrics, so their readings overlap and cannot be added: the
	// merged level keeps shard 0's reading, which covers every shard's load
	// over shard 0's window.
	WarnTelemetryShard0 metrics.WarningCode = "telemetry_from_shard_0"
)
