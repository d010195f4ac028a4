package tokenize

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"
)

type mergeInfo struct {
	rank int32
	id   int32
}

// bpe is the Hugging Face BPE model. It is immutable after construction and
// safe for concurrent use.
type bpe struct {
	vocab        map[string]int
	merges       map[uint64]mergeInfo
	unk          int // -1 when the model has no unk_token
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	prefix       string // continuing_subword_prefix
	suffix       string // end_of_word_suffix
	fallback     [256]int32
	// byteInput means words arrive as raw bytes and each byte stands for its
	// byte-level character (the ByteLevel pre-tokenizer's mapping deferred).
	byteInput bool
	byteIDs   [256]int32
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func buildBPE(m *modelJSON, byteInput bool) (*bpe, error) {
	if m.Type != "BPE" && m.Type != "" {
		return nil, fmt.Errorf("unsupported model type %q: only BPE is implemented (WordPiece, Unigram and WordLevel are not)", m.Type)
	}
	var vocab map[string]int
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil {
		return nil, fmt.Errorf("model.vocab: want an object of token to id: %w", err)
	}
	merges, err := parseMerges(m.Merges)
	if err != nil {
		return nil, fmt.Errorf("model.merges: %w", err)
	}
	b := &bpe{
		vocab:        vocab,
		merges:       make(map[uint64]mergeInfo, len(merges)),
		unk:          -1,
		fuseUnk:      m.FuseUnk,
		byteFallback: m.ByteFallback,
		ignoreMerges: m.IgnoreMerges,
		byteInput:    byteInput,
	}
	if m.ContinuingSubwordPrefix != nil {
		b.prefix = *m.ContinuingSubwordPrefix
	}
	if m.EndOfWordSuffix != nil {
		b.suffix = *m.EndOfWordSuffix
	}
	if m.UnkToken != nil {
		if id, ok := vocab[*m.UnkToken]; ok {
			b.unk = id
		} else {
			// HF fails at encode time when it needs the missing unk token;
			// treat it as absent, which drops unknown characters the same way.
			b.unk = -1
		}
	}
	for i, mg := range merges {
		a, ok1 := vocab[mg[0]]
		c, ok2 := vocab[mg[1]]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("model.merges[%d] %q %q: token not in vocab", i, mg[0], mg[1])
		}
		right := mg[1]
		if len(b.prefix) <= len(right) {
			right = right[len(b.prefix):]
		}
		id, ok := vocab[mg[0]+right]
		if !ok {
			return nil, fmt.Errorf("model.merges[%d] %q %q: merged token %q not in vocab", i, mg[0], mg[1], mg[0]+right)
		}
		k := pairKey(int32(a), int32(c))
		if _, dup := b.merges[k]; !dup {
			b.merges[k] = mergeInfo{int32(i), int32(id)}
		}
	}
	for i := 0; i < 256; i++ {
		b.fallback[i] = -1
		if id, ok := vocab[fmt.Sprintf("<0x%02X>", i)]; ok {
			b.fallback[i] = int32(id)
		}
		b.byteIDs[i] = -1
		if id, ok := vocab[string(byteChar(byte(i)))]; ok {
			b.byteIDs[i] = int32(id)
		}
	}
	return b, nil
}

// symbol is one node of the doubly linked list a word is merged on.
type symbol struct {
	id         int32
	prev, next int32
	rank       int32 // rank of the pair (this, next); math.MaxInt32 if none
	newID      int32
}

// scratch holds per-call buffers.
type scratch struct {
	syms   []symbol
	buf    []byte
	pieces []piece
	tmp    []piece
	ids    []int
	h      mergeHeap
}

// encodeWord appends the ids of one pre-token to dst.
func (b *bpe) encodeWord(dst []int, word string, sc *scratch) []int {
	if b.byteInput {
		if b.prefix == "" && b.suffix == "" {
			if b.ignoreMerges {
				sc.buf = appendByteLevel(sc.buf[:0], word)
				if id, ok := b.vocab[string(sc.buf)]; ok {
					return append(dst, id)
				}
			}
			syms := sc.syms[:0]
			ok := true
			for i := 0; i < len(word); i++ {
				id := b.byteIDs[word[i]]
				if id < 0 {
					ok = false
					break
				}
				syms = append(syms, symbol{id: id})
			}
			if ok {
				sc.syms = syms
				return b.mergeAll(dst, sc)
			}
		}
		return b.encodeChars(dst, byteLevelString(word), sc)
	}
	if b.ignoreMerges {
		if id, ok := b.vocab[word]; ok {
			return append(dst, id)
		}
	}
	return b.encodeChars(dst, word, sc)
}

