package cmdline

import (
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
