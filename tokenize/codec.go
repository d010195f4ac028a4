package tokenize

// Codec is what gollm-bench needs from a tokenizer. *Tokenizer (pure Go)
// implements it, and so does *HF (cgo, build tag hftokenizers).
// Implementations are safe for concurrent use.
type Codec interface {
	// Encode returns the token ids of text; addSpecialTokens applies the
	// post-processor (BOS and the like).
	Encode(text string, addSpecialTokens bool) []int
	// Count returns the number of tokens of text without special tokens.
	Count(text string) int
	// Decode returns the text of ids.
	Decode(ids []int, skipSpecial bool) string
	// Path returns the resolved tokenizer.json path.
	Path() string
	// SHA256 returns the hex SHA-256 of the tokenizer.json bytes.
	SHA256() string
	// Name returns the model id or the tokenizer directory's name.
	Name() string
	// VocabSize returns the number of token ids, added tokens included.
	VocabSize() int
}

var _ Codec = (*Tokenizer)(nil)
