package tokenize

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// matcher finds the non-overlapping, leftmost-first matches of a pattern in
// s and calls yield with their byte offsets, in order.
type matcher interface {
	each(s string, yield func(start, end int))
}

// compileRegex compiles a Hugging Face (Oniguruma) pattern with regexp2,
// whose backtracking, lookaround and Unicode classes (\s, \p{L}) behave like
// Oniguruma's on the patterns real tokenizer.json files use.
func compileRegex(pattern string) (*regexp2.Regexp, error) {
	re, err := regexp2.Compile(pattern, regexp2.Unicode)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", pattern, err)
	}
	return re, nil
}

type regexMatcher struct{ re *regexp2.Regexp }

func (m regexMatcher) each(s string, yield func(start, end int)) { forEachMatch(m.re, s, yield) }

// forEachMatch runs re over s (valid UTF-8) and reports byte offsets.
func forEachMatch(re *regexp2.Regexp, s string, yield func(start, end int)) {
	if s == "" {
		return
	}
	runes := []rune(s)
	m, err := re.FindRunesMatch(runes)
	// Walk rune indices forward to byte offsets; matches arrive in order.
	ri, bi := 0, 0
	advance := func(to int) int {
		for ri < to {
			_, n := utf8.DecodeRuneInString(s[bi:])
			bi += n
			ri++
		}
		return bi
	}
	for err == nil && m != nil {
		start := advance(m.Index)
		end := advance(m.Index + m.Length)
		yield(start, end)
		m, err = re.FindNextMatch(m)
	}
}

// literalMatcher matches every occurrence of a fixed string.
type literalMatcher struct{ lit string }

func (m literalMatcher) each(s string, yield func(start, end int)) {
	if m.lit == "" {
		return
	}
	off := 0
	for {
		i := strings.Index(s[off:], m.lit)
		if i < 0 {
			return
		}
		yield(off+i, off+i+len(m.lit))
		off += i + len(m.lit)
	}
}

// runeMatcher matches every single rune for which f is true.
type runeMatcher struct{ f func(rune) bool }

func (m runeMatcher) each(s string, yield func(start, end int)) {
	for i, r := range s {
		if m.f(r) {
			yield(i, i+utf8.RuneLen(r))
		}
	}
}
