package cmdline

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// flags is a small command's flag set, with the kinds of value run has.
func flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.String("target", "", "URL")
	fs.Uint64("seed", 42, "seed")
	fs.Int("max-requests", 0, "requests")
	fs.Duration("request-timeout", 30*time.Second, "timeout")
	fs.Bool("no-stream", false, "no streaming")
	fs.StringSlice("rate", nil, "levels")
	fs.StringArray("header", nil, "K=V")
	fs.Float64("pue", 0, "PUE")
	return fs
}

func TestParseConfigYAMLAndJSON(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"yaml": "# comment\nseed: 9\nrate: [1, 2]\nno-stream: true\nheader:\n  - A=1\n  - B=2\n",
		"json": "{\n\"seed\": 9,\n\"rate\": [1, 2],\n\"no-stream\": true,\n\"header\": [\"A=1\", \"B=2\"]\n}\n",
	} {
		c, err := ParseConfig("cfg", []byte(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fs := flags()
		set, err := c.Apply(fs, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(set, []string{"seed", "rate", "no-stream", "header"}) {
			t.Errorf("%s: set %v", name, set)
		}
		if v, _ := fs.GetStringSlice("rate"); !slices.Equal(v, []string{"1", "2"}) {
			t.Errorf("%s: rate %v", name, v)
		}
		if v, _ := fs.GetStringArray("header"); !slices.Equal(v, []string{"A=1", "B=2"}) {
			t.Errorf("%s: header %v", name, v)
		}
		if v, _ := fs.GetUint64("seed"); v != 9 {
			t.Errorf("%s: seed %d", name, v)
		}
		if c.Entries[1].Line != 3 {
			t.Errorf("%s: rate on line %d, want 3", name, c.Entries[1].Line)
		}
	}
}

// TestApplyCommandLineWins: a flag given on the command line keeps its
// value; the file sets the others.
func TestApplyCommandLineWins(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig("cfg", []byte("seed: 9\nmax-requests: 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs := flags()
	if err := fs.Parse([]string{"--seed", "3"}); err != nil {
		t.Fatal(err)
	}
	set, err := c.Apply(fs, map[string]bool{"seed": true})
	if err != nil || !slices.Equal(set, []string{"max-requests"}) {
		t.Fatalf("set %v, %v", set, err)
	}
	if v, _ := fs.GetUint64("seed"); v != 3 {
		t.Errorf("seed %d, want the command line's 3", v)
	}
}

// TestConfigErrorsNameKeyAndLine: every bad entry is reported, each with
// the file, the key's line and the key.
func TestConfigErrorsNameKeyAndLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ data, want string }{
		{"seed: 1\nmax-request: 5\n", "cfg:2: max-request: unknown key (did you mean max-requests?)"},
		{"seed: -1\n", "cfg:1: seed: \"-1\" is not a whole number of 0 or more"},
		{"request-timeout: soon\n", "cfg:1: request-timeout: \"soon\" is not a duration such as 30s or 2m"},
		{"no-stream: maybe\n", "cfg:1: no-stream:"},
		{"seed: [1, 2]\n", "cfg:1: seed: want one value"},
		{"rate: {a: 1}\n", "cfg:1: rate: want a value or a list"},
		{"seed: 1\nseed: 2\n", "cfg:2: seed: given twice (first on line 1)"},
		{"config: other.yaml\n", "cfg:1: config: a configuration file cannot name another"},
		{"- seed\n", "cfg:1: want a mapping of settings"},
		{"seed: [1\n", "not YAML or JSON"},
		{"a: 1\n---\nb: 2\n", "more than one YAML document"},
		{"header: [\"Authorization=REDACTED\"]\n", "cfg:1: header: the run's value was REDACTED"},
	} {
		c, err := ParseConfig("cfg", []byte(tc.data))
		if err == nil {
			fs := flags()
			fs.String("config", "", "")
			_, err = c.Apply(fs, nil)
		}
		var ce *ConfigError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want a *ConfigError with %q", tc.data, err, tc.want)
		}
	}
}

// TestLocate: a check's error that starts with a flag the file set is
// given the file and line of that key.
func TestLocate(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig("cfg", []byte("seed: 1\nmax-requests: -5\n"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := c.Apply(flags(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Locate(errors.Join(errors.New("--max-requests -5: want >= 0"), errors.New("--pue 0.5: want >= 1")), set)
	if !strings.Contains(got.Error(), "cfg:2: --max-requests -5") || strings.Contains(got.Error(), "cfg:0") || !strings.Contains(got.Error(), "\n--pue 0.5") {
		t.Errorf("Locate: %q", got)
	}
}

// TestReadRecorded: a run.json gives its settings, which of them were
// given, and its command.
func TestReadRecorded(t *testing.T) {
	t.Parallel()
	data := `{"schema_version": 3, "config": {"command": "run"},
  "settings": {"seed": 7, "rate": ["4"], "no-stream": false, "target": "http://h:1"},
  "settings_given": ["seed"]}`
	c, err := ParseConfig("run.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Recorded || c.Command != "run" || !slices.Equal(c.Given, []string{"seed"}) || len(c.Entries) != 4 {
		t.Errorf("%+v", c)
	}
	if _, err := ParseConfig("run.json", []byte(`{"schema_version": 2, "config": {}}`)); err == nil || !strings.Contains(err.Error(), "without \"settings\"") {
		t.Errorf("old run.json: %v", err)
	}
}

// TestRecordRoundTrip: what Record writes, ParseConfig and Apply read
// back to the same values; secrets are redacted: every header value but a
// harmless one (issue 25 item 7: X-Custom-Creds, OpenAI-Organization were
// written in clear).
func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	fs := flags()
	if err := fs.Parse([]string{"--seed", "5", "--rate", "1,2", "--header", "Authorization=Bearer x", "--header", "X-Team=a", "--header", "Accept=text/event-stream", "--target", "http://u:pw@h:1", "--request-timeout", "5s"}); err != nil {
		t.Fatal(err)
	}
	r := Record(fs)
	// run.json's "settings" as written: JSON booleans, numbers, lists of
	// strings and strings, secrets redacted.
	want := `{"header":["Authorization=REDACTED","X-Team=REDACTED","Accept=text/event-stream"],"max-requests":0,"no-stream":false,"pue":0,"rate":["1","2"],"request-timeout":"5s","seed":5,"target":"http://REDACTED@h:1"}`
	if got := jsonOf(t, r); got != want {
		t.Errorf("settings\n got %s\nwant %s", got, want)
	}
	delete(r, "header")
	delete(r, "target")
	var b strings.Builder
	b.WriteString("{")
	first := true
	for k, v := range r {
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString(`"` + k + `":` + string(v))
	}
	b.WriteString("}")
	c, err := ParseConfig("r", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	back := flags()
	if _, err := c.Apply(back, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"seed", "rate", "request-timeout"} {
		if a, b := fs.Lookup(name).Value.String(), back.Lookup(name).Value.String(); a != b {
			t.Errorf("%s: %s, read back %s", name, a, b)
		}
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	names := []string{"max-seconds", "max-requests", "seed", "format", "output-dir"}
	for in, want := range map[string]string{
		"max-second": "max-seconds", "seeds": "seed", "formt": "format", "ouput-dir": "output-dir",
		"frmoat": "format", "zzz": "", "output": "output-dir",
	} {
		if got := Nearest(in, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseConfig: any input is parsed or refused with an error, never a
// panic, and what is parsed applies to a flag set without a panic; every
// entry has a line.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"seed: 1\nrate: [1, 2]\n", `{"seed": 1, "rate": "1,2"}`, "a: &x 1\nb: *x\n", "- 1\n", "",
		"settings: {seed: 1}\nsettings_given: [seed]\nschema_version: 3\n", "seed: [1, [2]]\n", "? [a]\n: 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig("fuzz", data)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *ConfigError", err)
			}
			return
		}
		for _, e := range c.Entries {
			if e.Line < 1 || e.Key == "" {
				t.Fatalf("entry %+v without a line or a key", e)
			}
		}
		_, _ = c.Apply(flags(), nil)
	})
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOverriddenKeysChecked: a key the command line overrides is still
// checked (its value's type, a list for one value), named by line, and
// the command line's value is kept; a REDACTED value the command line
// replaces is what the refusal asks for, so it passes.
func TestOverriddenKeysChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ data, want string }{
		{"seed: 1\nno-stream: maybe\n", "cfg:2: no-stream:"},
		{"request-timeout: soon\n", "cfg:1: request-timeout: \"soon\" is not a duration such as 30s or 2m"},
		{"seed: [1, 2]\n", "cfg:1: seed: want one value"},
		{"header: [\"Authorization=REDACTED\"]\n", ""},
		{"rate: [1, 2]\n", ""},
	} {
		c, err := ParseConfig("cfg", []byte(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		fs := flags()
		args := []string{"--no-stream", "--request-timeout", "5s", "--seed", "3", "--header", "A=1", "--rate", "7"}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		fixed := map[string]bool{"no-stream": true, "request-timeout": true, "seed": true, "header": true, "rate": true}
		_, err = c.Apply(fs, fixed)
		var ce *ConfigError
		if tc.want == "" && err != nil || tc.want != "" && (!errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: error %v, want %q", tc.data, err, tc.want)
		}
		for name, want := range map[string]string{"no-stream": "true", "request-timeout": "5s", "seed": "3", "header": "[A=1]", "rate": "[7]"} {
			if got := fs.Lookup(name).Value.String(); got != want {
				t.Errorf("%q: --%s %s, want the command line's %s", tc.data, name, got, want)
			}
		}
	}
}

// TestUnexpectedArgumentOptionalValue: `--stabilize 30s,3W` (the form the
// warm-up note once printed) was answered only "unexpected argument":
// a flag with an optional value takes it after "=".
func TestUnexpectedArgumentOptionalValue(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.String("stabilize", "", "")
	fs.Lookup("stabilize").NoOptDefVal = "30s,3W"
	fs.String("target", "", "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--stabilize", "30s,3W"}, "--stabilize takes its value after '=': --stabilize=30s,3W"},
		{[]string{"--target", "x", "foo"}, `unexpected argument "foo" (flags only`},
		{[]string{"--stabilize=30s,3W"}, ""},
	} {
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		err := UnexpectedArgument(fs, tt.args)
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want %q", tt.args, err, tt.want)
		}
		fs = pflag.NewFlagSet("run", pflag.ContinueOnError)
		fs.String("stabilize", "", "")
		fs.Lookup("stabilize").NoOptDefVal = "30s,3W"
		fs.String("target", "", "")
	}
}
