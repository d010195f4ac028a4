package tokenize

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const fixtures = "../testdata/tokenizers"

// shippedLoads loads each tokenizer shipped in testdata/tokenizers/files
// once for all the package's tests: loading one takes a large part of a
// second, and a Tokenizer is immutable and safe for concurrent use.
var shippedLoads = map[string]func() (*Tokenizer, error){
	"qwen3":      sync.OnceValues(func() (*Tokenizer, error) { return Load(filepath.Join(fixtures, "files", "qwen3")) }),
	"mistral-7b": sync.OnceValues(func() (*Tokenizer, error) { return Load(filepath.Join(fixtures, "files", "mistral-7b")) }),
	"gpt-oss":    sync.OnceValues(func() (*Tokenizer, error) { return Load(filepath.Join(fixtures, "files", "gpt-oss")) }),
}

// shipped returns the shipped tokenizer in testdata/tokenizers/files/dir,
// loaded with the default options (shared: do not rely on its cache).
func shipped(t testing.TB, dir string) *Tokenizer {
	t.Helper()
	load, ok := shippedLoads[dir]
	if !ok {
		t.Fatalf("no shipped tokenizer %q", dir)
	}
	tok, err := load()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type corpusLine struct {
	Name string `json:"name"`
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

// readJSONL reads a .jsonl or .jsonl.gz file.
func readJSONL(t testing.TB, path string) []corpusLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	var out []corpusLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l corpusLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var corpusFiles = map[string]string{
	"tricky":  "tricky.jsonl",
	"fuzz":    "fuzz.jsonl",
	"natural": "natural.jsonl.gz",
}

// refCase is one (corpus, special) reference file for a tokenizer.
type refCase struct {
	corpus  string
	special bool
}

var refCases = []refCase{{"tricky", false}, {"tricky", true}, {"fuzz", false}, {"natural", false}}

// checkConformance compares tok against every reference file of ref and
// returns the number of texts checked and matched.
func checkConformance(t *testing.T, tok *Tokenizer, ref string) (checked, matched int) {
	t.Helper()
	for _, rc := range refCases {
		texts := readJSONL(t, filepath.Join(fixtures, "corpora", corpusFiles[rc.corpus]))
		name := ref + "." + rc.corpus
		if rc.special {
			name += ".special"
		}
		want := readJSONL(t, filepath.Join(fixtures, "ref", name+".ids.jsonl.gz"))
		if len(want) != len(texts) {
			t.Fatalf("%s: %d reference lines for %d texts", name, len(want), len(texts))
		}
		fails := 0
		for i, w := range want {
			got := tok.Encode(texts[i].Text, rc.special)
			checked++
			if slices.Equal(got, w.IDs) {
				matched++
			} else {
				fails++
				if fails <= 3 {
					p := 0
					for p < len(got) && p < len(w.IDs) && got[p] == w.IDs[p] {
						p++
					}
					t.Errorf("%s %q: ids differ at %d (got %d ids, want %d): got %v want %v; text %q", name, w.Name, p,
						len(got), len(w.IDs), window(got, p), window(w.IDs, p), clip(texts[i].Text, 120))
				}
			}
			if !rc.special {
				if n := tok.Count(texts[i].Text); n != len(w.IDs) {
					t.Errorf("%s %q: Count = %d, want %d", name, w.Name, n, len(w.IDs))
				}
			}
		}
	}
	return checked, matched
}

func window(ids []int, p int) []int {
	return ids[max(0, p-2):min(len(ids), p+4)]
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// TestConformanceShipped checks the three Apache-2.0 vocabularies shipped in
// testdata against the Rust library's ids, id for id.
func TestConformanceShipped(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	for _, tc := range []struct{ dir, ref string }{
		{"qwen3", "qwen3"},
		{"mistral-7b", "llama2"},
		{"gpt-oss", "gptoss"},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			t.Parallel()
			checked, matched := checkConformance(t, shipped(t, tc.dir), tc.ref)
			t.Logf("%s: %d/%d texts match", tc.ref, matched, checked)
		})
	}
}

// TestConformanceAll checks every tokenizer that has reference ids, reading
// the tokenizer.json files from $GOLLM_TOKENIZERS_DIR/<name>/, which the
// user supplies (README.md, Development, says where to get them). Their
// licences do not allow shipping them, so the test skips without the
// variable.
func TestConformanceAll(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	dir := os.Getenv("GOLLM_TOKENIZERS_DIR")
	if dir == "" {
		t.Skip("GOLLM_TOKENIZERS_DIR is not set: skipping the 11-vocabulary conformance test (point it at a folder holding NAME/tokenizer.json: see README.md, Development)")
	}
	names := []string{"qwen3", "llama2", "gptoss", "llama3", "llama3_1", "gemma3", "gemini", "deepseek_v3", "gpt4o", "gpt35turbo", "claude"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name, "tokenizer.json")
			if _, err := os.Stat(p); err != nil {
				t.Skipf("no %s: %v", p, err)
			}
			tok, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			checked, matched := checkConformance(t, tok, name)
			t.Logf("MATCH %s: %d/%d texts (%.2f%%)", name, matched, checked, 100*float64(matched)/float64(checked))
		})
	}
}