// encodeChars is the general path: one initial symbol per character.
func (b *bpe) encodeChars(dst []int, w string, sc *scratch) []int {
	syms := sc.syms[:0]
	unkID, unkPending := -1, false
	for i := 0; i < len(w); {
		_, size := utf8.DecodeRuneInString(w[i:])
		end := i + size
		s := w[i:end]
		if b.prefix != "" && i > 0 {
			s = b.prefix + s
		}
		if b.suffix != "" && end == len(w) {
			s += b.suffix
		}
		if id, ok := b.vocab[s]; ok {
			if unkPending {
				syms = append(syms, symbol{id: int32(unkID)})
				unkPending = false
			}
			syms = append(syms, symbol{id: int32(id)})
			i = end
			continue
		}
		if b.byteFallback {
			all := true
			for j := 0; j < len(s); j++ {
				if b.fallback[s[j]] < 0 {
					all = false
					break
				}
			}
			if all {
				for j := 0; j < len(s); j++ {
					syms = append(syms, symbol{id: b.fallback[s[j]]})
				}
				i = end
				continue
			}
		}
		if b.unk >= 0 {
			switch {
			case unkPending && b.fuseUnk:
			case unkPending:
				syms = append(syms, symbol{id: int32(unkID)})
			default:
				unkID, unkPending = b.unk, true
			}
		}
		i = end
	}
	if unkPending {
		syms = append(syms, symbol{id: int32(unkID)})
	}
	sc.syms = syms
	return b.mergeAll(dst, sc)
}

func (b *bpe) pairRank(a, c int32) (int32, int32) {
	if m, ok := b.merges[pairKey(a, c)]; ok {
		return m.rank, m.id
	}
	return math.MaxInt32, -1
}

// mergeAll applies merges to sc.syms, lowest rank first and leftmost first
// among equal ranks (the order of HF's priority queue), and appends the ids.
func (b *bpe) mergeAll(dst []int, sc *scratch) []int {
	syms := sc.syms
	n := len(syms)
	if n == 0 {
		return dst
	}
	for i := range syms {
		syms[i].prev = int32(i - 1)
		syms[i].next = int32(i + 1)
		if i+1 < n {
			syms[i].rank, syms[i].newID = b.pairRank(syms[i].id, syms[i+1].id)
		} else {
			syms[i].next = -1
			syms[i].rank = math.MaxInt32
		}
	}
	if n > 64 {
		b.mergeHeap(sc)
	} else {
		for {
			best, bestRank := int32(-1), int32(math.MaxInt32)
			for i := int32(0); i >= 0; i = syms[i].next {
				if syms[i].rank < bestRank {
					best, bestRank = i, syms[i].rank
				}
			}
			if best < 0 {
				break
			}
			b.mergeAt(syms, best)
		}
	}
	for i := int32(0); i >= 0; i = syms[i].next {
		dst = append(dst, int(syms[i].id))
	}
	return dst
}

// mergeAt merges symbol i with its next and refreshes the neighbouring
// pair ranks.
func (b *bpe) mergeAt(syms []symbol, i int32) {
	j := syms[i].next
	syms[i].id = syms[i].newID
	syms[i].next = syms[j].next
	if nn := syms[j].next; nn >= 0 {
		syms[nn].prev = i
		syms[i].rank, syms[i].newID = b.pairRank(syms[i].id, syms[nn].id)
	} else {
		syms[i].rank = math.MaxInt32
	}
	syms[j].id = -1
	if p := syms[i].prev; p >= 0 {
		syms[p].rank, syms[p].newID = b.pairRank(syms[p].id, syms[i].id)
	}
}

type mergeItem struct {
	rank, pos, newID int32
}

type mergeHeap []mergeItem

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeHeap is mergeAll's loop for long words: a priority queue with lazy
// invalidation, O(n log n).
func (b *bpe) mergeHeap(sc *scratch) {
	syms := sc.syms
	h := sc.h[:0]
	for i := range syms {
		if syms[i].rank != math.MaxInt32 {
			h = append(h, mergeItem{syms[i].rank, int32(i), syms[i].newID})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		top := heap.Pop(&h).(mergeItem)
		s := &syms[top.pos]
		if s.id < 0 || s.next < 0 || s.rank != top.rank || s.newID != top.newID {
			continue
		}
		b.mergeAt(syms, top.pos)
		if s.rank != math.MaxInt32 {
			heap.Push(&h, mergeItem{s.rank, top.pos, s.newID})
		}
		if p := s.prev; p >= 0 && syms[p].rank != math.MaxInt32 {
			heap.Push(&h, mergeItem{syms[p].rank, p, syms[p].newID})
		}
	}
	sc.h = h
}

// mergesKeepSpacePrefix reports whether the vocabulary is split-safe at
// "▁": no merge produces a token holding "▁" right after another character.
func mergesKeepSpacePrefix(raw json.RawMessage, b *bpe) bool {
	if b.prefix != "" || b.suffix != "" {
		return false
	}
	if _, ok := b.vocab["\u2581"]; !ok {
		return false
	}
	idToTok := make(map[int32]string, len(b.merges))
	for tok, id := range b.vocab {
		idToTok[int32(id)] = tok
	}
	for _, m := range b.merges {
		tok := idToTok[m.id]
		prev := rune(0x2581)
		for _, r := range tok {
			if r == 0x2581 && prev != 0x2581 {
				return false
			}
			prev = r
		}
	}
	return true
}
