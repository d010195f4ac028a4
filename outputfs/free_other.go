//go:build !unix

package outputfs

import "errors"

// freeSpace is unknown where there is no statfs.
func freeSpace(string) (int64, error) {
	return 0, errors.New("free space unknown on this platform")
}
