package results

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

// ReserveFile is the name of the file Folder.Reserve writes.
const ReserveFile = ".gollm-bench-reserve"

// Reserve is disk space set aside in a results folder (see Folder.Reserve).
type Reserve struct {
	fsys FS
	path string
	size int64 // bytes held
	// lock holds an advisory lock on the reserve while the run lives
	// (nil where none could be taken), so that RemoveStaleReserves can
	// tell the reserve of a killed run from that of a running one.
	lock *os.File
}

// Reserve sets size bytes aside in d for the files a run writes at its
// end, by writing them to a file that Release removes: a run whose records
// fill the disk can then still write run.json and scorecard.json. The
// bytes are random, so that a compressing file system cannot shrink them.
// The error is a *WriteError when the space is not there.
func (d Folder) Reserve(size int64) (*Reserve, error) {
	fsys := d.FileSystem()
	path := filepath.Join(d.Path, ReserveFile)
	f, err := fsys.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	if _, err := appendReserve(f, size); err != nil {
		_ = fsys.Remove(path)
		return nil, NewWriteError(fsys, path, err)
	}
	r := &Reserve{fsys: fsys, path: path, size: size}
	if _, real := fsys.(OSFS); real {
		r.lock, _ = lockFile(path)
	}
	return r, nil
}

// RemoveStaleReserves removes the reserves (ReserveFile) that runs killed
// before they could give them back (kill -9, a power cut) left in the run
// folders under outputDir, and returns their paths. A reserve is stale
// when no process holds its lock: a run holds it from Folder.Reserve to
// Release, and the system drops it when the process dies. Where locks are
// not available nothing is removed.
func RemoveStaleReserves(outputDir string) []string {
	paths, _ := filepath.Glob(filepath.Join(outputDir, "*", ReserveFile))
	var removed []string
	for _, p := range paths {
		f, ok := lockFile(p)
		if !ok {
			continue // a live run's, or no way to tell
		}
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
		f.Close()
	}
	return removed
}

// appendReserve writes n random bytes to f, syncs and closes it, and
// returns the bytes written even when it fails.
func appendReserve(f File, n int64) (int64, error) {
	data := make([]byte, n)
	var seed [32]byte
	seed[0] = 1
	_, _ = rand.NewChaCha8(seed).Read(data)
	w, err := f.Write(data)
	if err == nil && w < len(data) {
		err = io.ErrShortWrite
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return int64(w), err
}

// Size returns the bytes the reserve holds (0 once released).
func (r *Reserve) Size() int64 {
	if r == nil || r.path == "" {
		return 0
	}
	return r.size
}

// Grow makes the reserve hold at least size bytes, so that the outputs of
// a run that grew (run.json takes tens of KiB a level) still fit when the
// disk fills. The bytes written before a failure stay reserved; the error
// is then a *WriteError naming the reserve and the space left. A nil or
// released Reserve grows nothing.
func (r *Reserve) Grow(size int64) error {
	if r == nil || r.path == "" || size <= r.size {
		return nil
	}
	f, err := r.fsys.OpenFile(r.path, os.O_WRONLY, 0o644)
	if err != nil {
		return NewWriteError(r.fsys, r.path, err)
	}
	if _, err := f.Seek(r.size, io.SeekStart); err != nil {
		_ = f.Close()
		return NewWriteError(r.fsys, r.path, err)
	}
	n, err := appendReserve(f, size-r.size)
	r.size += n
	if err != nil {
		return NewWriteError(r.fsys, r.path, err)
	}
	return nil
}

// Release removes the reserve, giving its space back. A nil Reserve, or
// one already released, releases nothing.
func (r *Reserve) Release() error {
	if r == nil || r.path == "" {
		return nil
	}
	err := r.fsys.Remove(r.path)
	r.path = ""
	if r.lock != nil {
		r.lock.Close()
		r.lock = nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}
