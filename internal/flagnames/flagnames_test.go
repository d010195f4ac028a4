package flagnames

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// exempt lists the folders, relative to the module root, whose non-test
// Go files may name flags: the CLI (cmd), the settings named after their
// flags by design (benchmark), scripts and programs that are not the
// library (bench, deploy, examples), the redaction of "--api-key" and
// "--header" arguments (internal/redact), and the command line's own
// vocabulary (cmdline: configuration files keyed by flag name, the peer
// tools' flag spellings, "did you mean", completion).
var exempt = []string{"benchmark", "cmd", "cmdline", "bench", "deploy", "examples", "internal/redact"}

// flag matches a long flag: two dashes and a lowercase letter.
var flag = regexp.MustCompile(`--[a-z]`)

// TestLibraryNamesNoFlags fails when a string literal in a non-test Go
// file of a library package names a command-line flag.
func TestLibraryNamesNoFlags(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			// The go tool skips testdata, vendor and names starting with
			// "." or "_" too.
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || isExempt(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if ok && lit.Kind == token.STRING && flag.MatchString(lit.Value) {
				p := fset.Position(lit.Pos())
				t.Errorf("%s:%d: string literal names a flag: %s (name the library's field or option; let benchmark or cmd map it to the flag)", rel, p.Line, lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no Go files scanned")
	}
}

func isExempt(rel string) bool {
	for _, e := range exempt {
		if rel == e || strings.HasPrefix(rel, e+"/") {
			return true
		}
	}
	return false
}
