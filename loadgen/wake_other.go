//go:build !linux

package loadgen

import "errors"

// newFineTimer reports that this platform has no fine timer: the pacer
// waits on the runtime's timers alone.
func newFineTimer() (fineTimer, error) {
	return nil, errors.New("loadgen: no fine timer on this platform")
}
