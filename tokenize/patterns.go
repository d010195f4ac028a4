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

// The Split regexes of DeepSeek-V3 (and R1), applied one after the other,
// each with the Isolated behaviour.
const (
	deepSeekDigits  = `\p{N}{1,3}`
	deepSeekCJK     = `[一-龥぀-ゟ゠-ヿ]+`
	deepSeekPattern = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
)

// newIsolatedMatcher returns a scanner for a Split regex applied with the
// Isolated behaviour, whose pieces are the matches and the text between
// them alike: the scanner's tiles are both. It returns nil for patterns
// without one (newPatternMatcher then applies).
func newIsolatedMatcher(pattern string) matcher {
	switch pattern {
	case deepSeekDigits:
		return scanMatcher{scanDigits3}
	case deepSeekCJK:
		return scanMatcher{scanCJK}
	case deepSeekPattern:
		return scanMatcher{scanDeepSeek}
	}
	return nil
}

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
	cL   = 1 << iota // \p{L}
	cN               // \p{N}
	cS               // \s
	cLu              // \p{Lu}
	cLl              // \p{Ll}
	cLt              // \p{Lt}
	cLm              // \p{Lm}
	cLo              // \p{Lo}
	cM               // \p{M}
	cNL              // \r or \n
	cP               // \p{P}
	cSym             // \p{S}

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
		return asciiPunct[r]
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
	case unicode.IsPunct(r):
		c = cP
	case unicode.IsSymbol(r):
		c = cSym
	}
	return c
}

// asciiPunct classes the ASCII punctuation (\p{P}) and symbols (\p{S}).
var asciiPunct = func() (t [utf8.RuneSelf]uint16) {
	for _, r := range "!\"#%&'()*,-./:;?@[\\]_{}" {
		t[r] = cP
	}
	for _, r := range "$+<=>^`|~" {
		t[r] = cSym
	}
	return t
}()

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

// scanDigits3 tiles s for \p{N}{1,3}: up to three numbers, or the text up
// to the next number.
func scanDigits3(s string, i int) int {
	c, n := at(s, i)
	if c&cN == 0 {
		return runOfNot(s, i+n, cN)
	}
	e := i + n
	for k := 1; k < 3; k++ {
		c, n := at(s, e)
		if c&cN == 0 {
			break
		}
		e += n
	}
	return e
}

// isCJK reports whether r is in [一-龥぀-ゟ゠-ヿ].
func isCJK(r rune) bool { return r >= 0x4E00 && r <= 0x9FA5 || r >= 0x3040 && r <= 0x30FF }

// scanCJK tiles s for [一-龥぀-ゟ゠-ヿ]+: a run of those characters, or of
// the others.
func scanCJK(s string, i int) int {
	r, n := utf8.DecodeRuneInString(s[i:])
	in := isCJK(r)
	for i += n; i < len(s); i += n {
		if s[i] < utf8.RuneSelf {
			if in {
				return i
			}
			n = 1
			continue
		}
		r, n = utf8.DecodeRuneInString(s[i:])
		if isCJK(r) != in {
			return i
		}
	}
	return i
}

// scanDeepSeek tiles s for deepSeekPattern: a match, or the text up to the
// next position where one starts.
func scanDeepSeek(s string, i int) int {
	if e, ok := deepSeekMatch(s, i); ok {
		return e
	}
	_, n := at(s, i)
	for i += n; i < len(s); i += n {
		if _, ok := deepSeekMatch(s, i); ok {
			return i
		}
		_, n = at(s, i)
	}
	return i
}

// isASCIILetter reports whether b is in [A-Za-z].
func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// deepSeekMatch tries deepSeekPattern's alternatives at i, in order, and
// returns the end of the first that matches.
func deepSeekMatch(s string, i int) (int, bool) {
	c0, n0 := at(s, i)
	// [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+: every ASCII
	// punctuation or symbol.
	if s[i] < utf8.RuneSelf && c0&(cP|cSym) != 0 && i+1 < len(s) && isASCIILetter(s[i+1]) {
		e := i + 2
		for e < len(s) && isASCIILetter(s[e]) {
			e++
		}
		return e, true
	}
	// [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
	if c0&(cNL|cL|cP|cSym) == 0 {
		if c1, _ := at(s, i+n0); c1&(cL|cM) != 0 {
			return runOf(s, i+n0, cL|cM), true
		}
	}
	if c0&(cL|cM) != 0 {
		return runOf(s, i, cL|cM), true
	}
	//  ?[\p{P}\p{S}]+[\r\n]*
	p := -1
	switch {
	case c0&(cP|cSym) != 0:
		p = i
	case s[i] == ' ':
		if c1, _ := at(s, i+1); c1&(cP|cSym) != 0 {
			p = i + 1
		}
	}
	if p >= 0 {
		e := runOf(s, p, cP|cSym)
		for e < len(s) && (s[e] == '\r' || s[e] == '\n') {
			e++
		}
		return e, true
	}
	// \s*[\r\n]+|\s+(?!\S)|\s+
	if c0&cS != 0 {
		return whitespace(s, i), true
	}
	return 0, false
}
