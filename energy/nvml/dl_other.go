//go:build !linux || !(amd64 || arm64)

package nvml

import (
	"fmt"
	"runtime"

	"github.com/gollm-bench/gollm-bench/energy"
)

// Open reports that NVML is not read on this OS or architecture: it is
// loaded on linux/amd64 and linux/arm64 only. Read a GPU node remotely
// with a dcgm=URL or prometheus=URL energy source (energy.Parse).
func Open() (energy.Source, error) { return OpenLibrary(LibraryName) }

// OpenLibrary is Open with the library at path; here it fails as Open does.
func OpenLibrary(string) (energy.Source, error) {
	return nil, fmt.Errorf("%w: NVML is not supported on this OS (%s/%s): it is read on linux/amd64 and linux/arm64; read the GPU node remotely with a dcgm=URL or prometheus=URL energy source", energy.ErrNVMLUnavailable, runtime.GOOS, runtime.GOARCH)
}
