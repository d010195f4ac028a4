//go:build !race

package report

import "testing"

// skipUnderRace does nothing without the race detector (race_on_test.go).
func skipUnderRace(testing.TB) {}
