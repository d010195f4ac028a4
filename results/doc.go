// Package results defines run.json, the full result of a run, and the
// layout of a results folder (SPEC §10):
//
//	results/<run-id>/
//	  run.json        full result: config, levels, verdicts, knee, telemetry, warnings
//	  scorecard.json  one auditable row
//	  levels.csv      one row per level
//	  requests.jsonl  one record per request (optionally gzip)
//	  report.html     self-contained report
package results
