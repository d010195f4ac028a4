package machine

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Info is the machine a run's load came from. Fields the platform does not
// tell are zero and omitted from JSON (CPU model and memory are read on
// Linux only). Info is a plain value, safe for concurrent reads.
type Info struct {
	// CPUModel is the processor's name, e.g. "AMD EPYC 9654 96-Core
	// Processor" (/proc/cpuinfo "model name").
	CPUModel string `json:"cpu_model,omitempty"`
	// LogicalCPUs is the number of logical CPUs the process can use
	// (runtime.NumCPU: cores × threads, within the CPU affinity mask).
	LogicalCPUs int `json:"logical_cpus"`
	// GOMAXPROCS is how many of them Go schedules on (it honours a
	// container's CPU limit).
	GOMAXPROCS int `json:"gomaxprocs"`
	// MemoryBytes is the machine's total memory, bytes (/proc/meminfo MemTotal).
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
	// OS is GOOS/GOARCH, e.g. "linux/amd64".
	OS string `json:"os"`
	// OSRelease is the distribution, e.g. "Debian GNU/Linux 12 (bookworm)"
	// (/etc/os-release PRETTY_NAME).
	OSRelease string `json:"os_release,omitempty"`
	// Kernel is the kernel release, e.g. "6.1.0-18-amd64".
	Kernel string `json:"kernel,omitempty"`
	// GoVersion is the Go toolchain the binary was built with, e.g. "go1.26.0".
	GoVersion string `json:"go_version"`
	// TargetRTT is the TCP connect time to the target; nil when not measured.
	TargetRTT *RTT `json:"target_rtt,omitempty"`
}

// Describe returns this machine's Info (without TargetRTT).
func Describe() Info { return describe(os.DirFS("/")) }

// describe reads the files of root, a file system rooted at "/".
func describe(root fs.FS) Info {
	info := Info{
		LogicalCPUs: runtime.NumCPU(),
		GOMAXPROCS:  runtime.GOMAXPROCS(0),
		OS:          runtime.GOOS + "/" + runtime.GOARCH,
		GoVersion:   runtime.Version(),
	}
	if b, err := fs.ReadFile(root, "proc/cpuinfo"); err == nil {
		info.CPUModel = ParseCPUModel(b)
	}
	if b, err := fs.ReadFile(root, "proc/meminfo"); err == nil {
		info.MemoryBytes = ParseMemTotal(b)
	}
	if b, err := fs.ReadFile(root, "etc/os-release"); err == nil {
		info.OSRelease = ParseOSRelease(b)
	}
	if b, err := fs.ReadFile(root, "proc/sys/kernel/osrelease"); err == nil {
		info.Kernel = strings.TrimSpace(string(b))
	}
	return info
}

// ParseCPUModel returns the first processor name in a /proc/cpuinfo: the
// "model name" line (x86 and most others), else "Model" or "Hardware"
// (some ARM boards); "" when there is none.
func ParseCPUModel(cpuinfo []byte) string {
	var fallback string
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch {
		case val == "":
		case key == "model name":
			return val
		case (key == "Model" || key == "Hardware") && fallback == "":
			fallback = val
		}
	}
	return fallback
}

// ParseMemTotal returns the MemTotal of a /proc/meminfo in bytes (the file
// counts kB of 1,024 bytes); 0 when it is absent or malformed.
func ParseMemTotal(meminfo []byte) uint64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil || kb > 1<<54 {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// ParseOSRelease returns PRETTY_NAME from an os-release file, unquoted;
// "" when absent.
func ParseOSRelease(osRelease []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(osRelease))
	for sc.Scan() {
		val, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "PRETTY_NAME=")
		if !ok {
			continue
		}
		if u, err := strconv.Unquote(val); err == nil {
			return u
		}
		return strings.Trim(val, `"'`)
	}
	return ""
}
