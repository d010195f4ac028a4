//go:build !linux || !(amd64 || arm64)

package nvml

import (
	"errors"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/energy"
)

func TestOpenUnsupportedOS(t *testing.T) {
	_, err := Open()
	if !errors.Is(err, energy.ErrNVMLUnavailable) || !strings.Contains(err.Error(), "NVML is not supported on this OS") {
		t.Fatalf("Open() error = %v", err)
	}
}
