// Package nvml reads the local NVIDIA driver through NVML
// (libnvidia-ml.so.1) as an energy.Source: every GPU's total-energy counter
// (mJ), power (W), temperature, SM clock and power limit.
//
// The library is loaded at run time with dlopen, without cgo
// (github.com/ebitengine/purego), so a CGO_ENABLED=0 build reads NVML where
// a driver is installed and says "libnvidia-ml.so.1 not found" where none
// is. Loading a shared library needs the system's dynamic loader, so a
// program that imports this package is linked dynamically against libc
// (libc.so.6, libdl.so.2, libpthread.so.0), even with CGO_ENABLED=0: it
// runs on any glibc Linux, but not on a musl system or in an image with no
// libc. That is why package energy does not import it: a program asks for
// NVML with energy.WithNVML(nvml.Open), and one that does not stays fully
// static.
//
// NVML is read on linux/amd64 and linux/arm64; elsewhere Open returns an
// error wrapping energy.ErrNVMLUnavailable that says so.
package nvml
