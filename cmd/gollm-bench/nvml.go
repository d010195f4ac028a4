//go:build !nonvml

package main

import (
	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/energy/nvml"
)

// openNVML opens the local driver's NVML for --energy nvml and auto. It is
// loaded with dlopen, so this build links libc dynamically; build with
// -tags nonvml for a fully static binary without NVML (the image does).
func openNVML() (energy.Source, error) { return nvml.Open() }
