//go:build !cgo || !linux

package energy

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestNVMLNotInBuild(t *testing.T) {
	_, err := Parse("nvml")
	if !errors.Is(err, ErrNVMLUnavailable) || !strings.Contains(err.Error(), "--energy nvml") {
		t.Fatalf("error = %v", err)
	}
	if runtime.GOOS == "linux" && !strings.Contains(err.Error(), "NVML not in this build (built with CGO_ENABLED=0)") {
		t.Errorf("error = %v, want the CGO_ENABLED=0 explanation", err)
	}
	m, err := Parse("auto")
	if err != nil {
		t.Fatal(err)
	}
	if r := measure(t, m); !hasWarning(r.Warnings, "energy_unavailable") {
		t.Errorf("auto without NVML: warnings %v", r.Warnings)
	}
}
