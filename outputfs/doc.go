// Package outputfs is the file system a results folder and its record
// log are written through (FS, File; OSFS is the operating system's), and
// the error a failed write becomes (WriteError, which says how much space
// was left). It imports nothing of the module, so that the level runner
// (package harness) writes its record log without importing package
// results and the telemetry and scorecard code behind it; package results
// re-exports these names.
package outputfs
