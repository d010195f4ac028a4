//go:build !cgo || !linux

package energy

import (
	"fmt"
	"runtime"
)

// OpenNVML reports that NVML is not in this build: go-nvml needs cgo and
// Linux. Read energy remotely with --energy dcgm=URL or prometheus=URL.
func OpenNVML() (Source, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: NVML not in this build (NVML is read on linux only)", ErrNVMLUnavailable)
	}
	return nil, fmt.Errorf("%w: NVML not in this build (built with CGO_ENABLED=0); use --energy dcgm=URL or prometheus=URL, or rebuild with cgo", ErrNVMLUnavailable)
}
