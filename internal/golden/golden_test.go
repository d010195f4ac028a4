package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports instead of
// failing the test that drives it.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Name() string        { return "TestSomething/sub case" }
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *recorder) Fatalf(f string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(f, args...))
}
func (r *recorder) failed() bool    { return len(r.errors)+len(r.fatals) > 0 }
func (r *recorder) message() string { return strings.Join(append(r.errors, r.fatals...), "\n") }
func setUpdate(t *testing.T, v bool) {
	old := *update
	*update = v
	t.Cleanup(func() { *update = old })
}
func newRecorder(t *testing.T) *recorder { return &recorder{TB: t} }
func writeFile(t *testing.T, path, content string) {
	must(t, os.WriteFile(path, []byte(content), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCheck: equal bytes pass; a difference fails with the file, a diff
// and the command to regenerate; a missing file stops the test and says
// how to create it. Not parallel: it sets the package's -update flag.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	writeFile(t, path, "a\nb\nc\n")

	r := newRecorder(t)
	Check(r, path, []byte("a\nb\nc\n"))
	if r.failed() {
		t.Errorf("equal content failed: %s", r.message())
	}

	r = newRecorder(t)
	Check(r, path, []byte("a\nB\nc\n"))
	msg := r.message()
	if len(r.errors) != 1 || len(r.fatals) != 0 {
		t.Fatalf("a difference gave errors %q, fatals %q; want one error", r.errors, r.fatals)
	}
	for _, want := range []string{path, "-b\n", "+B\n", "@@ line 1 @@", "go test ./internal/golden -run '^TestSomething$' -update"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}

	r = newRecorder(t)
	Check(r, filepath.Join(dir, "missing.golden"), []byte("x"))
	if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], "-update") || !strings.Contains(r.fatals[0], "missing.golden") {
		t.Errorf("a missing file gave fatals %q; want one naming the file and -update", r.fatals)
	}
}

// TestCheckUpdate: under -update, Check writes the file (and its folders)
// and passes, and a second Check without -update then passes.
func TestCheckUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "er", "out.golden")
	setUpdate(t, true)
	r := newRecorder(t)
	Check(r, path, []byte("new\n"))
	if r.failed() {
		t.Fatalf("-update failed: %s", r.message())
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new\n" {
		t.Fatalf("file holds %q, %v; want %q", b, err, "new\n")
	}
	*update = false
	r = newRecorder(t)
	CheckString(r, path, "new\n")
	if r.failed() {
		t.Errorf("after -update, the same output failed: %s", r.message())
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, want, got string
		out             string
	}{
		{"changed line", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"@@ line 2 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"added at end", "a\n", "a\nb\n", "@@ line 1 @@\n a\n+b\n"},
		{"removed at start", "a\nb\n", "b\n", "@@ line 1 @@\n-a\n b\n"},
		{"no final newline", "a\nb\n", "a\nb", "@@ line 1 @@\n a\n-b\n+b  (no newline at end)\n"},
		{"empty golden", "", "x\n", "@@ line 1 @@\n+x\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n13\n",
			"@@ line 1 @@\n-1\n+0\n 2\n 3\n 4\n@@ line 9 @@\n 9\n 10\n 11\n-12\n+13\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff([]byte(tt.want), []byte(tt.got)); got != tt.out {
				t.Errorf("Diff:\n%s\nwant:\n%s", got, tt.out)
			}
		})
	}
}

// TestDiffLong: a long diff is cut, with a count of what was left out.
func TestDiffLong(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "LINE %d\n", i)
	}
	d := Diff([]byte(a.String()), []byte(b.String()))
	if n := strings.Count(d, "\n"); n > diffMaxLines+2 {
		t.Errorf("diff of 1000 changed lines has %d lines, want at most %d", n, diffMaxLines+2)
	}
	if !strings.Contains(d, "... and 880 more changed lines") {
		t.Errorf("diff does not count what it left out:\n...%s", d[len(d)-200:])
	}
}
