package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gollm-bench/gollm-bench/internal/golden"
	"github.com/gollm-bench/gollm-bench/results"
)

// goldenDir holds the golden files, at the module root (testdata/report/).
const goldenDir = "../testdata/report"

// otherMachineDir is a results folder written elsewhere, read back.
const otherMachineDir = "../testdata/report/run-from-another-machine"

func readOtherMachine(t *testing.T) results.Run {
	t.Helper()
	if *updateFixture {
		if err := os.MkdirAll(otherMachineDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := results.Write(otherMachineDir, anotherMachineRun(t)); err != nil {
			t.Fatal(err)
		}
	}
	run, err := results.Read(otherMachineDir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestGolden(t *testing.T) {
	t.Parallel()
	writers := []struct {
		ext   string
		write func(io.Writer, results.Run) error
	}{
		{"console.txt", WriteConsole},
		{"levels.csv", WriteLevelsCSV},
		{"run.json", WriteJSON},
	}
	runs := []struct {
		name string
		run  func(t *testing.T) results.Run
	}{
		{"sweep-knee-partial", func(t *testing.T) results.Run { return fixtureRun(t) }},
		{"run-from-another-machine", readOtherMachine},
	}
	for _, r := range runs {
		run := r.run(t)
		for _, w := range writers {
			t.Run(r.name+"/"+w.ext, func(t *testing.T) {
				var a, b bytes.Buffer
				if err := w.write(&a, run); err != nil {
					t.Fatal(err)
				}
				if err := w.write(&b, run); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatal("two renderings of the same run differ")
				}
				golden.Check(t, filepath.Join(goldenDir, r.name+"."+w.ext), a.Bytes())
			})
		}
	}
}

// TestReadBackRoundTrip checks that the JSON written for a run reads back
// to the same rendering (the re-render path of `gollm-bench report DIR`).
func TestReadBackRoundTrip(t *testing.T) {
	t.Parallel()
	run := fixtureRun(t)
	dir := t.TempDir()
	if err := results.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	back, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []func(io.Writer, results.Run) error{WriteConsole, WriteLevelsCSV, WriteJSON} {
		var a, b bytes.Buffer
		if err := w(&a, run); err != nil {
			t.Fatal(err)
		}
		if err := w(&b, back); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("rendering after a run.json round trip differs:\n%s\n---\n%s", a.String(), b.String())
		}
	}
}
