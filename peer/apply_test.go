package peer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// A Load's flags fill in what the user did not give; a group given in
// part (--rate alone) keeps the whole group the user's.
func TestLoadApplyKeepsGivenGroups(t *testing.T) {
	l := Load{Profile: "constant", Rates: []float64{2, 4}, Data: "prompt_tokens=8,output_tokens=4", Endpoint: "chat"}
	set := map[string]string{}
	given := map[string]bool{"rate": true}
	applied, err := l.Apply(func(n string) bool { return given[n] }, func(n, v string) error { set[n] = v; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := set["profile"]; ok {
		t.Errorf("--profile set although --rate, of its group, was given: %v", set)
	}
	if set["data"] != l.Data || set["endpoint"] != "chat" {
		t.Errorf("set %v, want data and endpoint", set)
	}
	if !slices.Contains(applied, "--endpoint=chat") {
		t.Errorf("applied %v", applied)
	}
}

// TestLoadApplyEchoParses: the flags Apply returns, joined as --like
// echoes them, are a command line a shell and pflag read back to the
// values set: a switch is --no-stream=true (not "--no-stream true", whose
// "true" is a stray argument), and a value with shell characters
// (the SLO's <=) is quoted.
func TestLoadApplyEchoParses(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{true, false} {
		l := Load{Profile: "constant", Rates: []float64{2, 4.5}, Data: "prompt_tokens=8,output_tokens=4", MaxSeconds: 30,
			Stream: Bool{V: stream, OK: true}, Endpoint: "chat", Model: "it's a model", SLO: "ttft_p99<=500ms,itl_p99<=50ms", Seed: Count{N: 7, OK: true}}
		set := map[string]string{}
		applied, err := l.Apply(func(string) bool { return false }, func(n, v string) error { set[n] = v; return nil })
		if err != nil {
			t.Fatal(err)
		}
		line := strings.Join(applied, " ")
		args, err := shellWords(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		fs.Bool("no-stream", false, "")
		fs.StringSlice("rate", nil, "")
		fs.Float64("max-seconds", 0, "")
		fs.Uint64("seed", 0, "")
		for _, name := range []string{"profile", "data", "endpoint", "model", "slo"} {
			fs.String(name, "", "")
		}
		if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
			t.Fatalf("echo %s: %v, stray arguments %q", line, err, fs.Args())
		}
		for name, v := range set {
			f := fs.Lookup(name)
			got := f.Value.String()
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				got = strings.Join(sv.GetSlice(), ",")
			}
			if got != v {
				t.Errorf("echo %s: --%s reads %q, want %q", line, name, got, v)
			}
		}
	}
}

// shellWords splits a line as a POSIX shell does for words that are bare,
// single-quoted or backslash-escaped (a quote inside quotes closes them,
// escapes one and reopens); any other shell
// character is an error, as the shell would read it as syntax.
func shellWords(line string) ([]string, error) {
	var out []string
	var w strings.Builder
	in, word, esc := false, false, false
	for _, r := range line {
		switch {
		case esc:
			w.WriteRune(r)
			esc = false
		case in && r == '\'':
			in = false
		case in:
			w.WriteRune(r)
		case r == '\'':
			in, word = true, true
		case r == '\\':
			esc, word = true, true
		case r == ' ':
			if word {
				out = append(out, w.String())
			}
			w.Reset()
			word = false
		case strings.ContainsRune("<>|&;()$`\"*?[]#~!{}", r):
			return nil, fmt.Errorf("shell character %q outside quotes", r)
		default:
			w.WriteRune(r)
			word = true
		}
	}
	if in || esc {
		return nil, errors.New("an unclosed quote or a trailing backslash")
	}
	if word {
		out = append(out, w.String())
	}
	return out, nil
}
