package energy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrSharedGPU is returned by Sum when two readings measured the same GPU:
// their energies overlap and adding them would count it twice.
var ErrSharedGPU = errors.New("energy: two readings measured the same GPU")

// Sum combines readings of disjoint GPU sets taken over (about) the same
// window, such as the shards of a distributed run each metering the GPUs of
// its own node, into one Reading of all their GPUs.
//
// Energies add (GrossEnergyJ, EnergyJ, J; IdleBaselineW, W, since each
// reading subtracts its own GPUs' idle power). The window is the union of
// the readings' windows, and MeanW = GrossEnergyJ / window s. PeakW is the
// sum of the readings' peaks: an upper bound, since their peaks need not
// coincide. The sum is Valid and ResetDetected when every reading is Valid,
// or any reading saw a reset. Warnings are concatenated.
//
// Readings with no GPU (GPUCount 0) are skipped. Sum returns ErrSharedGPU,
// naming the GPU, when a GPU (by UUID, else host and index) appears in two
// readings: their energies overlap and no sum is right. It returns the zero
// Reading and no error when no reading has a GPU.
func Sum(readings ...Reading) (Reading, error) {
	var out Reading
	seen := map[string]int{} // GPU key → reading index
	names := map[string]bool{}
	var sources, drivers []string
	first := true
	for i, r := range readings {
		if r.GPUCount == 0 && len(r.GPUs) == 0 {
			continue
		}
		for _, g := range r.GPUs {
			k := gpuKey(g)
			if j, dup := seen[k]; dup {
				return Reading{}, fmt.Errorf("%w: GPU %s is in reading %d and reading %d", ErrSharedGPU, k, j, i)
			}
			seen[k] = i
			if g.Name != "" {
				names[g.Name] = true
			}
		}
		if first {
			out.Start, out.End, out.Valid = r.Start, r.End, true
			first = false
		}
		if r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		out.GPUs = append(out.GPUs, r.GPUs...)
		out.GPUCount += r.GPUCount
		out.GrossEnergyJ += r.GrossEnergyJ
		out.IdleBaselineW += r.IdleBaselineW
		out.EnergyJ += r.EnergyJ
		out.PeakW += r.PeakW
		out.ResetDetected = out.ResetDetected || r.ResetDetected
		out.Valid = out.Valid && r.Valid
		out.Warnings = append(out.Warnings, r.Warnings...)
		sources = appendNew(sources, r.Source)
		drivers = appendNew(drivers, r.Driver)
		if len(r.GPUs) == 0 && r.GPUName != "" {
			names[r.GPUName] = true
		}
	}
	if first {
		return Reading{}, nil
	}
	out.Source = strings.Join(sources, "+")
	out.Driver = strings.Join(drivers, ", ")
	out.GPUName = commonName(names)
	out.WindowSeconds = out.End.Sub(out.Start).Seconds()
	if out.WindowSeconds > 0 {
		out.MeanW = out.GrossEnergyJ / out.WindowSeconds
	}
	return out, nil
}

// gpuKey identifies a GPU across readings: its UUID, else host and index.
func gpuKey(g GPU) string {
	if g.UUID != "" {
		return g.UUID
	}
	return fmt.Sprintf("%s/%d", g.Host, g.Index)
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
