// Package golden compares what a test produced with a golden file kept
// under testdata/, and rewrites the file instead when the test binary runs
// with -update:
//
//	func TestConsole(t *testing.T) {
//		var buf bytes.Buffer
//		WriteConsole(&buf, fixture)
//		golden.Check(t, filepath.Join("testdata", "console.golden"), buf.Bytes())
//	}
//
//	go test ./report -run '^TestConsole$' -update   # accept the new output
//
// Every package whose tests keep golden files uses this package, so the
// one -update flag is defined once, and `make golden` (go test -update in
// each package that imports golden) regenerates all of them. A test binary
// that does not import golden has no -update flag and refuses it, which is
// why `go test ./... -update` rewrites every golden file but also reports
// "flag provided but not defined" for the other packages. A mismatch reports the file, a line diff and the
// command that regenerates it. Golden files are meant to be deterministic:
// fixed seeds, fixed clocks, sorted keys, and masked figures where the
// output depends on the machine.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// update is the -update flag of every test binary that imports golden.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the tests produce, instead of comparing")

// Update reports whether the test binary runs with -update, for a test
// that rewrites a golden file through its own writer (one that checks what
// it wrote, for example) rather than through [Check].
func Update() bool { return *update }

// Check compares got with the golden file at path (relative to the test's
// package folder, as tests run there). Under -update it writes got to path
// instead, creating the folders it needs, and the test passes. A missing
// file stops the test; a difference fails it with a line diff and the
// command that regenerates the file. Check is safe to call from parallel
// tests that use different paths.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, got) {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		t.Logf("golden: wrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v\n(create it with: %s)", err, Command(t))
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("golden: output differs from %s (- golden, + got):\n%s\nIf the change is intended, regenerate it with: %s",
			path, Diff(want, got), Command(t))
	}
}

// CheckString is [Check] for a string.
func CheckString(t testing.TB, path, got string) {
	t.Helper()
	Check(t, path, []byte(got))
}

// Command returns the go test command that reruns t's top-level test with
// -update from the module root, for example
// "go test ./report -run '^TestGolden$' -update". Outside a module it names
// the package as ".".
func Command(t testing.TB) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("go test %s -run '^%s$' -update", packageDir(), regexp.QuoteMeta(name))
}

// packageDir is the current folder relative to the module root, as a go
// package pattern ("./cmd/gollm-bench"), or "." when there is no go.mod
// above it.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for root := wd; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			rel, err := filepath.Rel(root, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		up := filepath.Dir(root)
		if up == root {
			return "."
		}
		root = up
	}
}

// diffContext is the number of unchanged lines shown around a change, and
// diffMaxLines the most lines a diff prints.
const (
	diffContext  = 3
	diffMaxLines = 120
)

// Diff returns a line diff from want to got: changed lines marked "-"
// (only in want) and "+" (only in got), with a few unchanged lines around
// each change and "@@ line N @@" giving the line in want where a hunk
// starts. A line that ends the text without a newline says so. Long diffs
// are cut after a hundred-odd lines, with a count of what was left out.
func Diff(want, got []byte) string {
	a, b := splitLines(want), splitLines(got)
	// The common prefix and suffix are unchanged; the middle is diffed.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]op, 0, len(a)+len(b))
	for i := range pre {
		ops = append(ops, op{' ', a[i], i})
	}
	ops = append(ops, middle(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	for i := len(a) - suf; i < len(a); i++ {
		ops = append(ops, op{' ', a[i], i})
	}
	return render(ops)
}

// op is one line of a diff: kind ' ', '-' or '+', the line, and its index
// in want (for '+', the index of the next line of want).
type op struct {
	kind byte
	line string
	at   int
}

// middle diffs the changed middle of two texts by longest common
// subsequence; when that table would be too big, it shows every line of a
// removed and every line of b added. off is a's first index in want.
func middle(a, b []string, off int) []op {
	var ops []op
	if len(a)*len(b) > 4_000_000 {
		for i, l := range a {
			ops = append(ops, op{'-', l, off + i})
		}
		for _, l := range b {
			ops = append(ops, op{'+', l, off + len(a)})
		}
		return ops
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:], in one slice of (len(a)+1)*(len(b)+1) entries.
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], off + i})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			ops = append(ops, op{'-', a[i], off + i})
			i++
		default:
			ops = append(ops, op{'+', b[j], off + i})
			j++
		}
	}
	return ops
}

// render prints the changed lines of ops with diffContext lines around
// them.
func render(ops []op) string {
	show := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind == ' ' {
			continue
		}
		for c := max(k-diffContext, 0); c <= min(k+diffContext, len(ops)-1); c++ {
			show[c] = true
		}
	}
	var sb strings.Builder
	printed, left := 0, 0
	for k, o := range ops {
		if !show[k] {
			continue
		}
		if printed >= diffMaxLines {
			if o.kind != ' ' {
				left++
			}
			continue
		}
		if k == 0 || !show[k-1] {
			fmt.Fprintf(&sb, "@@ line %d @@\n", o.at+1)
		}
		line, nl := strings.CutSuffix(o.line, "\n")
		sb.WriteByte(o.kind)
		sb.WriteString(line)
		if !nl {
			sb.WriteString("  (no newline at end)")
		}
		sb.WriteByte('\n')
		printed++
	}
	if left > 0 {
		fmt.Fprintf(&sb, "... and %d more changed lines\n", left)
	}
	return sb.String()
}

// splitLines splits s after each newline, keeping the newlines, so that a
// missing final newline is a difference.
func splitLines(s []byte) []string {
	lines := strings.SplitAfter(string(s), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
