package cmdline

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/internal/redact"
)

// Options configure a Parser.
type Options struct {
	// DefaultData is the --data spec that holds when none is given: a
	// length alias (--isl N) sets its key inside it.
	DefaultData string
	// Sibling is the flags of a sibling command (sweep's for run, run's
	// for sweep), so that an unknown flag that the sibling has is answered
	// with where it belongs; nil: none.
	Sibling *pflag.FlagSet
	// Check checks the values the flags hold (ranges, combinations), its
	// errors each starting with the flag it is about ("--max-seconds -1:
	// ..."). Parse runs it with the value of each configuration key that
	// the command line overrides put in place, so that the file's value is
	// checked too, and reports its new errors about that key at the key's
	// line. nil: an overridden key's value is checked against its flag's
	// type only.
	Check func() error
}

// Parser parses one command's flags: the command line, then a
// configuration file (--config) for the flags not given on it, then the
// peer aliases that set part of a setting. Create it with NewParser after
// the command's flags are defined.
type Parser struct {
	fs     *pflag.FlagSet
	opt    Options
	path   string  // --config
	config *Config // read from path
	set    []string
	pinned map[string]bool // run.json settings set but not given in the run
	staged staged
}

// NewParser adds --config and the peer aliases (Aliases) to fs.
func NewParser(fs *pflag.FlagSet, opt Options) *Parser {
	p := &Parser{fs: fs, opt: opt}
	fs.StringVar(&p.path, "config", "", "read settings from this file: YAML or JSON keyed by flag name (e.g. max-seconds: 60), or a run.json or results folder to rerun that run; flags given here override it")
	p.install()
	return p
}

// Parse parses args, applies the configuration file to the flags args did
// not give, then sets what the peer aliases given stand for. Its errors
// are bad input: *ConfigError for the file, a suggestion for an unknown
// flag (pflag.ErrHelp passes through for --help).
func (p *Parser) Parse(args []string) error {
	if err := p.fs.Parse(args); err != nil {
		elsewhere := map[string]string{}
		if p.opt.Sibling != nil {
			p.opt.Sibling.VisitAll(func(f *pflag.Flag) {
				if p.fs.Lookup(f.Name) == nil {
					elsewhere[f.Name] = p.opt.Sibling.Name()
				}
			})
		}
		return Explain(err, flagNames(p.fs), p.fs.Name(), elsewhere)
	}
	if err := p.staged.conflicts(p.fs); err != nil {
		return err
	}
	fixed := map[string]bool{}
	p.fs.Visit(func(f *pflag.Flag) { fixed[f.Name] = true })
	if p.path != "" {
		if err := p.readConfig(fixed); err != nil {
			return err
		}
	}
	if err := p.resolve(fixed); err != nil {
		return err
	}
	return p.checkOverridden(fixed)
}

// checkOverridden runs Options.Check with the file's value of each key the
// command line overrides in place of the command line's, one key at a
// time, and returns the errors about that key that the command line's
// values do not raise, at the key's line. Each flag gets its value back.
func (p *Parser) checkOverridden(fixed map[string]bool) error {
	if p.opt.Check == nil || p.config == nil {
		return nil
	}
	messages := func() map[string]error {
		out := map[string]error{}
		if err := p.opt.Check(); err != nil {
			for _, e := range flatten(err) {
				out[e.Error()] = e
			}
		}
		return out
	}
	base := messages()
	var errs []error
	for _, e := range p.config.Entries {
		f := p.fs.Lookup(e.Key)
		if f == nil || f.Hidden || !fixed[f.Name] {
			continue
		}
		if slices.ContainsFunc(e.Values, func(v string) bool { return strings.Contains(v, redact.Redacted) }) {
			continue // the command line gives the secret
		}
		restore, _, err := swapIn(f, e.Values)
		if err != nil {
			continue // Apply reported it
		}
		found := messages()
		restore()
		for _, msg := range slices.Sorted(maps.Keys(found)) {
			if m := leadingFlag().FindStringSubmatch(msg); m != nil && m[1] == f.Name && base[msg] == nil {
				errs = append(errs, &ConfigError{File: p.config.Path, Line: e.Line, Key: e.Key,
					Err: fmt.Errorf("%w (--%s on the command line overrides it; fix the key or remove it)", found[msg], f.Name)})
			}
		}
	}
	return errors.Join(errs...)
}

// swapIn sets f to values, as Apply would, and returns what puts the
// value f held back; on an error, the value refused, f as it was.
func swapIn(f *pflag.Flag, values []string) (restore func(), bad string, err error) {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		old := sv.GetSlice()
		restore = func() { _ = sv.Replace(old) }
		if err := sv.Replace(values); err != nil {
			restore()
			return nil, strings.Join(values, ","), err
		}
		return restore, "", nil
	}
	old := f.Value.String()
	restore = func() { _ = f.Value.Set(old) }
	for _, v := range values {
		if err := f.Value.Set(v); err != nil {
			restore()
			return nil, v, err
		}
	}
	return restore, "", nil
}

