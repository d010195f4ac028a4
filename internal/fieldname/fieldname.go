// Package fieldname puts the caller's name for a setting in front of a
// library error that names the setting's field: a CLI maps
// "Plan.KneeTolerance 1.5: ..." to "--knee-tolerance: Plan.KneeTolerance
// 1.5: ...", so that the library speaks its own names and the user reads
// theirs.
package fieldname

import (
	"errors"
	"fmt"
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
