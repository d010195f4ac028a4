package nvml

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
)

// LibraryName is the file name of the driver's NVML library, as dlopen
// searches for it.
const LibraryName = "libnvidia-ml.so.1"

// status is an nvmlReturn_t.
type status int32

// The nvmlReturn_t values this package tells apart, and the few other
// constants of nvml.h it passes.
const (
	success          status = 0
	errNotSupported  status = 3
	errNoPermission  status = 4
	errDriverNotLoad status = 9
	errLibNotFound   status = 12
	errFuncNotFound  status = 13

	sensorGPU int32 = 0 // NVML_TEMPERATURE_GPU
	clockSM   int32 = 1 // NVML_CLOCK_SM

	driverVersionSize = 80 // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
	nameSize          = 96 // NVML_DEVICE_NAME_V2_BUFFER_SIZE
	uuidSize          = 96 // NVML_DEVICE_UUID_V2_BUFFER_SIZE
)

var statusNames = map[status]string{
	0: "SUCCESS", 1: "ERROR_UNINITIALIZED", 2: "ERROR_INVALID_ARGUMENT", 3: "ERROR_NOT_SUPPORTED",
	4: "ERROR_NO_PERMISSION", 5: "ERROR_ALREADY_INITIALIZED", 6: "ERROR_NOT_FOUND", 7: "ERROR_INSUFFICIENT_SIZE",
	8: "ERROR_INSUFFICIENT_POWER", 9: "ERROR_DRIVER_NOT_LOADED", 10: "ERROR_TIMEOUT", 11: "ERROR_IRQ_ISSUE",
	12: "ERROR_LIBRARY_NOT_FOUND", 13: "ERROR_FUNCTION_NOT_FOUND", 14: "ERROR_CORRUPTED_INFOROM", 15: "ERROR_GPU_IS_LOST",
	16: "ERROR_RESET_REQUIRED", 17: "ERROR_OPERATING_SYSTEM", 18: "ERROR_LIB_RM_VERSION_MISMATCH", 19: "ERROR_IN_USE",
	20: "ERROR_MEMORY", 21: "ERROR_NO_DATA", 27: "ERROR_NOT_READY", 28: "ERROR_GPU_NOT_FOUND", 999: "ERROR_UNKNOWN",
}

func (s status) String() string {
	if n, ok := statusNames[s]; ok {
		return "NVML_" + n
	}
	return fmt.Sprintf("nvmlReturn_t %d", int32(s))
}

// device is an nvmlDevice_t, an opaque handle.
type device uintptr

// library is the part of NVML this package calls. The dlopen binding
// implements it; tests use a fake. Units are NVML's: energy mJ, power mW,
// temperature °C, clock MHz.
type library interface {
	Init() status     // nvmlInit_v2
	Shutdown() status // nvmlShutdown
	DeviceCount() (int, status)
	DriverVersion() (string, status)
	Device(index int) (device, status)
	Name(device) (string, status)
	UUID(device) (string, status)
	TotalEnergy(device) (uint64, status) // mJ since the driver loaded
	PowerUsage(device) (uint32, status)  // mW
	Temperature(device) (uint32, status) // °C, GPU die
	SMClock(device) (uint32, status)     // MHz
	PowerLimit(device) (uint32, status)  // enforced, mW
}

// source is the energy.Source over an initialised library.
type source struct {
	lib    library
	devs   []device
	info   []energy.Sample // static identity per device
	driver string
	unload func() error // after Shutdown: dlclose; nil for fakes
}

// open initialises lib and lists its GPUs; on failure NVML is shut down.
func open(lib library) (*source, error) {
	if st := lib.Init(); st != success {
		return nil, initError(st)
	}
	s := &source{lib: lib}
	fail := func(err error) (*source, error) {
		lib.Shutdown()
		return nil, err
	}
	n, st := lib.DeviceCount()
	if st != success {
		return fail(fmt.Errorf("%w: counting GPUs: %v", energy.ErrNVMLUnavailable, st))
	}
	if n == 0 {
		return fail(fmt.Errorf("%w: NVML found no GPU", energy.ErrNVMLUnavailable))
	}
	if d, st := lib.DriverVersion(); st == success {
		s.driver = d
	}
	for i := range n {
		dev, st := lib.Device(i)
		if st != success {
			return fail(fmt.Errorf("%w: GPU %d: %v", energy.ErrNVMLUnavailable, i, st))
		}
		info := energy.Sample{Index: i}
		info.UUID, _ = lib.UUID(dev)
		info.Name, _ = lib.Name(dev)
		s.devs = append(s.devs, dev)
		s.info = append(s.info, info)
	}
	return s, nil
}

func initError(st status) error {
	switch st {
	case errLibNotFound:
		return notFound(LibraryName)
	case errDriverNotLoad:
		return fmt.Errorf("%w: the NVIDIA kernel driver is not loaded", energy.ErrNVMLUnavailable)
	case errNoPermission:
		return fmt.Errorf("%w: no permission to use the NVIDIA driver", energy.ErrNVMLUnavailable)
	}
	return fmt.Errorf("%w: nvmlInit: %v", energy.ErrNVMLUnavailable, st)
}

// notFound is the error of a host without the driver's library.
func notFound(lib string) error {
	return fmt.Errorf("%w: %s not found: no NVIDIA driver on this machine (read a GPU node remotely with a dcgm=URL or prometheus=URL energy source, or use none)", energy.ErrNVMLUnavailable, lib)
}

// Name is "nvml".
func (s *source) Name() string { return "nvml" }

// Read reads every GPU now: the energy counter (mJ), power (mW → W),
// temperature, SM clock and enforced power limit (mW → W). A GPU without an
// energy counter (before Volta) has HasEnergy false; any other failure to
// read the counter is an error.
func (s *source) Read(ctx context.Context, _ time.Time) (energy.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return energy.Snapshot{}, err
	}
	snap := energy.Snapshot{Driver: s.driver, GPUs: make([]energy.Sample, 0, len(s.devs))}
	for i, dev := range s.devs {
		g := s.info[i]
		if mj, st := s.lib.TotalEnergy(dev); st == success {
			g.EnergyMJ, g.HasEnergy = float64(mj), true
		} else if st != errNotSupported && st != errFuncNotFound {
			return energy.Snapshot{}, fmt.Errorf("nvml: GPU %d energy counter: %v", i, st)
		}
		if mw, st := s.lib.PowerUsage(dev); st == success {
			g.PowerW, g.HasPower = float64(mw)/1000, true
		}
		if c, st := s.lib.Temperature(dev); st == success {
			g.TempC = float64(c)
		}
		if mhz, st := s.lib.SMClock(dev); st == success {
			g.SMClockMHz = float64(mhz)
		}
		if mw, st := s.lib.PowerLimit(dev); st == success {
			g.PowerLimitW = float64(mw) / 1000
		}
		snap.GPUs = append(snap.GPUs, g)
	}
	return snap, nil
}

// Close shuts NVML down and unloads the library. Reads after Close fail.
func (s *source) Close() error {
	if st := s.lib.Shutdown(); st != success {
		return errors.New("nvml shutdown: " + st.String())
	}
	if s.unload != nil {
		return s.unload()
	}
	return nil
}
