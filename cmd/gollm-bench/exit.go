package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/internal/redact"
)

// The exit codes, defined in package exitcode.
const (
	exitOK        = exitcode.OK
	exitFailure   = exitcode.Failure
	exitUsage     = exitcode.Usage
	exitSLO       = exitcode.SLOFailed
	exitPartial   = exitcode.Partial
	exitUndecided = exitcode.Undecided
	// exitRegression: `compare --fail-on` found a metric that regressed
	// beyond its limit with a significant change (the number of a violated
	// SLO: CI treats both as "worse than allowed").
	exitRegression = exitcode.SLOFailed
)

// exitError carries an exit code on an error. Errors without one are
// runtime failures (exit 1).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// usageErr marks err as bad input (exit 2).
func usageErr(err error) error { return &exitError{code: exitUsage, err: err} }

// withCode marks err (which may be nil for a silent exit) with code.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// exitCode prints err, if any, and maps it to the process exit code.
func exitCode(stderr io.Writer, cmd string, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, pflag.ErrHelp) {
		return exitOK
	}
	code := exitFailure
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	fmt.Fprintf(stderr, "gollm-bench %s: %s\n", cmd, redact.URLs(err.Error()))
	return code
}

// vcsRevision returns the VCS commit the binary was built from, if the Go
// toolchain stamped one.
func vcsRevision() string {
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
