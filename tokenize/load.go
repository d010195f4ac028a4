package tokenize

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// resolvePath turns a file path, a directory, or a Hugging Face model id
// into the path of a tokenizer.json (or tokenizer.json.gz) file.
func resolvePath(pathOrID, hfHome string) (string, error) {
	if pathOrID == "" {
		return "", errors.New("tokenize: empty tokenizer path or model id")
	}
	if st, err := os.Stat(pathOrID); err == nil {
		if !st.IsDir() {
			return pathOrID, nil
		}
		for _, name := range []string{"tokenizer.json", "tokenizer.json.gz"} {
			p := filepath.Join(pathOrID, name)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("tokenize: directory %s holds no tokenizer.json or tokenizer.json.gz", pathOrID)
	}
	// A model id such as "Qwen/Qwen3-8B" in the local Hugging Face cache.
	if IsModelID(pathOrID) {
		hfHome = hfHomeDir(hfHome)
		repo, revision := splitModelID(pathOrID)
		if snap, ok := cachedSnapshot(hfHome, repo, revision); ok {
			p := filepath.Join(snap.Dir, "tokenizer.json")
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		dir := filepath.Join(hubRepoDir(hfHome, repo), "snapshots")
		if !strings.Contains(pathOrID, "@") {
			// No ref for main: the newest snapshot holding the file.
			matches, _ := filepath.Glob(filepath.Join(dir, "*", "tokenizer.json"))
			if len(matches) > 0 {
				sort.Slice(matches, func(i, j int) bool {
					a, _ := os.Stat(matches[i])
					b, _ := os.Stat(matches[j])
					return a != nil && b != nil && a.ModTime().After(b.ModTime())
				})
				return matches[0], nil
			}
		}
		return "", fmt.Errorf("tokenize: %q is not a file or directory, and the Hugging Face cache has no tokenizer.json for %s@%s under %s (set HF_HOME, or download it: the CLI does unless HF_HUB_OFFLINE is set)", pathOrID, repo, revision, dir)
	}
	return "", fmt.Errorf("tokenize: %s: no such file or directory", pathOrID)
}

// readTokenizerFile reads the file, gunzipping it when it is gzip data, and
// returns the JSON bytes and their SHA-256 (of the uncompressed JSON).
func readTokenizerFile(path string) ([]byte, string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("tokenize: %w", err)
	}
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, "", fmt.Errorf("tokenize: %s: %w", path, err)
		}
		raw, err = io.ReadAll(zr)
		if err != nil {
			return nil, "", fmt.Errorf("tokenize: %s: %w", path, err)
		}
	}
	return digest(raw)
}

func digest(data []byte) ([]byte, string, error) {
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:]), nil
}

// The tokenizer.json schema, as far as this package reads it.

type fileJSON struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	Model         modelJSON        `json:"model"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Decoder       json.RawMessage  `json:"decoder"`
}

type addedTokenJSON struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

type modelJSON struct {
	Type                    string          `json:"type"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	FuseUnk                 bool            `json:"fuse_unk"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
}

// patternJSON is {"String": "..."} or {"Regex": "..."}.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

// componentJSON is the union of every normalizer, pre-tokenizer,
// post-processor and decoder field this package understands.
type componentJSON struct {
	Type string `json:"type"`
	// Sequence members under their various names.
	Normalizers   []json.RawMessage `json:"normalizers"`
	PreTokenizers []json.RawMessage `json:"pretokenizers"`
	Processors    []json.RawMessage `json:"processors"`
	Decoders      []json.RawMessage `json:"decoders"`

	Pattern  *patternJSON `json:"pattern"`
	Content  *string      `json:"content"`
	Prepend  *string      `json:"prepend"`
	Behavior string       `json:"behavior"`
	Invert   bool         `json:"invert"`

	AddPrefixSpace *bool  `json:"add_prefix_space"`
	UseRegex       *bool  `json:"use_regex"`
	Replacement    string `json:"replacement"`
	PrependScheme  string `json:"prepend_scheme"`
	Split          *bool  `json:"split"`

	IndividualDigits bool `json:"individual_digits"`

	StripLeft  *bool `json:"strip_left"`
	StripRight *bool `json:"strip_right"`
	Start      int   `json:"start"`
	Stop       int   `json:"stop"`

	Single        []templateItemJSON          `json:"single"`
	SpecialTokens map[string]templateSpecJSON `json:"special_tokens"`
	Cls           []json.RawMessage           `json:"cls"`
	Sep           []json.RawMessage           `json:"sep"`
}

type templateItemJSON struct {
	SpecialToken *struct {
		ID string `json:"id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID string `json:"id"`
	} `json:"Sequence"`
}

type templateSpecJSON struct {
	ID  string `json:"id"`
	IDs []int  `json:"ids"`
}

func parseComponent(raw json.RawMessage) (*componentJSON, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var c componentJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// parseMerges accepts ["a b", ...] and [["a","b"], ...].
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var asStrings []string
	if err := json.Unmarshal(raw, &asStrings); err == nil {
		out := make([][2]string, len(asStrings))
		for i, s := range asStrings {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("merge %d %q has no space separating its two parts", i, s)
			}
			out[i] = [2]string{a, b}
		}
		return out, nil
	}
	var asPairs [][]string
	if err := json.Unmarshal(raw, &asPairs); err != nil {
		return nil, fmt.Errorf("merges: want [\"a b\", ...] or [[\"a\",\"b\"], ...]: %w", err)
	}
	out := make([][2]string, len(asPairs))
	for i, p := range asPairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("merge %d has %d parts, want 2", i, len(p))
		}
		out[i] = [2]string{p[0], p[1]}
	}
	return out, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// snapshotCommit returns COMMIT from .../snapshots/COMMIT/tokenizer.json,
// or "" for a path outside a Hub cache snapshot.
func snapshotCommit(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(filepath.Dir(dir)) == "snapshots" && commitPattern.MatchString(filepath.Base(dir)) {
		return filepath.Base(dir)
	}
	return ""
}
