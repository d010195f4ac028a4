package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/compare"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
)

// applyLike reads --like's result and sets, as if given on the command
// line, every flag of its load (peer.Result.Load) that the user did not
// give. What the load cannot reproduce is refused, naming the result's
// field, unless a flag that replaces it was given.
func (b *bench) applyLike(e env, fs *pflag.FlagSet) error {
	path := b.s.Like
	if path == "" {
		return nil
	}
	res, err := compare.Read(path)
	if err != nil {
		return fmt.Errorf("--like: %w", err)
	}
	load, bad := res.Load()
	var errs []error
	for _, u := range bad {
		if !slices.ContainsFunc(u.Flags, func(f string) bool { return fs.Changed(strings.TrimPrefix(f, "--")) }) {
			errs = append(errs, fmt.Errorf("--like %s: %w", path, likeFlags(u)))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	// The flags the user gave, before any of the load's is set.
	user := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { user[f.Name] = true })
	applied, err := load.Apply(func(name string) bool { return user[name] }, fs.Set)
	if err != nil {
		return fmt.Errorf("--like %s: %w", path, err)
	}
	fmt.Fprintf(e.stderr, "--like %s (%s): %s\n", path, res.Tool, strings.Join(applied, " "))
	for _, n := range load.Notes {
		fmt.Fprintf(e.stderr, "--like: %s\n", n)
		b.notes = append(b.notes, metrics.Warning{Code: peer.WarnNotReproduced, Level: -1, Message: "--like " + path + ": " + n})
	}
	return nil
}
