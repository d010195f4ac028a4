// Package flagnames holds a test that keeps library packages from naming
// command-line flags: a library error names the library's own field or
// option ("Limits.MaxDuration -1s: want >= 0"), and the CLI (package
// benchmark and cmd/gollm-bench) maps it to the flag the user typed. The
// package has no API.
package flagnames
