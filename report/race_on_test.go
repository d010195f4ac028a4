//go:build race

package report

import "testing"

// skipUnderRace skips a CPU-heavy test that runs in one goroutine: the race
// detector slows it several times over and has nothing to find there.
// `make norace` runs it without the detector.
func skipUnderRace(t testing.TB) {
	t.Helper()
	t.Skip("CPU-heavy and single-goroutine: make norace runs it without the race detector")
}
