package tokenize

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadHFCache resolves a model id in a fake Hugging Face cache and
// checks the path, name and SHA-256 metadata, and that the SHA-256 of a
// .json.gz is that of the JSON inside. Mistral-7B's, the smallest shipped
// vocabulary, loads fastest.
func TestLoadHFCache(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	home := t.TempDir()
	snap := filepath.Join(home, "hub", "models--mistralai--Mistral-7B-v0.1", "snapshots", "abc123")
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	data, sha, err := readTokenizerFile(filepath.Join(fixtures, "files", "mistral-7b", "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(snap, "tokenizer.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := Load("mistralai/Mistral-7B-v0.1", WithHFHome(home))
	if err != nil {
		t.Fatal(err)
	}
	if tok.Name() != "mistralai/Mistral-7B-v0.1" || tok.Path() != filepath.Join(snap, "tokenizer.json") || tok.SHA256() != sha {
		t.Fatalf("name %q path %q sha %q; want the model id, %s and %s", tok.Name(), tok.Path(), tok.SHA256(), snap, sha)
	}
	if gz := shipped(t, "mistral-7b"); gz.SHA256() != sha || gz.Name() != "mistral-7b" || gz.VocabSize() != 32000 {
		t.Fatalf("gz: sha %q name %q vocab %d", gz.SHA256(), gz.Name(), gz.VocabSize())
	}
}

// TestDecode checks decoding against texts the Rust library produces.
func TestDecode(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	for _, tc := range []struct {
		dir         string
		text        string
		skipSpecial bool
		want        string
	}{
		{"qwen3", "Hello world<|im_end|>", false, "Hello world<|im_end|>"},
		{"qwen3", "Hello world<|im_end|>", true, "Hello world"},
		{"mistral-7b", "Hello  world\n日本", false, "<s> Hello  world\n日本"},
		{"mistral-7b", "Hello  world\n日本", true, "Hello  world\n日本"},
		{"gpt-oss", " spaced  out ", true, " spaced  out "},
	} {
		tok := shipped(t, tc.dir)
		if got := tok.Decode(tok.Encode(tc.text, true), tc.skipSpecial); got != tc.want {
			t.Errorf("%s: Decode(Encode(%q)) = %q, want %q", tc.dir, tc.text, got, tc.want)
		}
	}
}
