//go:build linux && race

package rxstamp

import "syscall"

// raceAcquireIO tells the race detector that a read happened on fd, as
// syscall.Read does for every read: the detector orders each read after
// the writes before it (in a test, a server's in the same process), which
// a raw recvmsg system call would hide from it. An empty read returns at
// once; only race builds make it.
func raceAcquireIO(fd uintptr) { _, _ = syscall.Read(int(fd), nil) }
