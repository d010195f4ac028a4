package tokenize

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"
)

// Tokenizer encodes text into token ids exactly as the Hugging Face
// `tokenizers` library does for the same tokenizer.json, and decodes ids
// back into text. It is immutable after Load and safe for concurrent use by
// multiple goroutines.
type Tokenizer struct {
	path, sha, name string
	commit, source  string

	normalizer    normalizer
	preTokenizer  preTokenizer
	model         *bpe
	rawAdded      *addedMatcher // added tokens matched on raw text (normalized: false)
	normAdded     *addedMatcher // added tokens matched on normalized text
	post          postProcessor
	decoder       decoder
	idToToken     []string
	special       []bool // by id: an added token marked special
	vocabSize     int
	cache         *wordCache
	pool          sync.Pool
	maxCachedWord int
	// spaceSplit: no merge result has "▁" right after another character, so
	// words may be cut before every such "▁" without changing the ids
	// (SentencePiece-style vocabularies), which makes long words cacheable.
	spaceSplit bool
}

// Option configures Load.
type Option func(*options)

type options struct {
	cacheSize int
	hfHome    string
	hub       *HubConfig
}

// WithCacheSize bounds the word-to-ids cache to about n words (default
// 65536; 0 disables it). The cache is sharded and safe for concurrent use.
func WithCacheSize(n int) Option { return func(o *options) { o.cacheSize = n } }

// WithHFHome sets the Hugging Face home directory used to resolve model ids
// (default: $HF_HOME, else ~/.cache/huggingface).
func WithHFHome(dir string) Option { return func(o *options) { o.hfHome = dir } }

// WithHub lets LoadContext download a model id's tokenizer files from the
// Hugging Face Hub (see Download) when the local cache lacks them.
// HubConfig.Home, when empty, is the home WithHFHome names.
func WithHub(c HubConfig) Option { return func(o *options) { o.hub = &c } }

// Source values: where a Tokenizer's tokenizer.json came from.
const (
	SourceFile  = "file"  // a path given by the user
	SourceCache = "cache" // a model id found in the local Hugging Face cache
	SourceHub   = "hub"   // a model id downloaded from the Hub in this call
)

// Load reads a tokenizer.json: a file path (plain or gzip-compressed), a
// directory holding tokenizer.json or tokenizer.json.gz, or a model id
// ("Qwen/Qwen3-8B", or "Qwen/Qwen3-8B@REVISION") already in the local
// Hugging Face cache. It never downloads; LoadContext with WithHub does.
// Only the BPE model is supported; other model types give an error naming
// the type and the file.
func Load(pathOrID string, opts ...Option) (*Tokenizer, error) {
	return LoadContext(context.Background(), pathOrID, opts...)
}

// LoadContext is Load that, given WithHub, downloads a model id's
// tokenizer.json and tokenizer_config.json into the local cache when they
// are not there (ctx bounds the download). Errors from the Hub are
// *HubError values naming the URL and the HTTP status.
func LoadContext(ctx context.Context, pathOrID string, opts ...Option) (*Tokenizer, error) {
	o := options{cacheSize: 1 << 16}
	for _, opt := range opts {
		opt(&o)
	}
	source, commit := SourceFile, ""
	path, err := resolvePath(pathOrID, o.hfHome)
	if err == nil && !fileExists(pathOrID) {
		source = SourceCache
		commit = snapshotCommit(path)
	}
	if err != nil && o.hub != nil && IsModelID(pathOrID) && !fileExists(pathOrID) {
		c := *o.hub
		if c.Home == "" {
			c.Home = o.hfHome
		}
		snap, derr := Download(ctx, pathOrID, c)
		if derr != nil {
			return nil, derr
		}
		path, err = filepath.Join(snap.Dir, "tokenizer.json"), nil
		source, commit = SourceCache, snap.Commit
		if snap.Downloaded {
			source = SourceHub
		}
	}
	if err != nil {
		return nil, err
	}
	data, sha, err := readTokenizerFile(path)
	if err != nil {
		return nil, err
	}
	if source != SourceFile && !json.Valid(data) {
		// A corrupt cached copy fails every later load until removed.
		remove := path
		if blob, err := filepath.EvalSymlinks(path); err == nil && blob != path {
			remove = blob + " and " + path
		}
		return nil, fmt.Errorf("tokenize: the cached %s is not JSON (a corrupt download?): delete %s, then run again to download it afresh", path, remove)
	}
	t, err := parse(data, o)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %s: %w", path, err)
	}
	t.path, t.sha = path, sha
	t.name = nameFor(pathOrID, path)
	t.source, t.commit = source, commit
	if source != SourceFile {
		t.name, _ = splitModelID(pathOrID)
	}
	return t, nil
}

// Parse builds a Tokenizer from the bytes of a tokenizer.json. Path and
// Name are empty; SHA256 is the digest of data.
func Parse(data []byte, opts ...Option) (*Tokenizer, error) {
	o := options{cacheSize: 1 << 16}
	for _, opt := range opts {
		opt(&o)
	}
	t, err := parse(data, o)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	_, t.sha, _ = digest(data)
	return t, nil
}