// readConfig reads --config and applies it.
func (p *Parser) readConfig(fixed map[string]bool) error {
	c, err := ReadConfig(p.path)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf("--config: %w", err)
	}
	if c.Command != "" && c.Command != p.fs.Name() {
		return &ConfigError{File: c.Path, Err: fmt.Errorf("the run.json of a `%s`: rerun it with `gollm-bench %s --config %s`", c.Command, c.Command, p.path)}
	}
	p.config = c
	set, err := c.Apply(p.fs, fixed)
	p.set = set
	if c.Recorded {
		p.pinned = map[string]bool{}
		for _, k := range set {
			if !slices.Contains(c.Given, k) {
				p.pinned[k] = true
			}
		}
	}
	return err
}

// resolve sets what the staged peer aliases stand for. fixed holds the
// flags given on the command line, which a peer alias may not contradict.
func (p *Parser) resolve(fixed map[string]bool) error {
	st, fs := &p.staged, p.fs
	var errs []error
	set := func(name, v string) {
		if err := fs.Set(name, v); err != nil {
			errs = append(errs, err)
		}
	}
	if len(st.lengths) > 0 {
		spec := fs.Lookup("data").Value.String()
		for _, key := range slices.Sorted(maps.Keys(st.lengths)) {
			l := st.lengths[key]
			switch {
			case fixed["sequence-distribution"]:
				errs = append(errs, fmt.Errorf("%s with --sequence-distribution: both set lengths; give one", l.spelling))
			case fixed["data"] && hasKey(spec, key):
				errs = append(errs, fmt.Errorf("%s %s with --data %s: both set %s; give one", l.spelling, l.value, spec, key))
			}
		}
		if spec == "" {
			spec = p.opt.DefaultData
		}
		for _, key := range slices.Sorted(maps.Keys(st.lengths)) {
			spec = setKey(spec, key, st.lengths[key].value)
		}
		set("data", spec)
	}
	if st.concurrency != "" || st.requestRate != "" {
		profile := fs.Lookup("profile").Value.String()
		switch {
		case fixed["rate"]:
			errs = append(errs, errors.New("--concurrency or --request-rate with --rate: both set the level; give one (--rate N with --profile concurrent, or --rate R with --profile poisson)"))
		case st.requestRate != "":
			set("rate", st.requestRate)
			if st.concurrency != "" {
				if fixed["max-concurrency"] {
					errs = append(errs, errors.New("--concurrency with --request-rate and --max-concurrency: both cap requests in flight; give one"))
				}
				set("max-concurrency", st.concurrency)
			}
			if !fixed["profile"] {
				set("profile", "poisson")
			} else if profile != "poisson" && profile != "constant" {
				errs = append(errs, fmt.Errorf("--request-rate with --profile %s: a request rate is open loop; use --profile poisson (their default) or constant", profile))
			}
		default:
			set("rate", st.concurrency)
			if !fixed["profile"] {
				set("profile", "concurrent")
			} else if profile != "concurrent" {
				errs = append(errs, fmt.Errorf("--concurrency with --profile %s: --concurrency N is --profile concurrent --rate N", profile))
			}
		}
	}
	if st.goodput.value != "" {
		if fixed["slo"] {
			errs = append(errs, fmt.Errorf("--goodput %q with --slo: both set the SLO; give one (--goodput here is --slo %q)", st.goodput.spelling, st.goodput.value))
		} else {
			set("slo", st.goodput.value)
		}
	}
	return errors.Join(errs...)
}

// Given returns the settings given explicitly: on the command line (peer
// aliases by the flags they set), in a configuration file, or set since
// Parse (e.g. by --like); a run.json's pinned defaults are not given.
func (p *Parser) Given() map[string]bool {
	given := map[string]bool{}
	p.fs.Visit(func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "config" && !p.pinned[f.Name] {
			given[f.Name] = true
		}
	})
	return given
}

// Locate names the configuration file's line in each error that starts
// with a flag the file set (Config.Locate); err is returned as it is
// without a file.
func (p *Parser) Locate(err error) error {
	if p.config == nil {
		return err
	}
	return p.config.Locate(err, p.set)
}

// Record is Record of the parser's flags.
func (p *Parser) Record(omit ...string) map[string]json.RawMessage { return Record(p.fs, omit...) }

// hasKey reports whether a --data spec sets key.
func hasKey(spec, key string) bool {
	for kv := range strings.SplitSeq(spec, ",") {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == key {
			return true
		}
	}
	return false
}

// setKey sets key=value in a --data spec, replacing the key's value or
// appending it.
func setKey(spec, key, value string) string {
	var out []string
	done := false
	for kv := range strings.SplitSeq(spec, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == key {
			kv, done = key+"="+value, true
		}
		out = append(out, kv)
	}
	if !done {
		out = append(out, key+"="+value)
	}
	return strings.Join(out, ",")
}
