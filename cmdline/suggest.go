package cmdline

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/internal/spelling"
)

// UnknownFlagError is an unknown flag, with the nearest known one or the
// command that has it.
type UnknownFlagError struct {
	// Flag is the flag as given, with its dashes: "--max-second", "-x".
	Flag string
	// Command is the command it was given to.
	Command string
	// Suggestion is the nearest known flag with its dashes, or "".
	Suggestion string
	// Elsewhere is the sibling command that has Flag, or "".
	Elsewhere string
	// Err is the parser's error (*pflag.NotExistError, wrapped as the
	// caller wrapped it).
	Err error
}

func (e *UnknownFlagError) Unwrap() error { return e.Err }

func (e *UnknownFlagError) Error() string {
	switch {
	case e.Elsewhere != "":
		return fmt.Sprintf("unknown flag: %s: a flag of `gollm-bench %s` only, not of %s (see `gollm-bench %[2]s --help`)", e.Flag, e.Elsewhere, e.Command)
	case e.Suggestion != "":
		return fmt.Sprintf("unknown flag: %s (did you mean %s?)", e.Flag, e.Suggestion)
	}
	return fmt.Sprintf("unknown flag: %s (`gollm-bench %s --help` lists the flags)", e.Flag, e.Command)
}

// Explain rewrites a parse error of command's flags (names: their long
// names) for the person who typed them: an unknown flag gets the nearest
// known one (or the sibling command that has it, from elsewhere), a
// refused peer spelling its translation (*Refusal). Other errors are
// returned as they are.
func Explain(err error, names []string, command string, elsewhere map[string]string) error {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	var ne *pflag.NotExistError
	var done *UnknownFlagError
	if !errors.As(err, &ne) || errors.As(err, &done) {
		return err
	}
	name := ne.GetSpecifiedName()
	if ne.GetSpecifiedShortnames() != "" {
		return &UnknownFlagError{Flag: "-" + name, Command: command, Err: err}
	}
	u := &UnknownFlagError{Flag: "--" + name, Command: command, Elsewhere: elsewhere[name], Err: err}
	if near := Nearest(name, names); near != "" && u.Elsewhere == "" {
		u.Suggestion = "--" + near
	}
	return u
}

// Nearest returns the candidate closest to name by edit distance, if it
// is close enough to be what was meant (at most a third of name's length
// apart, and at most 3 edits), or one that starts or ends with name; ""
// for none (spelling.Nearest).
func Nearest(name string, candidates []string) string { return spelling.Nearest(name, candidates) }

// flagNames are the long names of fs's visible flags.
func flagNames(fs *pflag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			out = append(out, f.Name)
		}
	})
	return out
}
