package machine

import (
	"runtime"
	"testing"
	"testing/fstest"
)

const x86CPUInfo = `processor	: 0
vendor_id	: AuthenticAMD
cpu family	: 25
model		: 17
model name	: AMD EPYC 9654 96-Core Processor
stepping	: 1

processor	: 1
model name	: AMD EPYC 9654 96-Core Processor
`

// arm64 servers often have no "model name" at all.
const arm64CPUInfo = `processor	: 0
BogoMIPS	: 2000.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32
CPU implementer	: 0x41
CPU part	: 0xd0c
`

const piCPUInfo = `processor	: 0
model name	: 
Hardware	: BCM2835
Model		: Raspberry Pi 4 Model B Rev 1.4
`

func TestParseCPUModel(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"x86", x86CPUInfo, "AMD EPYC 9654 96-Core Processor"},
		{"arm64 without a name", arm64CPUInfo, ""},
		{"board: first of Hardware or Model", piCPUInfo, "BCM2835"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		if got := ParseCPUModel([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: ParseCPUModel = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestParseMemTotal(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"MemTotal:       24576000 kB\nMemFree:        1000 kB\n", 24576000 * 1024},
		{"MemFree: 1 kB\nMemTotal: 2 kB\n", 2048},
		{"MemTotal: 2 MB\n", 0},
		{"MemTotal: x kB\n", 0},
		{"MemTotal: 99999999999999999999 kB\n", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := ParseMemTotal([]byte(tt.in)); got != tt.want {
			t.Errorf("ParseMemTotal(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestParseOSRelease(t *testing.T) {
	tests := []struct{ in, want string }{
		{"NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n", "Debian GNU/Linux 12 (bookworm)"},
		{"PRETTY_NAME=Alpine\n", "Alpine"},
		{"PRETTY_NAME='Ubuntu 24.04'\n", "Ubuntu 24.04"},
		{"NAME=x\n", ""},
	}
	for _, tt := range tests {
		if got := ParseOSRelease([]byte(tt.in)); got != tt.want {
			t.Errorf("ParseOSRelease(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	root := fstest.MapFS{
		"proc/cpuinfo":              {Data: []byte(x86CPUInfo)},
		"proc/meminfo":              {Data: []byte("MemTotal:       24576000 kB\n")},
		"etc/os-release":            {Data: []byte("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")},
		"proc/sys/kernel/osrelease": {Data: []byte("6.1.0-18-amd64\n")},
	}
	got := describe(root)
	want := Info{
		CPUModel: "AMD EPYC 9654 96-Core Processor", LogicalCPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		MemoryBytes: 24576000 * 1024, OS: runtime.GOOS + "/" + runtime.GOARCH, OSRelease: "Debian GNU/Linux 12 (bookworm)",
		Kernel: "6.1.0-18-amd64", GoVersion: runtime.Version(),
	}
	if got != want {
		t.Errorf("describe = %+v\nwant       %+v", got, want)
	}
	// Without the files (another OS): what the runtime knows.
	if got := describe(fstest.MapFS{}); got.CPUModel != "" || got.MemoryBytes != 0 || got.LogicalCPUs < 1 || got.OS == "" {
		t.Errorf("describe(empty) = %+v", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{x86CPUInfo, arm64CPUInfo, piCPUInfo, "MemTotal: 1 kB\n", "PRETTY_NAME=\"a\\\"b\"\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseCPUModel(b)
		if m := ParseMemTotal(b); m%1024 != 0 {
			t.Errorf("MemTotal %d is not whole kB", m)
		}
		ParseOSRelease(b)
	})
}
