package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/internal/termtext"
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
func usageErr(err error) error { return &exitError{code: exitcode.Usage, err: err} }

// withCode marks err (which may be nil for a silent exit) with code.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// exitCode prints err, if any, and maps it to the process exit code.
func exitCode(stderr io.Writer, cmd string, err error) int {
	if err == nil {
		return exitcode.OK
	}
	if errors.Is(err, pflag.ErrHelp) {
		return exitcode.OK
	}
	code := exitcode.Failure
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	fmt.Fprintf(stderr, "gollm-bench %s: %s\n", cmd, termtext.EscapeLines(redact.URLs(err.Error())))
	return code
}
