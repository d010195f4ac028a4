// Package quota is a outputfs.FS for tests: the operating system's file
// system with a byte quota over the files written through it, so that a
// test can fill the "disk" after N bytes and check what a run leaves
// behind. A write that would pass the quota writes the bytes that fit and
// fails with ENOSPC, as a full disk does.
package quota

import (
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/gollm-bench/gollm-bench/outputfs"
)

// FS is a outputfs.FS whose files may hold at most Limit bytes in all. It
// is safe for concurrent use.
type FS struct {
	mu    sync.Mutex
	limit int64
	sizes map[string]int64 // current size of every file created through FS
	fails int
}

// New returns an FS with a quota of limit bytes.
func New(limit int64) *FS { return &FS{limit: limit, sizes: map[string]int64{}} }

// Failures returns how many writes have failed for want of space.
func (q *FS) Failures() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fails
}

func (q *FS) used() int64 {
	var n int64
	for _, s := range q.sizes {
		n += s
	}
	return n
}

// OpenFile opens name on the real file system; writes through the
// returned File count against the quota.
func (q *FS) OpenFile(name string, flag int, perm fs.FileMode) (outputfs.File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	q.mu.Lock()
	q.sizes[name] = st.Size()
	q.mu.Unlock()
	return &file{f: f, q: q}, nil
}

// Rename renames on the real file system and moves the file's account.
func (q *FS) Rename(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	q.mu.Lock()
	q.sizes[newpath] = q.sizes[oldpath]
	delete(q.sizes, oldpath)
	q.mu.Unlock()
	return nil
}

// Remove removes on the real file system and frees the file's bytes.
func (q *FS) Remove(name string) error {
	if err := os.Remove(name); err != nil {
		return err
	}
	q.mu.Lock()
	delete(q.sizes, name)
	q.mu.Unlock()
	return nil
}

// FreeSpace returns the bytes left under the quota.
func (q *FS) FreeSpace(string) (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return max(q.limit-q.used(), 0), nil
}

// file is a outputfs.File counting its writes against the quota. It does
// not embed *os.File, whose ReadFrom and WriteString would bypass Write.
type file struct {
	f *os.File
	q *FS
}

func (f *file) Read(p []byte) (int, error)                { return f.f.Read(p) }
func (f *file) Seek(off int64, whence int) (int64, error) { return f.f.Seek(off, whence) }
func (f *file) Close() error                              { return f.f.Close() }
func (f *file) Name() string                              { return f.f.Name() }
func (f *file) Sync() error                               { return f.f.Sync() }

// Write writes the part of p that fits under the quota; if that is not
// all of p, it fails with ENOSPC.
func (f *file) Write(p []byte) (int, error) {
	off, err := f.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	q := f.q
	q.mu.Lock()
	defer q.mu.Unlock()
	size := q.sizes[f.Name()]
	free := q.limit - q.used()
	fit := len(p)
	if grow := off + int64(len(p)) - size; grow > free {
		fit = max(len(p)-int(grow-max(free, 0)), 0)
	}
	n, err := f.f.Write(p[:fit])
	q.sizes[f.Name()] = max(size, off+int64(n))
	if err == nil && fit < len(p) {
		q.fails++
		err = &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return n, err
}

// Truncate truncates the file and gives back the bytes cut.
func (f *file) Truncate(size int64) error {
	if err := f.f.Truncate(size); err != nil {
		return err
	}
	f.q.mu.Lock()
	f.q.sizes[f.Name()] = size
	f.q.mu.Unlock()
	return nil
}
