//go:build unix

package benchmark

import "golang.org/x/sys/unix"

// openFileLimit returns the process's soft limit on open files, or 0 when
// it cannot be read or is unlimited. Go's os package raises the soft limit
// to the hard limit when the process starts (Go 1.19 and later, on Unix),
// so this is the hard limit unless the system caps it lower.
func openFileLimit() int {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || lim.Cur == unix.RLIM_INFINITY || lim.Cur > 1<<30 {
		return 0
	}
	return int(lim.Cur)
}
