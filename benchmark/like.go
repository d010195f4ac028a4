package benchmark

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gollm-bench/gollm-bench/compare"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/peer"
)

// ApplyLike reads the result at path (Settings.Like: a peer tool's result
// or a gollm-bench results folder) and sets, through set, every flag of its
// load (peer.Result.Load) that given does not report as given on the
// command line; flags are named without their dashes, as pflag's
// FlagSet.Changed and FlagSet.Set take them. What the load cannot
// reproduce is refused, naming the result's field and the flags that
// replace it, unless one of them was given. It says on log what it set,
// and returns the load's notes as warnings (peer.WarnNotReproduced) for
// the run's output. With builtinMock (no --target: the in-process mock
// serves the requests) the file's model is not set, since the mock serves
// mockserver.DefaultModel only and would answer every request with a 404;
// a note says so. Errors are bad input.
func ApplyLike(log io.Writer, path string, builtinMock bool, given func(flag string) bool, set func(flag, value string) error) ([]metrics.Warning, error) {
	if path == "" {
		return nil, nil
	}
	res, err := compare.Read(path)
	if err != nil {
		return nil, fmt.Errorf("--like: %w", err)
	}
	load, bad := res.Load()
	var errs []error
	for _, u := range bad {
		if !slices.ContainsFunc(u.Flags, given) {
			errs = append(errs, fmt.Errorf("--like %s: %w", path, likeFlags(u)))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if builtinMock && load.Model != "" && load.Model != mockserver.DefaultModel && !given("model") {
		load.Notes = append(load.Notes, fmt.Sprintf("the file's model %q is not set: the built-in mock serves %q only; give --target to run against a server of that model", load.Model, mockserver.DefaultModel))
		load.Model = ""
	}
	// A flag the load sets is not one the user gave.
	mine := map[string]bool{}
	applied, err := load.Apply(func(name string) bool { return !mine[name] && given(name) }, func(name, value string) error {
		mine[name] = true
		return set(name, value)
	})
	if err != nil {
		return nil, fmt.Errorf("--like %s: %w", path, err)
	}
	fmt.Fprintf(log, "--like %s (%s): %s\n", path, res.Tool, strings.Join(applied, " "))
	var notes []metrics.Warning
	for _, n := range load.Notes {
		fmt.Fprintf(log, "--like: %s\n", n)
		notes = append(notes, metrics.Warning{Code: peer.WarnNotReproduced, Level: -1, Message: "--like " + path + ": " + n})
	}
	return notes, nil
}

// likeFlags returns u naming the flags that replace its setting
// ("--dataset"), as the user gives them.
func likeFlags(u peer.Unreproducible) peer.Unreproducible {
	u.FlagPrefix = "--"
	return u
}
