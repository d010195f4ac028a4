//go:build unix

package outputfs

import "golang.org/x/sys/unix"

// freeSpace is statfs's space available to unprivileged users, in bytes.
func freeSpace(path string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	// The conversions are needed: the field types differ between systems.
	return int64(st.Bavail) * int64(st.Bsize), nil
}
