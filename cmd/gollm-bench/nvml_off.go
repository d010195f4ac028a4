//go:build nonvml

package main

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/energy"
)

// openNVML reports that this build has no NVML: -tags nonvml gives a fully
// static binary (no libc, hence no dlopen), as in the container image.
func openNVML() (energy.Source, error) {
	return nil, fmt.Errorf("%w: NVML not in this build (a fully static build, -tags nonvml, as in the container image); use --energy dcgm=URL or prometheus=URL, or the bin/gollm-bench of `make build`", energy.ErrNVMLUnavailable)
}
