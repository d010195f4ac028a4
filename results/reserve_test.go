package results

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestRemoveStaleReserves: the reserve of a run killed before it could
// give it back (no process holds its lock) is removed; that of a live
// run is kept (issue 25 item 9: a 256 KiB .gollm-bench-reserve was left
// behind by kill -9).
func TestRemoveStaleReserves(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no flock: nothing is removed there")
	}
	out := t.TempDir()
	live, err := Folder{Path: mkdir(t, out, "live")}.Reserve(4 << 10)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Release()
	// A killed run's reserve: the file, with no lock held.
	stale := filepath.Join(mkdir(t, out, "killed"), ReserveFile)
	if err := os.WriteFile(stale, make([]byte, 4<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	removed := RemoveStaleReserves(out)
	if len(removed) != 1 || removed[0] != stale {
		t.Errorf("removed %v, want only %s", removed, stale)
	}
	if _, err := os.Stat(filepath.Join(out, "live", ReserveFile)); err != nil {
		t.Errorf("the live run's reserve is gone: %v", err)
	}
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	p := filepath.Join(parent, name)
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
