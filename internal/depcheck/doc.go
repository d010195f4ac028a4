// Package depcheck holds no code, only a test: the packages an embedder
// needs to run a level or a sweep (loadtest, harness and those below
// them, and mockserver) must not pull in the Prometheus, protobuf, YAML or
// plotting modules that telemetry, peer files and reports need. Those are
// imported only by the command line's layers (benchmark, telemetry,
// results, report).
package depcheck
