package cmdline

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/pflag"
)

// WantsHelp reports whether args (a command's arguments) ask for help:
// -h, -help or --help before a "--". Help goes to standard output.
func WantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// NoFlags parses the arguments of a command that takes none, so that
// `COMMAND --help` prints its usage (line, then summary) to w and returns
// pflag.ErrHelp, and anything else is refused.
func NoFlags(w io.Writer, name, summary string, args []string) error {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() { fmt.Fprintf(w, "usage: gollm-bench %s\n\n%s\n", name, summary) }
	if err := fs.Parse(args); err != nil {
		return Explain(err, nil, name, nil)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: %s takes none", fs.Arg(0), name)
	}
	return nil
}

// Flag is one flag as a command's help lists it.
type Flag struct {
	// Long is the long name, Short the shorthand letter ("" for none).
	Long, Short string
	// Value names the value's kind ("string", "duration", "I/N"); "" for
	// a boolean flag.
	Value string
	// Usage is the flag's help text.
	Usage string
}

// Choices returns the values the usage lists as a|b|c, if it does.
func (f Flag) Choices() []string {
	for _, tok := range strings.FieldsFunc(f.Usage, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == '(' || r == ')' }) {
		tok = strings.TrimRight(tok, ".:")
		parts := strings.Split(tok, "|")
		if len(parts) < 2 {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && word().MatchString(p)
		}
		if ok {
			return parts
		}
	}
	return nil
}

func word() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*$`) }

// ParseUsage reads the flags from a command's help, as pflag's FlagUsages
// writes them ("  -o, --output string   CSV file ..."). Hidden flags are
// not in help, so not in the result.
func ParseUsage(help string) []Flag {
	re := regexp.MustCompile(`^\s+(?:-(\S), )?--([A-Za-z0-9][A-Za-z0-9_-]*)(?: (\S+))?\s\s+(.*)$`)
	var out []Flag
	for line := range strings.SplitSeq(help, "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		out = append(out, Flag{Short: m[1], Long: m[2], Value: m[3], Usage: strings.TrimSpace(m[4])})
	}
	return out
}

// ExplainUsage is Explain for a command known by its help text, which
// help returns (it is asked for only when err is an unknown flag). The
// result wraps err, so that what err carried (an exit code) is kept.
func ExplainUsage(err error, help func() string, command string) error {
	var ne *pflag.NotExistError
	var done *UnknownFlagError
	if !errors.As(err, &ne) || errors.As(err, &done) {
		return err
	}
	var names []string
	for _, f := range ParseUsage(help()) {
		names = append(names, f.Long)
	}
	return Explain(err, names, command, nil)
}

// UnexpectedArgument is the error for a command that takes flags only and
// was given fs.Arg(0), or nil when fs holds no argument. When the word
// before it in args is a flag whose value is optional (--stabilize), the
// argument was meant as its value, which pflag takes only after "=": the
// error says so.
func UnexpectedArgument(fs *pflag.FlagSet, args []string) error {
	if fs.NArg() == 0 {
		return nil
	}
	arg := fs.Arg(0)
	for i := 1; i < len(args); i++ {
		if args[i] != arg {
			continue
		}
		name := strings.TrimLeft(args[i-1], "-")
		if f := fs.Lookup(name); f != nil && f.NoOptDefVal != "" && strings.HasPrefix(args[i-1], "--") {
			return fmt.Errorf("unexpected argument %q: --%s takes its value after '=': --%s=%s", arg, name, name, arg)
		}
	}
	return fmt.Errorf("unexpected argument %q (flags only; see --help)", arg)
}
