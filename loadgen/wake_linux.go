package loadgen

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// timerfd is a fineTimer on a Linux timerfd (timerfd_create(2)) opened
// non-blocking, so that the runtime's poller parks the reading goroutine
// instead of a thread, and wakes it when the kernel's high-resolution
// timer expires: no spinning, and no P held while it sleeps.
type timerfd struct {
	fd   int // owned by f; kept to re-arm it without f.Fd(), which would make it blocking
	f    *os.File
	buf  [8]byte
	spec unix.ItimerSpec
}

func newFineTimer() (fineTimer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &timerfd{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}, nil
}

// sleep arms the timer d + fineSlack from now (re-arming also clears an
// expiry left from an earlier sleep) and reads it, with a read deadline of
// d on the runtime timer beside it. Whichever fires first ends the sleep;
// if the deadline does, the timer is disarmed before it expires, so that
// it wakes no thread. Both fire after d, so the sleep is never short.
func (t *timerfd) sleep(d time.Duration) error {
	t.spec.Value = unix.NsecToTimespec(int64(d + fineSlack))
	if err := unix.TimerfdSettime(t.fd, 0, &t.spec, nil); err != nil {
		return err
	}
	if err := t.f.SetReadDeadline(time.Now().Add(d)); err != nil {
		return err
	}
	_, err := t.f.Read(t.buf[:])
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.spec.Value = unix.Timespec{}
		return unix.TimerfdSettime(t.fd, 0, &t.spec, nil)
	}
	return err
}

func (t *timerfd) close() error { return t.f.Close() }