func nameFor(pathOrID, path string) string {
	if !strings.HasPrefix(filepath.Clean(path), filepath.Clean(pathOrID)) {
		return pathOrID // a model id
	}
	base := filepath.Base(path)
	if strings.HasPrefix(base, "tokenizer.json") {
		return filepath.Base(filepath.Dir(path))
	}
	return strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".json")
}

func parse(data []byte, o options) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	t := &Tokenizer{cache: newWordCache(o.cacheSize), maxCachedWord: 256}
	nc, err := parseComponent(f.Normalizer)
	if err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	if t.normalizer, err = buildNormalizer(nc); err != nil {
		return nil, err
	}
	pc, err := parseComponent(f.PreTokenizer)
	if err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	var byteInput bool
	if t.preTokenizer, byteInput, err = buildPreTokenizer(pc, true); err != nil {
		return nil, err
	}
	if t.model, err = buildBPE(&f.Model, byteInput); err != nil {
		return nil, err
	}
	ppc, err := parseComponent(f.PostProcessor)
	if err != nil {
		return nil, fmt.Errorf("post_processor: %w", err)
	}
	if t.post, err = buildPostProcessor(ppc); err != nil {
		return nil, err
	}
	dc, err := parseComponent(f.Decoder)
	if err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	if t.decoder, err = buildDecoder(dc); err != nil {
		return nil, err
	}

	t.spaceSplit = !byteInput && mergesKeepSpacePrefix(f.Model.Merges, t.model)

	// Id to token table: the model vocabulary, then added tokens over it.
	maxID := -1
	for _, id := range t.model.vocab {
		maxID = max(maxID, id)
	}
	for _, a := range f.AddedTokens {
		maxID = max(maxID, a.ID)
	}
	t.idToToken = make([]string, maxID+1)
	t.special = make([]bool, maxID+1)
	present := make([]bool, maxID+1)
	for tok, id := range t.model.vocab {
		if id >= 0 {
			t.idToToken[id] = tok
			present[id] = true
		}
	}
	var raw, normed []addedToken
	// HF re-adds the tokens in file order: a content already in the model
	// vocabulary (or added before) keeps that id, a new one gets the next id
	// after the vocabulary and the added tokens so far. For real files this
	// is the id written in the file.
	nextID := len(t.model.vocab)
	assigned := map[string]int{}
	for i := range f.AddedTokens {
		a := &f.AddedTokens[i]
		if id, ok := t.model.vocab[a.Content]; ok {
			a.ID = id
		} else if id, ok := assigned[a.Content]; ok {
			a.ID = id
		} else {
			a.ID = nextID
		}
		assigned[a.Content] = a.ID
		nextID = max(nextID, a.ID+1)
	}
	for _, a := range f.AddedTokens {
		maxID = max(maxID, a.ID)
	}
	if len(t.idToToken) < maxID+1 {
		t.idToToken = append(t.idToToken, make([]string, maxID+1-len(t.idToToken))...)
		t.special = append(t.special, make([]bool, maxID+1-len(t.special))...)
		present = append(present, make([]bool, maxID+1-len(present))...)
	}
	for _, a := range f.AddedTokens {
		t.idToToken[a.ID] = a.Content
		present[a.ID] = true
		t.special[a.ID] = a.Special
		at := addedToken{id: a.ID, content: a.Content, singleWord: a.SingleWord, lstrip: a.LStrip, rstrip: a.RStrip, special: a.Special}
		if a.Normalized && !a.Special {
			if t.normalizer != nil {
				at.content = t.normalizer.normalize(at.content)
			}
			normed = append(normed, at)
		} else {
			raw = append(raw, at)
		}
	}
	for _, p := range present {
		if p {
			t.vocabSize++
		}
	}
	sortAdded(raw)
	sortAdded(normed)
	t.rawAdded = newAddedMatcher(raw)
	t.normAdded = newAddedMatcher(normed)
	t.pool.New = func() any { return new(scratch) }
	return t, nil
}

// Path returns the resolved path of the tokenizer.json file ("" after Parse).
func (t *Tokenizer) Path() string { return t.path }

// Source says where the tokenizer.json came from: SourceFile, SourceCache
// or SourceHub; empty for Parse.
func (t *Tokenizer) Source() string { return t.source }

// Commit returns the Hub commit (40 hex digits) of the cache snapshot the
// tokenizer.json was read from; empty when it was not read from one.
func (t *Tokenizer) Commit() string { return t.commit }

// SHA256 returns the hex SHA-256 of the tokenizer.json bytes (after gunzip),
// for run metadata.
func (t *Tokenizer) SHA256() string { return t.sha }

// Name returns the model id Load was given, or the name of the directory
// holding the tokenizer.json.
func (t *Tokenizer) Name() string { return t.name }

