package cmdline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/gollm-bench/gollm-bench/internal/redact"
)

// A configuration file holds settings by their flag's long name, one key
// each, in YAML or JSON (JSON is read as YAML, so both give line numbers):
//
//	target: http://127.0.0.1:8000
//	rate: [1, 2, 4]        # a list, or "1,2,4" as on the command line
//	max-seconds: 60
//	no-stream: false
//	slo: "ttft_p99<=500ms"
//
// A run.json (or the results folder holding one) is read through its
// "settings" object, the effective settings the run recorded (Record), and
// its "settings_given" list says which of them the run was given; the
// others are pinned to the values the run used without counting as given.

// Config is a configuration file read by ReadConfig or ParseConfig: its
// settings in file order. It is plain data.
type Config struct {
	// Path is the file read (a folder given names its run.json).
	Path string
	// Command is the command of the run a run.json records ("run" or
	// "sweep"); "" for a configuration file.
	Command string
	// Entries are the settings, in file order.
	Entries []Entry
	// Recorded is true for a run.json: Given then lists the settings
	// the run was given; the other entries pin defaults.
	Recorded bool
	// Given is the keys a run.json says were given (settings_given).
	Given []string
}

// Entry is one setting of a configuration file.
type Entry struct {
	// Key is the flag's long name, as written.
	Key string
	// Values are the value's text: one for a scalar, one per element for
	// a list. A null value is one empty string.
	Values []string
	// List is true when the value was a list.
	List bool
	// Line and Column are the key's position, 1-based.
	Line, Column int
}

// ConfigError is a bad entry of a configuration file: the file, the key's
// line and the key, and what is wrong with it. Key is "" for an error of
// the whole file.
type ConfigError struct {
	File string
	Line int
	Key  string
	Err  error
}

func (e *ConfigError) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Key == "" {
		return fmt.Sprintf("%s: %v", pos, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", pos, e.Key, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// ReadConfig reads the configuration file at path: YAML, JSON, or a
// gollm-bench run.json. A folder is read as the run.json inside it.
func ReadConfig(path string) (*Config, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "run.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// ParseConfig parses a configuration file's data; name is the file's name
// in errors. It checks the file's shape (a mapping of keys to scalars or
// lists of scalars, each key once), not the keys: Apply does that.
func ParseConfig(name string, data []byte) (*Config, error) {
	c := &Config{Path: name}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return c, nil // an empty file sets nothing
	} else if err != nil {
		return nil, &ConfigError{File: name, Line: yamlLine(err), Err: fmt.Errorf("not YAML or JSON: %w", err)}
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, &ConfigError{File: name, Line: more.Line, Err: errors.New("more than one YAML document: want one mapping of settings")}
	}
	root := resolve(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = resolve(root.Content[0])
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &ConfigError{File: name, Line: root.Line, Err: errors.New("want a mapping of settings (key: value), e.g. \"max-seconds: 60\"")}
	}
	if settings := lookup(root, "settings"); settings != nil || lookup(root, "schema_version") != nil {
		return c.readRecorded(root, settings)
	}
	return c, c.readEntries(root)
}

// readRecorded reads a run.json's settings, settings_given and
// config.command.
func (c *Config) readRecorded(root, settings *yaml.Node) (*Config, error) {
	if settings == nil {
		return nil, &ConfigError{File: c.Path, Line: root.Line, Err: errors.New("a run.json without \"settings\" (written by an older gollm-bench): give its settings as flags")}
	}
	if settings.Kind != yaml.MappingNode {
		return nil, &ConfigError{File: c.Path, Line: settings.Line, Key: "settings", Err: errors.New("want a mapping of settings")}
	}
	c.Recorded = true
	if cfg := lookup(root, "config"); cfg != nil {
		if cmd := lookup(cfg, "command"); cmd != nil && cmd.Kind == yaml.ScalarNode {
			c.Command = cmd.Value
		}
	}
	if given := lookup(root, "settings_given"); given != nil {
		if given.Kind != yaml.SequenceNode {
			return nil, &ConfigError{File: c.Path, Line: given.Line, Key: "settings_given", Err: errors.New("want a list of setting keys")}
		}
		for _, g := range given.Content {
			c.Given = append(c.Given, resolve(g).Value)
		}
	}
	return c, c.readEntries(settings)
}

// readEntries reads the pairs of a mapping node.
func (c *Config) readEntries(m *yaml.Node) error {
	var errs []error
	first := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolve(m.Content[i]), resolve(m.Content[i+1])
		bad := func(format string, a ...any) {
			errs = append(errs, &ConfigError{File: c.Path, Line: k.Line, Key: k.Value, Err: fmt.Errorf(format, a...)})
		}
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			errs = append(errs, &ConfigError{File: c.Path, Line: k.Line, Err: errors.New("want a setting's name as the key, e.g. max-seconds")})
			continue
		}
		if line, dup := first[k.Value]; dup {
			bad("given twice (first on line %d)", line)
			continue
		}
		first[k.Value] = k.Line
		e := Entry{Key: k.Value, Line: k.Line, Column: k.Column}
		switch v.Kind {
		case yaml.ScalarNode:
			e.Values = []string{scalar(v)}
		case yaml.SequenceNode:
			e.List = true
			for _, el := range v.Content {
				el = resolve(el)
				if el.Kind != yaml.ScalarNode {
					bad("a list element on line %d is not a single value", el.Line)
					continue
				}
				e.Values = append(e.Values, scalar(el))
			}
		default:
			bad("want a value or a list of values, not a mapping")
			continue
		}
		c.Entries = append(c.Entries, e)
	}
	return errors.Join(errs...)
}

