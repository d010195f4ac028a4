package tokenize

import (
	"unicode"
	"unicode/utf8"
)

// The Split regexes of the common byte-level tokenizers. Each has a
// hand-written scanner below that gives the same matches as regexp2 (and so
// as Oniguruma) on the reference corpora and under FuzzScanners, at many
// times the speed.
const (
	// cl100kPattern: Llama-3, GPT-3.5/4 (cl100k_base).
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// qwenPattern: Qwen2/Qwen3 (single digits).
	qwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// o200kPattern: GPT-4o and gpt-oss (o200k_base, o200k_harmony).
	o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// newPatternMatcher returns a matcher for a Split regex: a hand-written
// scanner for the well-known patterns, regexp2 otherwise.
func newPatternMatcher(pattern string) (matcher, error) {
	switch pattern {
	case cl100kPattern:
		return scanMatcher{scanCL100k(3)}, nil
	case qwenPattern:
		return scanMatcher{scanCL100k(1)}, nil
	case o200kPattern:
		return scanMatcher{scanO200k}, nil
	case gpt2Pattern:
		return scanMatcher{scanGPT2}, nil
	}
	re, err := compileRegex(pattern)
	if err != nil {
		return nil, err
	}
	return regexMatcher{re}, nil
}

// scanMatcher drives a scanner whose matches tile the input: next(s, i)
// returns the end of the match that starts at i (always > i).
type scanMatcher struct {
	next func(s string, i int) int
}

func (m scanMatcher) each(s string, yield func(start, end int)) {
	for i := 0; i < len(s); {
		e := m.next(s, i)
		yield(i, e)
		i = e
	}
}

// Character classes, as bits.
const (
	cL  = 1 << iota // \p{L}
	cN              // \p{N}
	cS              // \s
	cLu             // \p{Lu}
	cLl             // \p{Ll}
	cLt             // \p{Lt}
	cLm             // \p{Lm}
	cLo             // \p{Lo}
	cM              // \p{M}
	cNL             // \r or \n

	cUpper = cLu | cLt | cLm | cLo | cM // o200k's first letter class
	cLower = cLl | cLm | cLo | cM       // o200k's second letter class
)

func class(r rune) uint16 {
	if r < utf8.RuneSelf {
		switch {
		case r >= 'a' && r <= 'z':
			return cL | cLl
		case r >= 'A' && r <= 'Z':
			return cL | cLu
		case r >= '0' && r <= '9':
			return cN
		case r == '\r' || r == '\n':
			return cS | cNL
		case r == ' ' || (r >= '\t' && r <= '\r'):
			return cS
		}
		return 0
	}
	var c uint16
	switch {
	case unicode.Is(unicode.Ll, r):
		c = cL | cLl
	case unicode.Is(unicode.Lu, r):
		c = cL | cLu
	case unicode.Is(unicode.Lo, r):
		c = cL | cLo
	case unicode.Is(unicode.Lm, r):
		c = cL | cLm
	case unicode.Is(unicode.Lt, r):
		c = cL | cLt
	case unicode.Is(unicode.M, r):
		c = cM
	case unicode.IsNumber(r):
		c = cN
	case unicode.IsSpace(r):
		c = cS
	}
	return c
}

// at decodes the rune at s[i] and its class.
func at(s string, i int) (uint16, int) {
	if i >= len(s) {
		return 0, 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		return class(rune(b)), 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return class(r), n
}

// runOf returns the end of the run of runes from i whose class meets mask.
func runOf(s string, i int, mask uint16) int {
	for i < len(s) {
		c, n := at(s, i)
		if c&mask == 0 {
			break
		}
		i += n
	}
	return i
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i:],
// or of the case-sensitive form when fold is false; 0 when none.
func contraction(s string, i int, fold bool) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	lower := func(b byte) byte {
		if fold && b >= 'A' && b <= 'Z' {
			return b + 'a' - 'A'
		}
		return b
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 < len(s) {
		switch string([]byte{lower(s[i+1]), lower(s[i+2])}) {
		case "re", "ve", "ll":
			return 3
		}
	}
	return 0
}

// whitespace handles \s*[\r\n]+|\s+(?!\S)|\s+ at i, where s[i] is \s.
func whitespace(s string, i int) int {
	e, lastNL, lastStart := i, -1, i
	for e < len(s) {
		c, n := at(s, e)
		if c&cS == 0 {
			break
		}
		if c&cNL != 0 {
			lastNL = e
		}
		lastStart = e
		e += n
	}
	if lastNL >= 0 {
		return lastNL + 1
	}
	if e == len(s) || lastStart == i {
		return e
	}
	return lastStart
}

// scanCL100k scans cl100kPattern (maxDigits 3) or qwenPattern (1).
func scanCL100k(maxDigits int) func(s string, i int) int {
	return func(s string, i int) int {
		if n := contraction(s, i, true); n > 0 {
			return i + n
		}
		c0, n0 := at(s, i)
		if c0&(cNL|cL|cN) == 0 {
			if c1, _ := at(s, i+n0); c1&cL != 0 {
				return runOf(s, i+n0, cL)
			}
		}
		if c0&cL != 0 {
			return runOf(s, i, cL)
		}
		if c0&cN != 0 {
			e := i + n0
			for k := 1; k < maxDigits; k++ {
				c, n := at(s, e)
				if c&cN == 0 {
					break
				}
				e += n
			}
			return e
		}
		if e, ok := punctRun(s, i, c0, n0); ok {
			for e < len(s) && (s[e] == '\r' || s[e] == '\n') {
				e++
			}
			return e
		}
		return whitespace(s, i)
	}
}

// punctRun matches ` ?[^\s\p{L}\p{N}]+` at i.
func punctRun(s string, i int, c0 uint16, n0 int) (int, bool) {
	p := i
	if s[i] == ' ' {
		if c1, n1 := at(s, i+1); n1 > 0 && c1&(cS|cL|cN) == 0 {
			p = i + 1
		}
	} else if c0&(cS|cL|cN) != 0 {
		return 0, false
	}
	if p == i && c0&(cS|cL|cN) != 0 {
		return 0, false
	}
	return runOfNot(s, p, cS|cL|cN), true
}

// runOfNot returns the end of the run from i of runes outside mask.
func runOfNot(s string, i int, mask uint16) int {
	for i < len(s) {
		c, n := at(s, i)
		if c&mask != 0 {
			break
		}
		i += n
	}
	return i
}

// scanGPT2 scans gpt2Pattern, the ByteLevel pre-tokenizer's own regex.
func scanGPT2(s string, i int) int {
	if n := contraction(s, i, false); n > 0 {
		return i + n
	}
	c0, n0 := at(s, i)
	p, cp := i, c0
	if s[i] == ' ' {
		if c1, n1 := at(s, i+1); n1 > 0 && c1&cS == 0 {
			p, cp = i+1, c1
		}
	}
	switch {
	case cp&cL != 0:
		return runOf(s, p, cL)
	case cp&cN != 0:
		return runOf(s, p, cN)
	case cp&cS == 0 && p < len(s):
		return runOfNot(s, p, cS|cL|cN)
	}
	_ = n0
	e, lastStart := i, i
	for e < len(s) {
		c, n := at(s, e)
		if c&cS == 0 {
			break
		}
		lastStart = e
		e += n
	}
	if e == len(s) || lastStart == i {
		return e
	}
	return lastStart
}

// o200kLetters tries the two letter alternatives of o200kPattern at i.
func o200kLetters(s string, i int, c0 uint16, n0 int) (int, bool) {
	starts := [2]int{i, -1}
	if c0&(cNL|cL|cN) == 0 {
		starts = [2]int{i + n0, i}
	}
	// [^\r\n\p{L}\p{N}]?[Upper]*[Lower]+
	for _, p := range starts {
		if p < 0 {
			break
		}
		q, lastLower, lastLowerEnd := p, -1, -1
		for q < len(s) {
			c, n := at(s, q)
			if c&cUpper == 0 {
				break
			}
			if c&cLower != 0 {
				lastLower, lastLowerEnd = q, q+n
			}
			q += n
		}
		if c, _ := at(s, q); q < len(s) && c&cLl != 0 {
			e := runOf(s, q, cLower)
			return e + contraction(s, e, true), true
		}
		if lastLower >= 0 {
			return lastLowerEnd + contraction(s, lastLowerEnd, true), true
		}
	}
	// [^\r\n\p{L}\p{N}]?[Upper]+[Lower]*
	for _, p := range starts {
		if p < 0 {
			break
		}
		q := runOf(s, p, cUpper)
		if q > p {
			e := runOf(s, q, cLower)
			return e + contraction(s, e, true), true
		}
	}
	return 0, false
}

// scanO200k scans o200kPattern.
func scanO200k(s string, i int) int {
	c0, n0 := at(s, i)
	if e, ok := o200kLetters(s, i, c0, n0); ok {
		return e
	}
	if c0&cN != 0 {
		e := i + n0
		for k := 1; k < 3; k++ {
			c, n := at(s, e)
			if c&cN == 0 {
				break
			}
			e += n
		}
		return e
	}
	if e, ok := punctRun(s, i, c0, n0); ok {
		for e < len(s) && (s[e] == '\r' || s[e] == '\n' || s[e] == '/') {
			e++
		}
		return e
	}
	return whitespace(s, i)
}