// VocabSize returns the number of distinct token ids, added tokens included.
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// Encode returns the token ids of text. With addSpecialTokens the
// post-processor's tokens (such as BOS) are added, as HF's
// encode(text, add_special_tokens=True). Invalid UTF-8 is replaced by U+FFFD
// first. Safe for concurrent use.
func (t *Tokenizer) Encode(text string, addSpecialTokens bool) []int {
	sc := t.pool.Get().(*scratch)
	var ids []int
	if addSpecialTokens {
		ids = append(ids, t.post.prefix...)
	}
	ids = t.encode(ids, text, sc)
	if addSpecialTokens {
		ids = append(ids, t.post.suffix...)
	}
	t.pool.Put(sc)
	if ids == nil {
		ids = []int{}
	}
	return ids
}

// Count returns len(Encode(text, false)) without keeping the id slice.
// Safe for concurrent use.
func (t *Tokenizer) Count(text string) int {
	sc := t.pool.Get().(*scratch)
	sc.ids = t.encode(sc.ids[:0], text, sc)
	n := len(sc.ids)
	t.pool.Put(sc)
	return n
}

// CountBytes is Count of text's bytes, without copying them. It reads
// text only during the call (the word cache stores copies of its words),
// so the caller may overwrite the buffer as soon as it returns
// (openai.WithByteTokenCounter). Safe for concurrent use.
func (t *Tokenizer) CountBytes(text []byte) int {
	return t.Count(unsafe.String(unsafe.SliceData(text), len(text)))
}

func (t *Tokenizer) encode(dst []int, text string, sc *scratch) []int {
	text = validString(text)
	var splits [8]addedSplit
	for _, sp := range t.rawAdded.split(splits[:0], text) {
		if sp.token >= 0 {
			dst = append(dst, t.rawAdded.tokens[sp.token].id)
			continue
		}
		seg := text[sp.start:sp.end]
		if seg == "" {
			continue
		}
		first := sp.start == 0
		if t.normalizer != nil {
			if first {
				seg, first = normalizeTracked(t.normalizer, seg)
			} else {
				seg = t.normalizer.normalize(seg)
			}
		}
		if t.normAdded == nil {
			dst = t.encodeSegment(dst, seg, first, sc)
			continue
		}
		var sub [8]addedSplit
		for _, ns := range t.normAdded.split(sub[:0], seg) {
			if ns.token >= 0 {
				dst = append(dst, t.normAdded.tokens[ns.token].id)
				continue
			}
			if ns.start < ns.end {
				dst = t.encodeSegment(dst, seg[ns.start:ns.end], first && ns.start == 0, sc)
			}
		}
	}
	return dst
}

func (t *Tokenizer) encodeSegment(dst []int, seg string, first bool, sc *scratch) []int {
	if t.preTokenizer == nil {
		return t.encodeWord(dst, seg, sc)
	}
	var pieces []piece
	if q, ok := t.preTokenizer.(preSequence); ok {
		pieces, sc.tmp = q.run(piece{seg, first}, sc.pieces, sc.tmp)
	} else {
		pieces = t.preTokenizer.split(sc.pieces[:0], piece{seg, first})
	}
	for _, p := range pieces {
		dst = t.encodeWord(dst, p.s, sc)
	}
	sc.pieces = pieces[:0]
	return dst
}

func (t *Tokenizer) encodeWord(dst []int, w string, sc *scratch) []int {
	if t.spaceSplit && len(w) > 3 {
		start := 0
		prevSpace := true
		for i := 0; i+2 < len(w); {
			if w[i] == 0xE2 && w[i+1] == 0x96 && w[i+2] == 0x81 { // "▁"
				if !prevSpace && i > start {
					dst = t.encodeCached(dst, w[start:i], sc)
					start = i
				}
				prevSpace = true
				i += 3
				continue
			}
			prevSpace = false
			i++
		}
		return t.encodeCached(dst, w[start:], sc)
	}
	return t.encodeCached(dst, w, sc)
}

func (t *Tokenizer) encodeCached(dst []int, w string, sc *scratch) []int {
	if len(w) > t.maxCachedWord || t.cache == nil {
		return t.model.encodeWord(dst, w, sc)
	}
	if ids, ok := t.cache.get(w); ok {
		return append(dst, ids...)
	}
	n := len(dst)
	dst = t.model.encodeWord(dst, w, sc)
	t.cache.put(strings.Clone(w), append([]int(nil), dst[n:]...))
	return dst
}

// Decode returns the text of ids, as HF's decode(ids, skip_special_tokens).
// Unknown ids are skipped. Safe for concurrent use.
func (t *Tokenizer) Decode(ids []int, skipSpecial bool) string {
	tokens := make([]string, 0, len(ids))
	for _, id := range ids {
		if id < 0 || id >= len(t.idToToken) {
			continue
		}
		if skipSpecial && t.special[id] {
			continue
		}
		tokens = append(tokens, t.idToToken[id])
	}
	if t.decoder == nil {
		return strings.Join(tokens, " ")
	}
	return strings.Join(t.decoder.decodeChain(tokens), "")
}

// TokenID returns the id of a token string (vocabulary or added token).
func (t *Tokenizer) TokenID(token string) (int, bool) {
	for _, m := range []*addedMatcher{t.rawAdded, t.normAdded} {
		if m == nil {
			continue
		}
		for _, a := range m.tokens {
			if a.content == token {
				return a.id, true
			}
		}
	}
	id, ok := t.model.vocab[token]
	return id, ok
}
