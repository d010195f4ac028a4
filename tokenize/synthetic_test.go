package tokenize

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// synthetic builds the tokenizer.json described by a patch file: a shipped
// base vocabulary with its normalizer, pre-tokenizer, post-processor or
// decoder replaced and extra added tokens appended (as synthetic/synth.js
// does before running the Rust oracle).
func synthetic(t *testing.T, patchPath string) *Tokenizer {
	t.Helper()
	var patch map[string]json.RawMessage
	raw, err := os.ReadFile(patchPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &patch); err != nil {
		t.Fatal(err)
	}
	var base string
	if err := json.Unmarshal(patch["base"], &base); err != nil {
		t.Fatal(err)
	}
	gz, err := os.ReadFile(filepath.Join(fixtures, "files", base, "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"normalizer", "pre_tokenizer", "post_processor", "decoder"} {
		if v, ok := patch[k]; ok {
			file[k] = v
		}
	}
	if extra, ok := patch["extra_added_tokens"]; ok {
		var a, b []json.RawMessage
		if err := json.Unmarshal(file["added_tokens"], &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(extra, &b); err != nil {
			t.Fatal(err)
		}
		file["added_tokens"], _ = json.Marshal(append(a, b...))
	}
	data, _ = json.Marshal(file)
	tok, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestConformanceSynthetic covers the components the real files do not use
// (NFD, NFKD, Lowercase, Strip, regex Replace, Metaspace, Digits,
// Whitespace, WhitespaceSplit, Punctuation, MergedWithNext, Contiguous,
// invert, ByteLevel add_prefix_space, RobertaProcessing, single_word,
// lstrip, rstrip, normalized added tokens) against the Rust library's ids.
func TestConformanceSynthetic(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	dir := filepath.Join(fixtures, "synthetic")
	patches, _ := filepath.Glob(filepath.Join(dir, "*.patch.json"))
	if len(patches) == 0 {
		t.Fatal("no synthetic patches")
	}
	for _, p := range patches {
		name := strings.TrimSuffix(filepath.Base(p), ".patch.json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tok := synthetic(t, p)
			for _, c := range []struct{ corpus, path string }{
				{"tricky", filepath.Join(fixtures, "corpora", "tricky.jsonl")},
				{"extra", filepath.Join(dir, "extra.jsonl")},
			} {
				texts := readJSONL(t, c.path)
				for _, special := range []bool{false, true} {
					ref := name + "." + c.corpus
					if special {
						ref += ".special"
					}
					want := readJSONL(t, filepath.Join(dir, ref+".ids.jsonl.gz"))
					for i, w := range want {
						if got := tok.Encode(texts[i].Text, special); !slices.Equal(got, w.IDs) {
							t.Errorf("%s %q (%q): got %v, want %v", ref, w.Name, clip(texts[i].Text, 60), got, w.IDs)
						}
					}
				}
			}
		})
	}
}
