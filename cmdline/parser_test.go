package cmdline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAliasConflict: a peer spelling and our flag (or two spellings of
// one flag) given with different values are refused, whichever comes
// first; the same value twice, and a repeatable flag, are not.
func TestAliasConflict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", ":18102", "--target", ":18101"}, "--url is --target's AIPerf, GenAI-Perf spelling; give one"},
		{[]string{"--target", ":18101", "--url", ":18102"}, "--url is --target's AIPerf, GenAI-Perf spelling; give one"},
		{[]string{"--url", "http://h:1", "-u", "http://h:2"}, "give one"},
		{[]string{"--base-url", "http://h:1", "--target", "http://h:2"}, "--base-url is --target's vLLM spelling; give one"},
		{[]string{"--url", "http://h:1", "--target", "http://h:1"}, ""},
		{[]string{"--url", "h:1", "--target", "http://h:1"}, ""},
		{[]string{"-H", "A:1", "--header", "B=2"}, ""},
	} {
		fs := flags()
		err := NewParser(fs, Options{}).Parse(tc.args)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestOverriddenKeyRangeChecked: a configuration key the command line
// overrides is checked by Options.Check with the file's value in place
// (its range, not only its type), reported at its line; the command
// line's value is what the flag keeps, and an error the command line's
// own values raise is not the file's.
func TestOverriddenKeyRangeChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg.yaml")
	if err := os.WriteFile(cfg, []byte("seed: 1\nmax-requests: -5\npue: 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := flags()
	check := func() error {
		var errs []error
		if n, _ := fs.GetInt("max-requests"); n < 0 {
			errs = append(errs, fmt.Errorf("--max-requests %d: want a number >= 0", n))
		}
		if v, _ := fs.GetFloat64("pue"); v != 0 && v < 1 {
			errs = append(errs, fmt.Errorf("--pue %v: want at least 1", v))
		}
		return errors.Join(errs...)
	}
	err := NewParser(fs, Options{Check: check}).Parse([]string{"--config", cfg, "--max-requests", "5", "--pue", "1.2"})
	for _, want := range []string{"cfg.yaml:2: max-requests: --max-requests -5: want a number >= 0", "cfg.yaml:3: pue: --pue 0.5: want at least 1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	if n, _ := fs.GetInt("max-requests"); n != 5 {
		t.Errorf("--max-requests %d, want the command line's 5", n)
	}
	fs = flags()
	err = NewParser(fs, Options{Check: check}).Parse([]string{"--config", cfg, "--max-requests", "-1", "--pue", "1.2"})
	if err == nil || strings.Contains(err.Error(), "-1") {
		t.Errorf("error %v: want the file's -5 only (the command line's -1 is New's to report)", err)
	}
}
