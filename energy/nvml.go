//go:build cgo && linux

package energy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// OpenNVML loads the NVIDIA driver's NVML library (libnvidia-ml.so.1),
// initialises it and lists the GPUs. Without a driver it returns an error
// wrapping ErrNVMLUnavailable that says so. Close the Source (or the Meter
// over it) to shut NVML down.
func OpenNVML() (Source, error) { return openNVML(nvml.New()) }

type nvmlSource struct {
	lib    nvml.Interface
	devs   []nvml.Device
	info   []Sample // static identity per device
	driver string
}

func openNVML(lib nvml.Interface) (*nvmlSource, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, nvmlInitError(ret)
	}
	s := &nvmlSource{lib: lib}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		lib.Shutdown()
		return nil, fmt.Errorf("%w: counting GPUs: %v", ErrNVMLUnavailable, ret)
	}
	if d, ret := lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		s.driver = d
	}
	for i := range n {
		dev, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			lib.Shutdown()
			return nil, fmt.Errorf("%w: GPU %d: %v", ErrNVMLUnavailable, i, ret)
		}
		info := Sample{Index: i}
		info.UUID, _ = dev.GetUUID()
		info.Name, _ = dev.GetName()
		s.devs = append(s.devs, dev)
		s.info = append(s.info, info)
	}
	if n == 0 {
		lib.Shutdown()
		return nil, fmt.Errorf("%w: NVML found no GPU", ErrNVMLUnavailable)
	}
	return s, nil
}

func nvmlInitError(ret nvml.Return) error {
	switch ret {
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return fmt.Errorf("%w: libnvidia-ml.so.1 not found: no NVIDIA driver on this machine (use --energy dcgm=URL or prometheus=URL to read a GPU node remotely, or --energy none)", ErrNVMLUnavailable)
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return fmt.Errorf("%w: the NVIDIA kernel driver is not loaded", ErrNVMLUnavailable)
	case nvml.ERROR_NO_PERMISSION:
		return fmt.Errorf("%w: no permission to use the NVIDIA driver", ErrNVMLUnavailable)
	}
	return fmt.Errorf("%w: nvmlInit: %v", ErrNVMLUnavailable, ret)
}

func (s *nvmlSource) Name() string { return "nvml" }

// Read reads every GPU now: the energy counter (mJ), power (mW → W),
// temperature, SM clock and enforced power limit (mW → W).
func (s *nvmlSource) Read(ctx context.Context, _ time.Time) (Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{Driver: s.driver, GPUs: make([]Sample, 0, len(s.devs))}
	for i, dev := range s.devs {
		g := s.info[i]
		if mj, ret := dev.GetTotalEnergyConsumption(); ret == nvml.SUCCESS {
			g.EnergyMJ, g.HasEnergy = float64(mj), true
		} else if ret != nvml.ERROR_NOT_SUPPORTED {
			return Snapshot{}, fmt.Errorf("nvml: GPU %d energy counter: %v", i, ret)
		}
		if mw, ret := dev.GetPowerUsage(); ret == nvml.SUCCESS {
			g.PowerW, g.HasPower = float64(mw)/1000, true
		}
		if c, ret := dev.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
			g.TempC = float64(c)
		}
		if mhz, ret := dev.GetClockInfo(nvml.CLOCK_SM); ret == nvml.SUCCESS {
			g.SMClockMHz = float64(mhz)
		}
		if mw, ret := dev.GetEnforcedPowerLimit(); ret == nvml.SUCCESS {
			g.PowerLimitW = float64(mw) / 1000
		}
		snap.GPUs = append(snap.GPUs, g)
	}
	return snap, nil
}

// Close shuts NVML down.
func (s *nvmlSource) Close() error {
	if ret := s.lib.Shutdown(); ret != nvml.SUCCESS {
		return errors.New("nvml shutdown: " + ret.Error())
	}
	return nil
}
