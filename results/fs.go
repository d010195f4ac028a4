package results

import (
	"errors"
	"fmt"
	"github.com/gollm-bench/gollm-bench/outputfs"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// The file system a results folder is written through is defined in
// package outputfs, which the level runner imports without this
// package; these names keep it part of results' API.
type (
	// FS is the file system a results folder is written through (outputfs.FS).
	FS = outputfs.FS
	// File is an open file of an FS (outputfs.File).
	File = outputfs.File
	// OSFS is the operating system's file system (outputfs.OSFS).
	OSFS = outputfs.OSFS
	// WriteError is a write into a results folder that failed
	// (outputfs.WriteError).
	WriteError = outputfs.WriteError
)

// CreateTemp creates a new file in dir, as os.CreateTemp does, through
// fsys (outputfs.CreateTemp).
func CreateTemp(fsys FS, dir, pattern string) (File, error) {
	return outputfs.CreateTemp(fsys, dir, pattern)
}

// NewWriteError describes err, a failed write to path
// (outputfs.NewWriteError).
func NewWriteError(fsys FS, path string, err error) *WriteError {
	return outputfs.NewWriteError(fsys, path, err)
}

// FormatBytes spells n bytes for people: "812 B", "200 KiB", "1.2 MiB"
// (outputfs.FormatBytes).
func FormatBytes(n int64) string { return outputfs.FormatBytes(n) }

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
