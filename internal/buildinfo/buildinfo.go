// Package buildinfo says which build of gollm-bench is running: its
// version and commit, from the linker's stamps (see the Makefile), else
// from what the Go toolchain recorded in the binary.
package buildinfo

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// Version is the release: linkerVersion when the linker stamped one (not
// "dev" or ""), else the module version `go install module@version`
// records when it is a tagged release, else "dev".
func Version(linkerVersion string) string {
	if linkerVersion != "" && linkerVersion != "dev" {
		return linkerVersion
	}
	if info, ok := debug.ReadBuildInfo(); ok && isRelease(info.Main.Version) {
		return info.Main.Version
	}
	return "dev"
}

// Commit is the git commit the binary was built from: linkerCommit when
// the linker stamped one, else the Go toolchain's VCS stamp (12 hex
// digits, "-dirty" when the tree had changes), else "".
func Commit(linkerCommit string) string {
	if linkerCommit != "" {
		return linkerCommit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

// isRelease reports whether v is a tagged module version, not "(devel)",
// a pseudo-version (v0.0.0-20260616120000-e7a34af6c1d2) or a dirty one.
func isRelease(v string) bool {
	return strings.HasPrefix(v, "v") && !strings.Contains(v, "+") && !pseudoVersion.MatchString(v)
}

var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)
