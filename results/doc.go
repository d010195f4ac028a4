// Package results defines run.json, the full result of a run, and the layout
// of a results folder (docs/outputs.md):
//
//	OUTPUT-DIR/<run-id>/
//	  run.json        full result: config, levels, verdicts, knee, telemetry, warnings
//	  scorecard.json  one auditable row
//	  levels.csv      one row per level
//	  requests.jsonl  one record per request (optionally gzip)
//	  report.html     self-contained report
//
// While a run is going, the folder also holds a level's spool file
// (requests-level-N-*.jsonl.spool) and a reserve of disk space
// (.gollm-bench-reserve, see Folder.Reserve). A spool is kept after a
// failed write, holding the whole records of its level that are not in
// requests.jsonl. Every file is written through an FS (Folder), whole or
// not at all; a failed write is a *WriteError naming the file and the
// space left.
package results
