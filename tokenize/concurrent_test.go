package tokenize

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"
)

// TestConcurrentEncode encodes from several goroutines through a tiny cache
// (constant eviction) and checks every result against a serial encode.
func TestConcurrentEncode(t *testing.T) {
	t.Parallel()
	tok, err := Load(filepath.Join(fixtures, "files", "qwen3"), WithCacheSize(64))
	if err != nil {
		t.Fatal(err)
	}
	texts := readJSONL(t, filepath.Join(fixtures, "corpora", "tricky.jsonl"))
	want := make([][]int, len(texts))
	for i, l := range texts {
		want[i] = tok.Encode(l.Text, true)
	}
	var g errgroup.Group
	for w := 0; w < 4; w++ {
		g.Go(func() error {
			for i, l := range texts {
				if got := tok.Encode(l.Text, true); !slices.Equal(got, want[i]) {
					t.Errorf("%s: concurrent encode differs", l.Name)
				}
				if n := tok.Count(l.Text); n != len(want[i])-len(tok.post.prefix)-len(tok.post.suffix) {
					t.Errorf("%s: Count = %d", l.Name, n)
				}
			}
			return nil
		})
	}
	_ = g.Wait()
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ name, arg, want string }{
		{"missing file", filepath.Join(dir, "nope.json"), "no such file"},
		{"empty dir", dir, "holds no tokenizer.json"},
		{"model id not cached", "Org/Model", "Hugging Face cache"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.arg, WithHFHome(dir))
			if err == nil || !containsStr(err.Error(), tc.want) {
				t.Fatalf("Load(%q) error = %v, want it to mention %q", tc.arg, err, tc.want)
			}
		})
	}
	_, err := Parse([]byte(`{"model":{"type":"Unigram","vocab":[]}}`))
	if err == nil || !containsStr(err.Error(), `"Unigram"`) {
		t.Fatalf("Unigram error = %v, want it to name the type", err)
	}
}

func containsStr(s, sub string) bool { return strings.Contains(s, sub) }
