package workload

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
)

// segments builds prompts out of pieces of exact length in the served
// tokenizer (or in words without one), for workloads whose prompts share
// pieces: a trace's prefix blocks, a group's system prompt.
//
// Every piece ("segment") starts with a letter and, when it is long
// enough, ends with a newline, so that no token of a byte-level BPE
// tokenizer spans two pieces (its pre-tokenizer splits at a newline
// followed by a letter): a prompt's length is then the sum of its
// pieces', and two prompts that start with the same pieces start with the
// same tokens, which is what a server's prefix cache matches. Whether a
// tokenizer adds up this way is checked once (newSegments); when it does
// not, each prompt is counted whole and its last piece adjusted.
type segments struct {
	tok      Tokenizer
	count    func(string) int
	ids      []int    // the source in tokens (with a tokenizer)
	words    []string // the source in words (without)
	additive bool     // pieces' counts add up (always true for words)
}

// newSegments prepares the source text (DefaultSource() when empty).
func newSegments(tok Tokenizer, source string) (*segments, error) {
	if source == "" {
		source = DefaultSource()
	}
	s := &segments{tok: tok, additive: true}
	if tok == nil {
		s.words = strings.Fields(source)
		if len(s.words) < 2 {
			return nil, errors.New("workload: the source text has fewer than 2 words")
		}
		return s, nil
	}
	s.count = func(text string) int { return len(tok.Encode(text, false)) }
	if c, ok := tok.(interface{ Count(string) int }); ok {
		s.count = c.Count
	}
	s.ids = tok.Encode(source, false)
	if len(s.ids) < 2 {
		return nil, errors.New("workload: the source text encodes to fewer than 2 tokens")
	}
	s.additive = s.checkAdditive()
	return s, nil
}

// checkAdditive composes a few pieces, one of them cut short as a
// trace's last block is, and reports whether the whole counts as the sum
// of its pieces.
func (s *segments) checkAdditive() bool {
	for key := uint64(1); key <= 4; key++ {
		a, err1 := s.segment(key, 64)
		b, err2 := s.segment(key+100, 48)
		c, err3 := s.cut(b, 20)
		if err := errors.Join(err1, err2, err3); err != nil {
			return false
		}
		if s.count(a+b+a) != 64+48+64 || s.count(a+c) != 64+20 {
			return false
		}
	}
	return true
}

// key hashes the parts of a piece's identity (seed, nonce, kind, id) into
// the key that picks its marker and source offset.
func key(parts ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return splitmix(h.Sum64())
}

// splitmix scrambles x (SplitMix64's finaliser).
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// marker is the leading word of a piece: eight lowercase letters from
// k, so that pieces with different keys differ from their first token.
func marker(k uint64) string {
	var b [8]byte
	for i := range b {
		b[i] = 'a' + byte(k%26)
		k /= 26
	}
	return string(b[:])
}

// segment returns a piece of exactly n tokens (n words without a
// tokenizer) for key k: its marker, then source text from an offset k
// picks, then a newline; a piece too short for the marker or the newline
// goes without them (n >= 1).
func (s *segments) segment(k uint64, n int) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("a piece of %d tokens", n)
	}
	m := marker(k)
	if s.tok == nil {
		w := append([]string{m}, cyclic(s.words, int(k>>8%uint64(len(s.words))), n-1)...)
		return strings.Join(w, " ") + "\n", nil
	}
	off := int(k >> 8 % uint64(len(s.ids)))
	for _, v := range []struct{ head, tail string }{{m + " ", "\n"}, {"", "\n"}, {"", ""}} {
		if text, ok := s.fit(v.head, v.tail, off, n); ok {
			return text, nil
		}
	}
	return "", fmt.Errorf("could not build a piece of exactly %d tokens from the source text", n)
}

// fit searches for head + body + tail of exactly n tokens, body cut
// from the source at off (moved on by one token when the search cycles);
// without a head the body starts at its first letter.
func (s *segments) fit(head, tail string, off, n int) (string, bool) {
	fixed := s.count(head + tail)
	for try := range maxFitTries {
		k := n - fixed
		seen := map[int]bool{}
		for range 8 {
			if k < 1 || seen[k] {
				break
			}
			seen[k] = true
			body := s.tok.Decode(cyclic(s.ids, off+try, k), false)
			if head == "" {
				body = strings.TrimLeftFunc(body, func(r rune) bool { return !unicode.IsLetter(r) })
			} else {
				body = strings.TrimLeft(body, " ")
			}
			text := head + body + tail
			if body == "" {
				k++
				continue
			}
			got := s.count(text)
			if got == n {
				return text, true
			}
			k += n - got
		}
	}
	return "", false
}

// cut returns the start of piece seg that counts exactly n tokens (n
// words), n at most seg's length: the first n tokens of seg, re-fitted
// where decoding a cut token sequence counts differently. Two prompts
// that use the same piece, whole or cut, share its first tokens.
func (s *segments) cut(seg string, n int) (string, error) {
	if s.tok == nil {
		w := strings.Fields(seg)
		if n > len(w) {
			return "", fmt.Errorf("cutting %d words from a piece of %d", n, len(w))
		}
		return strings.Join(w[:n], " ") + "\n", nil
	}
	ids := s.tok.Encode(seg, false)
	k, seen := n, map[int]bool{}
	for range 12 {
		if k < 1 || k > len(ids) || seen[k] {
			break
		}
		seen[k] = true
		text := s.tok.Decode(ids[:k], false)
		got := s.count(text)
		if got == n {
			return text, nil
		}
		k += n - got
	}
	return "", fmt.Errorf("could not cut a piece to exactly %d tokens", n)
}

// join returns the prompt made of parts, whose lengths add up to want
// tokens when the tokenizer is additive. Otherwise the prompt is counted
// whole and its last part rebuilt by last(n), a part of n tokens, until
// the whole counts want.
func (s *segments) join(parts []string, lastLen, want int, last func(n int) (string, error)) ([]string, error) {
	if s.additive {
		return parts, nil
	}
	for range 8 {
		got := s.count(strings.Join(parts, ""))
		if got == want {
			return parts, nil
		}
		n := lastLen + want - got
		if n < 1 {
			break
		}
		p, err := last(n)
		if err != nil {
			return nil, err
		}
		parts[len(parts)-1], lastLen = p, n
	}
	return nil, fmt.Errorf("could not build a prompt of exactly %d tokens from its pieces", want)
}