// scalar is a scalar node's text; null is "".
func scalar(n *yaml.Node) string {
	if n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// resolve follows YAML aliases (*anchor).
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// lookup returns the value of key in mapping m, or nil.
func lookup(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if resolve(m.Content[i]).Value == key {
			return resolve(m.Content[i+1])
		}
	}
	return nil
}

// yamlLine is the line a YAML syntax error names ("yaml: line 3: ..."), or 0.
func yamlLine(err error) int {
	var n int
	if m := regexp.MustCompile(`line (\d+)`).FindStringSubmatch(err.Error()); m != nil {
		fmt.Sscan(m[1], &n)
	}
	return n
}

// Apply sets, through fs, every entry whose flag was not given on the
// command line (fixed names the flags that were), so that each value is
// checked exactly as on the command line (the flag's Value.Set). A list
// sets a list flag once per element, as repeating the flag would. It
// reports every bad entry at once, each a *ConfigError with its line:
// an unknown key (with the nearest known one), a key that is not a
// setting (peer spellings, --config itself, deprecated flags), a list for
// a single-valued flag, a value its flag refuses, and a value that a
// run.json recorded as REDACTED. A flag given on the command line keeps
// its value, but the file's is checked all the same (its type; ranges are
// checked on the values that hold). It returns the keys it set.
func (c *Config) Apply(fs *pflag.FlagSet, fixed map[string]bool) ([]string, error) {
	var errs []error
	var set []string
	for _, e := range c.Entries {
		bad := func(err error) { errs = append(errs, &ConfigError{File: c.Path, Line: e.Line, Key: e.Key, Err: err}) }
		f := fs.Lookup(e.Key)
		switch {
		case f == nil:
			bad(unknownKey(fs, e.Key))
			continue
		case f.Name == "config":
			bad(errors.New("a configuration file cannot name another"))
			continue
		case f.Hidden:
			if a, ok := f.Value.(*alias); ok && a.spec.Ours != "" {
				bad(fmt.Errorf("%s's spelling; a configuration file uses gollm-bench's names: %s", a.spec.Tools, a.spec.Ours))
			} else {
				bad(unknownKey(fs, e.Key))
			}
			continue
		case f.Deprecated != "":
			bad(fmt.Errorf("deprecated: %s", f.Deprecated))
			continue
		}
		sv, isList := f.Value.(pflag.SliceValue)
		if e.List && !isList {
			bad(fmt.Errorf("want one value (a %s), not a list", f.Value.Type()))
			continue
		}
		if fixed[f.Name] { // the command line wins, but the file's value must be one
			if err := trySet(f, e.Values); err != nil {
				bad(err)
			}
			continue
		}
		if slices.ContainsFunc(e.Values, func(v string) bool { return strings.Contains(v, redact.Redacted) }) {
			bad(fmt.Errorf("the run's value was %s when it was written (a secret): give --%s on the command line", redact.Redacted, f.Name))
			continue
		}
		if isList && len(e.Values) == 0 {
			_ = sv.Replace(nil)
			set = append(set, f.Name)
			continue
		}
		var failed bool
		for _, v := range e.Values {
			if err := fs.Set(f.Name, v); err != nil {
				bad(setError(f, v, err))
				failed = true
				break
			}
		}
		if !failed {
			set = append(set, f.Name)
		}
	}
	return set, errors.Join(errs...)
}

