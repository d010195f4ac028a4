//go:build unix

package results

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive advisory lock (flock) on path without
// waiting, and returns the file holding it: the lock lasts until that
// file is closed or the process ends, whatever the way. ok is false when
// another process holds it, or the lock cannot be taken.
func lockFile(path string) (f *os.File, ok bool) {
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return f, true
}
