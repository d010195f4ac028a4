//go:build hftokenizers

package tokenize

import (
	"fmt"

	hf "github.com/daulet/tokenizers"
)

// HF is a Codec backed by the Hugging Face Rust library through cgo
// (github.com/daulet/tokenizers). It needs libtokenizers.a at link time
// (CGO_LDFLAGS=-L/dir/holding/it) and the build tag hftokenizers. It is
// safe for concurrent use; call Close to free the Rust object.
type HF struct {
	tok             *hf.Tokenizer
	path, sha, name string
}

// NewHF loads a tokenizer.json the same way Load does (path, directory,
// .json.gz or cached model id) into the Rust library.
func NewHF(pathOrID string, opts ...Option) (*HF, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	path, err := resolvePath(pathOrID, o.hfHome)
	if err != nil {
		return nil, err
	}
	data, sha, err := readTokenizerFile(path)
	if err != nil {
		return nil, err
	}
	tok, err := hf.FromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %s: %w", path, err)
	}
	return &HF{tok: tok, path: path, sha: sha, name: nameFor(pathOrID, path)}, nil
}

// Encode returns the token ids of text.
func (h *HF) Encode(text string, addSpecialTokens bool) []int {
	ids, _ := h.tok.Encode(text, addSpecialTokens)
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// Count returns the number of tokens of text without special tokens.
func (h *HF) Count(text string) int {
	ids, _ := h.tok.Encode(text, false)
	return len(ids)
}

// Decode returns the text of ids.
func (h *HF) Decode(ids []int, skipSpecial bool) string {
	u := make([]uint32, 0, len(ids))
	for _, id := range ids {
		if id >= 0 {
			u = append(u, uint32(id))
		}
	}
	return h.tok.Decode(u, skipSpecial)
}

// Path returns the resolved tokenizer.json path.
func (h *HF) Path() string { return h.path }

// SHA256 returns the hex SHA-256 of the tokenizer.json bytes.
func (h *HF) SHA256() string { return h.sha }

// Name returns the model id or the tokenizer directory's name.
func (h *HF) Name() string { return h.name }

// VocabSize returns the vocabulary size reported by the Rust library.
func (h *HF) VocabSize() int { return int(h.tok.VocabSize()) }

// Close frees the Rust tokenizer.
func (h *HF) Close() error { return h.tok.Close() }

var _ Codec = (*HF)(nil)
