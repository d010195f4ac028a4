//go:build !unix

package benchmark

// openFileLimit returns 0: no open-file limit is known on this platform.
func openFileLimit() int { return 0 }
