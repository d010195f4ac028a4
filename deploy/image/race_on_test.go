//go:build race

package main

import "testing"

// skipUnderRace skips a CPU-heavy test whose work is compressing and
// hashing: building two images of a 20 MB binary takes a minute and a half
// under the race detector, in gzip and SHA-256 rather than in our code.
// `make norace` runs it without the detector.
func skipUnderRace(t testing.TB) {
	t.Helper()
	t.Skip("CPU-heavy (gzip and SHA-256 of two images): make norace runs it without the race detector")
}