// trySet checks that f takes values, as Apply would set them, and puts
// back the value f held (the command line's). A REDACTED value passes: the
// command line gives the secret, as Apply's refusal of it asks.
func trySet(f *pflag.Flag, values []string) error {
	if slices.ContainsFunc(values, func(v string) bool { return strings.Contains(v, redact.Redacted) }) {
		return nil
	}
	restore, bad, err := swapIn(f, values)
	if err != nil {
		return setError(f, bad, err)
	}
	restore()
	return nil
}

// setError says why a flag refused a value, in the file's terms.
func setError(f *pflag.Flag, v string, err error) error {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		err = iv.Unwrap()
	}
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return fmt.Errorf("%q is not %s: %w", v, valueKind(f.Value.Type()), err)
}

// valueKind names what a flag of pflag's type takes, in a user's words:
// "a number", not "a valid float64".
func valueKind(typ string) string {
	switch typ {
	case "float64", "float32":
		return "a number"
	case "int", "int64", "int32":
		return "a whole number"
	case "uint64", "uint", "uint32":
		return "a whole number of 0 or more"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 30s or 2m"
	case "stringSlice", "stringArray":
		return "a list of strings"
	}
	return "a valid " + typ
}

// unknownKey says a key is no setting, with the nearest one.
func unknownKey(fs *pflag.FlagSet, key string) error {
	if near := Nearest(key, flagNames(fs)); near != "" {
		return fmt.Errorf("unknown key (did you mean %s?)", near)
	}
	return fmt.Errorf("unknown key: not a setting of `gollm-bench %s` (see --help for the flags; a key is a flag's long name)", fs.Name())
}

// Locate puts the file and line of the entry an error names in front of
// each error joined in err whose message starts with a flag the file set
// (e.g. "--max-seconds -1: want ..." from a check after parsing), so that
// an out-of-range value in the file is found by its line. set is what
// Apply returned; other errors are kept as they are.
func (c *Config) Locate(err error, set []string) error {
	if err == nil || c == nil {
		return err
	}
	lines := map[string]int{}
	for _, e := range c.Entries {
		if slices.Contains(set, e.Key) {
			lines[e.Key] = e.Line
		}
	}
	list := flatten(err)
	out := make([]error, len(list))
	for i, e := range list {
		out[i] = e
		if m := leadingFlag().FindStringSubmatch(e.Error()); m != nil {
			if line, ok := lines[m[1]]; ok {
				out[i] = &ConfigError{File: c.Path, Line: line, Err: e}
			}
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return errors.Join(out...)
}

// leadingFlag matches an error that starts by naming a flag.
func leadingFlag() *regexp.Regexp { return regexp.MustCompile(`^--([a-z0-9][a-z0-9-]*)`) }

// flatten unwraps single wrappers down to the errors joined inside.
func flatten(err error) []error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			var out []error
			for _, x := range j.Unwrap() {
				out = append(out, flatten(x)...)
			}
			return out
		}
	}
	return []error{err}
}
