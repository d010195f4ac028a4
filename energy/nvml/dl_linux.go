//go:build linux && (amd64 || arm64)

package nvml

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/ebitengine/purego"
	"github.com/gollm-bench/gollm-bench/energy"
)

// Open loads the driver's NVML (libnvidia-ml.so.1, found as dlopen finds
// it: LD_LIBRARY_PATH, the loader cache, the default directories),
// initialises it and lists the GPUs. Without a driver it returns an error
// wrapping energy.ErrNVMLUnavailable that says "libnvidia-ml.so.1 not
// found". Close the Source (or the energy.Meter over it) to shut NVML down.
func Open() (energy.Source, error) { return OpenLibrary(LibraryName) }

// OpenLibrary is Open with the library at path (a file name searched as
// dlopen does, or a path).
func OpenLibrary(path string) (energy.Source, error) {
	l, err := load(path)
	if err != nil {
		return nil, err
	}
	s, err := open(l)
	if err != nil {
		_ = l.unload()
		return nil, err
	}
	s.unload = l.unload
	return s, nil
}

// dl is NVML loaded with dlopen. A nil function is a symbol this driver
// does not export: its calls answer ERROR_FUNCTION_NOT_FOUND.
type dl struct {
	handle        uintptr
	init          func() status
	shutdown      func() status
	count         func(*uint32) status
	driver        func(*byte, uint32) status
	handleByIndex func(uint32, *uintptr) status
	name          func(uintptr, *byte, uint32) status
	uuid          func(uintptr, *byte, uint32) status
	energy        func(uintptr, *uint64) status
	power         func(uintptr, *uint32) status
	temperature   func(uintptr, int32, *uint32) status
	clock         func(uintptr, int32, *uint32) status
	limit         func(uintptr, *uint32) status
}

func load(path string) (*dl, error) {
	// dlerror's message is per thread: dlopen and dlerror must run on the
	// same one, or the reason is lost.
	runtime.LockOSThread()
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	runtime.UnlockOSThread()
	if err != nil {
		if strings.Contains(err.Error(), "No such file") {
			return nil, notFound(path)
		}
		return nil, fmt.Errorf("%w: %s cannot be loaded: %v", energy.ErrNVMLUnavailable, path, err)
	}
	l := &dl{handle: h}
	syms := []struct {
		name     string
		fn       any
		required bool
	}{
		{"nvmlInit_v2", &l.init, true},
		{"nvmlShutdown", &l.shutdown, true},
		{"nvmlDeviceGetCount_v2", &l.count, true},
		{"nvmlDeviceGetHandleByIndex_v2", &l.handleByIndex, true},
		{"nvmlDeviceGetTotalEnergyConsumption", &l.energy, true},
		{"nvmlSystemGetDriverVersion", &l.driver, false},
		{"nvmlDeviceGetName", &l.name, false},
		{"nvmlDeviceGetUUID", &l.uuid, false},
		{"nvmlDeviceGetPowerUsage", &l.power, false},
		{"nvmlDeviceGetTemperature", &l.temperature, false},
		{"nvmlDeviceGetClockInfo", &l.clock, false},
		{"nvmlDeviceGetEnforcedPowerLimit", &l.limit, false},
	}
	for _, s := range syms {
		sym, err := purego.Dlsym(h, s.name)
		if err != nil {
			if !s.required {
				continue
			}
			_ = purego.Dlclose(h)
			return nil, fmt.Errorf("%w: %s has no %s: not NVML, or a driver too old", energy.ErrNVMLUnavailable, path, s.name)
		}
		purego.RegisterFunc(s.fn, sym)
	}
	return l, nil
}

func (l *dl) unload() error {
	if err := purego.Dlclose(l.handle); err != nil {
		return fmt.Errorf("nvml: dlclose: %w", err)
	}
	return nil
}

func (l *dl) Init() status     { return l.init() }
func (l *dl) Shutdown() status { return l.shutdown() }

func (l *dl) DeviceCount() (int, status) {
	var n uint32
	st := l.count(&n)
	return int(n), st
}

func (l *dl) DriverVersion() (string, status) {
	if l.driver == nil {
		return "", errFuncNotFound
	}
	buf := make([]byte, driverVersionSize)
	st := l.driver(&buf[0], uint32(len(buf)))
	return cString(buf), st
}

func (l *dl) Device(index int) (device, status) {
	var h uintptr
	st := l.handleByIndex(uint32(index), &h)
	return device(h), st
}

func (l *dl) Name(d device) (string, status) { return l.str(l.name, d, nameSize) }
func (l *dl) UUID(d device) (string, status) { return l.str(l.uuid, d, uuidSize) }

func (l *dl) str(fn func(uintptr, *byte, uint32) status, d device, size int) (string, status) {
	if fn == nil {
		return "", errFuncNotFound
	}
	buf := make([]byte, size)
	st := fn(uintptr(d), &buf[0], uint32(len(buf)))
	return cString(buf), st
}

func (l *dl) TotalEnergy(d device) (uint64, status) {
	var mj uint64
	st := l.energy(uintptr(d), &mj)
	return mj, st
}

func (l *dl) PowerUsage(d device) (uint32, status) { return l.u32(l.power, d) }
func (l *dl) PowerLimit(d device) (uint32, status) { return l.u32(l.limit, d) }

func (l *dl) u32(fn func(uintptr, *uint32) status, d device) (uint32, status) {
	if fn == nil {
		return 0, errFuncNotFound
	}
	var v uint32
	st := fn(uintptr(d), &v)
	return v, st
}

func (l *dl) Temperature(d device) (uint32, status) { return l.u32arg(l.temperature, d, sensorGPU) }
func (l *dl) SMClock(d device) (uint32, status)     { return l.u32arg(l.clock, d, clockSM) }

func (l *dl) u32arg(fn func(uintptr, int32, *uint32) status, d device, arg int32) (uint32, status) {
	if fn == nil {
		return 0, errFuncNotFound
	}
	var v uint32
	st := fn(uintptr(d), arg, &v)
	return v, st
}

// cString is buf up to its first NUL.
func cString(buf []byte) string {
	if i := strings.IndexByte(string(buf), 0); i >= 0 {
		return string(buf[:i])
	}
	return string(buf)
}
