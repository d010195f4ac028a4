// Package fieldname puts the caller's name for a setting in front of a
// library error that names the setting's field, or in its place: a CLI
// maps "Plan.KneeTolerance 1.5: ..." to "--knee-tolerance:
// Plan.KneeTolerance 1.5: ..." (Apply), or "Limits.Warmup 1m0s + ..." to
// "--warmup 1m0s + ..." (Replace), so that the library speaks its own
// names and the user reads theirs.
package fieldname

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Name maps a field, as library errors spell it (e.g. "Plan.N ="), to
// the caller's name for the setting (e.g. "--levels").
type Name struct{ Field, Caller string }

// Apply prefixes each error joined in err (errors.Join) with the caller's
// name of the first field it mentions; errors that mention none are kept
// as they are. It returns nil for a nil err.
func Apply(err error, names ...Name) error {
	if err == nil {
		return nil
	}
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		for _, n := range names {
			if strings.Contains(e.Error(), n.Field) {
				e = fmt.Errorf("%s: %w", n.Caller, e)
				break
			}
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// Replace returns err with every field of names, wherever its message
// mentions it, replaced by the caller's name: for a message that names
// several settings or gives its advice in field names ("Limits.Warmup 1m0s
// + Limits.Cooldown 0s leave no measured window in Limits.MaxDuration
// 30s: ... or lengthen Limits.MaxDuration"), which a prefix would leave in
// the library's words. Longer fields are replaced first, so that
// "Limits.WarmupRequests" is not read as "Limits.Warmup". The result wraps
// err (errors.Is and errors.As see through it); Replace returns nil for a
// nil err, and err itself when its message names no field.
func Replace(err error, names ...Name) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	out := ReplaceString(msg, names...)
	if out == msg {
		return err
	}
	return &replaced{msg: out, err: err}
}

// ReplaceString is Replace for a message that is not an error, such as a
// warning's (metrics.Warning.Message).
func ReplaceString(msg string, names ...Name) string {
	sorted := slices.Clone(names)
	slices.SortStableFunc(sorted, func(a, b Name) int { return len(b.Field) - len(a.Field) })
	pairs := make([]string, 0, 2*len(sorted))
	for _, n := range sorted {
		pairs = append(pairs, n.Field, n.Caller)
	}
	return strings.NewReplacer(pairs...).Replace(msg)
}

// replaced is an error whose message is another's with its fields renamed.
type replaced struct {
	msg string
	err error
}

func (r *replaced) Error() string { return r.msg }
func (r *replaced) Unwrap() error { return r.err }

// Rewrite returns err with its message rewritten by f: each error joined
// in err (errors.Join) on its own, so that the list stays a list. The
// result wraps err's errors (errors.Is and errors.As see through it);
// Rewrite returns nil for a nil err, and err itself when f changes
// nothing.
func Rewrite(err error, f func(msg string) string) error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list := j.Unwrap()
		out := make([]error, len(list))
		changed := false
		for i, e := range list {
			out[i] = Rewrite(e, f)
			changed = changed || out[i] != e
		}
		if !changed {
			return err
		}
		return errors.Join(out...)
	}
	msg := err.Error()
	if out := f(msg); out != msg {
		return &replaced{msg: out, err: err}
	}
	return err
}
