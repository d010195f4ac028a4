package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gollm-bench/gollm-bench/internal/quota"
	"github.com/gollm-bench/gollm-bench/results"
)

// TestWriteFileFullDisk: a file that does not fit is not written at all
// (no half file, no temporary file left), an earlier version stays, and
// the error names the file and the space left.
func TestWriteFileFullDisk(t *testing.T) {
	dir := t.TempDir()
	fsys := quota.New(100)
	d := results.Folder{Path: dir, FS: fsys}
	if err := d.WriteFile("a.json", []byte("{\"old\": true}\n")); err != nil {
		t.Fatal(err)
	}
	err := d.WriteFile("a.json", []byte(strings.Repeat("x", 200)))
	var we *results.WriteError
	if !errors.As(err, &we) || !errors.Is(err, syscall.ENOSPC) || we.Path != filepath.Join(dir, "a.json") || we.Free != 86 {
		t.Fatalf("error %v (%+v), want a WriteError for %s with 86 B free", err, we, filepath.Join(dir, "a.json"))
	}
	if msg := err.Error(); msg != "writing "+we.Path+" failed: no space left on device (86 B free on its file system)" {
		t.Errorf("message %q", msg)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("folder holds %v, want only a.json", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.json")); string(b) != "{\"old\": true}\n" {
		t.Errorf("a.json = %q, want the earlier version", b)
	}
}

// TestReserve: the reserve takes its space until released, and a reserve
// the disk cannot hold is a WriteError that leaves no file.
func TestReserve(t *testing.T) {
	dir := t.TempDir()
	fsys := quota.New(10 << 10)
	d := results.Folder{Path: dir, FS: fsys}
	r, err := d.Reserve(8 << 10)
	if err != nil {
		t.Fatal(err)
	}
	if free, _ := fsys.FreeSpace(dir); free != 2<<10 {
		t.Errorf("free with the reserve: %d, want 2048", free)
	}
	if err := d.WriteFile(results.RunJSON, make([]byte, 4<<10)); err == nil {
		t.Error("4 KiB fitted beside an 8 KiB reserve on a 10 KiB disk")
	}
	if err := r.Release(); err != nil {
		t.Fatal(err)
	}
	if err := r.Release(); err != nil {
		t.Errorf("second release: %v", err)
	}
	if err := d.WriteFile(results.RunJSON, make([]byte, 4<<10)); err != nil {
		t.Errorf("after release: %v", err)
	}
	_, err = d.Reserve(8 << 10)
	var we *results.WriteError
	if !errors.As(err, &we) || we.Path != filepath.Join(dir, results.ReserveFile) {
		t.Errorf("reserve too big for the disk: %v, want a WriteError naming the reserve", err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.ReserveFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed reserve left its file: %v", err)
	}
	var nilReserve *results.Reserve
	if err := nilReserve.Release(); err != nil {
		t.Error(err)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 200 << 10: "200 KiB", 1258291: "1.2 MiB", 5 << 30: "5 GiB"} {
		if got := results.FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
