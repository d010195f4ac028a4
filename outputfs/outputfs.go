package outputfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FS is the file system a results folder is written through. OSFS, the
// operating system's, is the default; a test gives one whose writes fail
// (after N bytes, say) to check what a full disk leaves behind.
// Implementations must be safe for concurrent use.
type FS interface {
	// OpenFile opens name as os.OpenFile does.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// Rename renames oldpath to newpath, replacing newpath, as os.Rename.
	Rename(oldpath, newpath string) error
	// Remove removes the file name, as os.Remove.
	Remove(name string) error
	// FreeSpace returns the bytes an unprivileged write may still add to
	// the file system that holds path, or an error where it cannot tell.
	FreeSpace(path string) (int64, error)
}

// File is an open file of an FS; *os.File implements it. A File is used
// by one goroutine at a time.
type File interface {
	io.Reader
	io.Writer
	io.Seeker
	io.Closer
	Name() string
	Truncate(size int64) error
	Sync() error
}

// OSFS is the operating system's file system.
type OSFS struct{}

// OpenFile calls os.OpenFile.
func (OSFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err // a nil File, not a nil *os.File in an interface
	}
	return f, nil
}

// Rename calls os.Rename.
func (OSFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove calls os.Remove.
func (OSFS) Remove(name string) error { return os.Remove(name) }

// FreeSpace asks the operating system (statfs on Unix) for the bytes
// available to this process on path's file system.
func (OSFS) FreeSpace(path string) (int64, error) { return freeSpace(path) }

// CreateTemp creates a new file in dir, opened for reading and writing
// with mode 0644 (before the umask), named by pattern with its last "*"
// replaced by a random number, as os.CreateTemp does.
func CreateTemp(fsys FS, dir, pattern string) (File, error) {
	if fsys == nil {
		fsys = OSFS{}
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for range 1000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, pattern), Err: fs.ErrExist}
}

// WriteError is a write into a results folder that failed, typically
// because the disk is full (ENOSPC). It names the file and says how much
// space its file system had left just after the failure.
type WriteError struct {
	Path string
	// Free is the space left on Path's file system after the failure, in
	// bytes; -1 when the file system cannot tell.
	Free int64
	Err  error
}

// NewWriteError describes err, a failed write to path, asking fsys (nil:
// OSFS) for the free space left.
func NewWriteError(fsys FS, path string, err error) *WriteError {
	if fsys == nil {
		fsys = OSFS{}
	}
	free, ferr := fsys.FreeSpace(filepath.Dir(path))
	if ferr != nil {
		free = -1
	}
	return &WriteError{Path: path, Free: free, Err: err}
}

// Error says which file, why, and the space left.
func (e *WriteError) Error() string {
	cause := e.Err
	if pe, ok := cause.(*fs.PathError); ok {
		cause = pe.Err // the path said is e.Path (a temporary file's is noise)
	}
	free := "free space unknown"
	if e.Free >= 0 {
		free = FormatBytes(e.Free) + " free on its file system"
	}
	return fmt.Sprintf("writing %s failed: %v (%s)", e.Path, cause, free)
}

// Unwrap returns the cause.
func (e *WriteError) Unwrap() error { return e.Err }

// FormatBytes spells n bytes for people: "812 B", "200 KiB", "1.2 MiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.4g %s", v, [...]string{"KiB", "MiB", "GiB", "TiB", "PiB"}[i])
}
