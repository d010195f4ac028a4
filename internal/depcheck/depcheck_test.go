package depcheck

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEmbedderPullsNoTelemetryModules runs `go list -deps` over the
// embedder's packages and fails when one of them depends, directly or
// not, on a forbidden module, naming the package that does.
func TestEmbedderPullsNoTelemetryModules(t *testing.T) {
	forbidden := []string{"github.com/prometheus/", "google.golang.org/protobuf", "go.yaml.in/yaml", "gopkg.in/yaml", "gonum.org/v1/plot"}
	// The embedder's packages, and the modules (path prefixes) they must
	// not depend on.
	embedded := []string{"loadtest", "harness", "sweep", "mockserver", "openai", "workload"}
	// go test puts its own GOROOT/bin first on the test's PATH.
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	for _, pkg := range embedded {
		path := "github.com/gollm-bench/gollm-bench/" + pkg
		cmd := exec.Command(gotool, "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports ","}}`, path)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", path, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			importer, imports, _ := strings.Cut(line, " ")
			for _, imp := range strings.Split(imports, ",") {
				for _, bad := range forbidden {
					if strings.HasPrefix(imp, bad) && !isForbidden(importer, forbidden) {
						t.Errorf("%s depends on %s: %s imports %s; keep it behind an interface whose Prometheus/YAML/plot implementation lives in a package only the command line imports", pkg, bad, importer, imp)
					}
				}
			}
		}
	}
}

// isForbidden reports whether pkg is itself inside a forbidden module, so
// that only the module's first importer is named.
func isForbidden(pkg string, forbidden []string) bool {
	for _, bad := range forbidden {
		if strings.HasPrefix(pkg, bad) {
			return true
		}
	}
	return false
}
