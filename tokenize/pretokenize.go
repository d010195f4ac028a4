package tokenize

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// piece is one pre-token: a substring handed on to the next stage, and
// whether it starts at offset 0 of the original text (Metaspace "first").
type piece struct {
	s     string
	first bool
}

// preTokenizer splits one piece into smaller ones, appending them to dst.
type preTokenizer interface {
	split(dst []piece, p piece) []piece
}

// behavior is a Hugging Face SplitDelimiterBehavior.
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

func parseBehavior(s string) (behavior, error) {
	switch s {
	case "Removed":
		return removed, nil
	case "Isolated", "":
		return isolated, nil
	case "MergedWithPrevious":
		return mergedWithPrevious, nil
	case "MergedWithNext":
		return mergedWithNext, nil
	case "Contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("unknown split behavior %q (want Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous)", s)
}

type span struct {
	start, end int
	match      bool
}

// splitPieces applies m to p with the given behaviour, as
// NormalizedString::split does, dropping empty results.
func splitPieces(dst []piece, p piece, m matcher, b behavior, invert bool) []piece {
	s := p.s
	if s == "" {
		return dst
	}
	// Fast path for the common Isolated case: no intermediate slice, and
	// with a scanner, whose matches tile s, not even a closure.
	if sm, ok := m.(scanMatcher); ok && b == isolated {
		for i := 0; i < len(s); {
			e := sm.next(s, i)
			dst = append(dst, piece{s[i:e], p.first && i == 0})
			i = e
		}
		return dst
	}
	return splitMatches(dst, p, m, b, invert)
}

// splitMatches is splitPieces for any matcher. Its closures capture dst,
// which therefore lives on the heap: one allocation per call, kept out of
// splitPieces' fast path.
func splitMatches(dst []piece, p piece, m matcher, b behavior, invert bool) []piece {
	s := p.s
	if b == isolated {
		prev := 0
		emit := func(a, z int) {
			if a < z {
				dst = append(dst, piece{s[a:z], p.first && a == 0})
			}
		}
		m.each(s, func(start, end int) {
			emit(prev, start)
			emit(start, end)
			prev = end
		})
		emit(prev, len(s))
		return dst
	}
	var spans []span
	prev := 0
	m.each(s, func(start, end int) {
		if prev != start {
			spans = append(spans, span{prev, start, invert})
		}
		spans = append(spans, span{start, end, !invert})
		prev = end
	})
	if prev != len(s) {
		spans = append(spans, span{prev, len(s), invert})
	}
	var out []span
	switch b {
	case removed:
		for _, sp := range spans {
			if !sp.match {
				out = append(out, sp)
			}
		}
	case mergedWithPrevious:
		prevMatch := false
		for _, sp := range spans {
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
	case mergedWithNext:
		prevMatch := false
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].start = sp.start
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	case contiguous:
		prevMatch := false
		for i, sp := range spans {
			if i > 0 && sp.match == prevMatch {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
	}
	for _, sp := range out {
		if sp.start < sp.end {
			dst = append(dst, piece{s[sp.start:sp.end], p.first && sp.start == 0})
		}
	}
	return dst
}

type splitPre struct {
	m        matcher
	behavior behavior
	invert   bool
}

func (sp splitPre) split(dst []piece, p piece) []piece {
	return splitPieces(dst, p, sp.m, sp.behavior, sp.invert)
}

// byteLevelPre is the ByteLevel pre-tokenizer. When mapBytes is false the
// byte-to-unicode mapping is left to the model (it is the last stage).
type byteLevelPre struct {
	addPrefixSpace bool
	re             matcher // nil when use_regex is false
	mapBytes       bool
}

func (bl byteLevelPre) split(dst []piece, p piece) []piece {
	if bl.addPrefixSpace && !strings.HasPrefix(p.s, " ") {
		p.s = " " + p.s
	}
	n := len(dst)
	if bl.re != nil {
		dst = splitPieces(dst, p, bl.re, isolated, false)
	} else if p.s != "" {
		dst = append(dst, p)
	}
	if bl.mapBytes {
		for i := n; i < len(dst); i++ {
			dst[i].s = byteLevelString(dst[i].s)
		}
	}
	return dst
}

type metaspacePre struct {
	replacement rune
	rep         string
	scheme      string // "always", "first", "never"
	splitOn     bool
}

func (ms metaspacePre) split(dst []piece, p piece) []piece {
	s := strings.ReplaceAll(p.s, " ", ms.rep)
	switch ms.scheme {
	case "always":
		if !strings.HasPrefix(s, ms.rep) {
			s = ms.rep + s
		}
	case "first":
		if !strings.HasPrefix(s, ms.rep) && p.first {
			s = ms.rep + s
		}
	}
	p.s = s
	if !ms.splitOn {
		if s != "" {
			dst = append(dst, p)
		}
		return dst
	}
	return splitPieces(dst, p, literalMatcher{ms.rep}, mergedWithNext, false)
}

type preSequence []preTokenizer

func (q preSequence) split(dst []piece, p piece) []piece {
	out, _ := q.run(p, nil, nil)
	return append(dst, out...)
}

// run applies the stages using the two buffers a and b, and returns the
// pieces and the other buffer for reuse.
func (q preSequence) run(p piece, a, b []piece) (out, spare []piece) {
	cur := append(a[:0], p)
	next := b
	for _, stage := range q {
		next = next[:0]
		for _, c := range cur {
			next = stage.split(next, c)
		}
		cur, next = next, cur
	}
	return cur, next
}

func isPunctuation(r rune) bool {
	if r < utf8.RuneSelf {
		return strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r)
	}
	return unicode.IsPunct(r)
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// gpt2Pattern is the regex of the ByteLevel pre-tokenizer (use_regex true).
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

func buildPreTokenizer(c *componentJSON, last bool) (pt preTokenizer, byteLevelDeferred bool, err error) {
	if c == nil {
		return nil, false, nil
	}
	switch c.Type {
	case "Split":
		if c.Pattern == nil {
			return nil, false, fmt.Errorf("pre_tokenizer Split: missing \"pattern\"")
		}
		b, err := parseBehavior(c.Behavior)
		if err != nil {
			return nil, false, fmt.Errorf("pre_tokenizer Split: %w", err)
		}
		var m matcher
		switch {
		case c.Pattern.String != nil:
			m = literalMatcher{*c.Pattern.String}
		case c.Pattern.Regex != nil && b == isolated && newIsolatedMatcher(*c.Pattern.Regex) != nil:
			m = newIsolatedMatcher(*c.Pattern.Regex)
		case c.Pattern.Regex != nil:
			m, err = newPatternMatcher(*c.Pattern.Regex)
			if err != nil {
				return nil, false, fmt.Errorf("pre_tokenizer Split: %w", err)
			}
		default:
			return nil, false, fmt.Errorf("pre_tokenizer Split: pattern has neither String nor Regex")
		}
		return splitPre{m, b, c.Invert}, false, nil
	case "ByteLevel":
		bl := byteLevelPre{addPrefixSpace: boolOr(c.AddPrefixSpace, true), mapBytes: !last}
		if boolOr(c.UseRegex, true) {
			m, err := newPatternMatcher(gpt2Pattern)
			if err != nil {
				return nil, false, err
			}
			bl.re = m
		}
		return bl, last, nil
	case "Metaspace":
		ms := metaspacePre{replacement: '▁', scheme: "always", splitOn: boolOr(c.Split, true)}
		if c.Replacement != "" {
			r, _ := utf8.DecodeRuneInString(c.Replacement)
			ms.replacement = r
		}
		ms.rep = string(ms.replacement)
		switch c.PrependScheme {
		case "always", "first", "never":
			ms.scheme = c.PrependScheme
		case "":
			if !boolOr(c.AddPrefixSpace, true) {
				ms.scheme = "never"
			}
		default:
			return nil, false, fmt.Errorf("pre_tokenizer Metaspace: unknown prepend_scheme %q (want first, always or never)", c.PrependScheme)
		}
		return ms, false, nil
	case "Digits":
		if c.IndividualDigits {
			return splitPre{runeMatcher{unicode.IsNumber}, isolated, false}, false, nil
		}
		return splitPre{runeMatcher{unicode.IsNumber}, contiguous, false}, false, nil
	case "Whitespace":
		re, err := compileRegex(`\w+|[^\w\s]+`)
		if err != nil {
			return nil, false, err
		}
		return splitPre{regexMatcher{re}, removed, true}, false, nil
	case "WhitespaceSplit":
		return splitPre{runeMatcher{unicode.IsSpace}, removed, false}, false, nil
	case "Punctuation":
		b, err := parseBehavior(c.Behavior)
		if err != nil {
			return nil, false, fmt.Errorf("pre_tokenizer Punctuation: %w", err)
		}
		return splitPre{runeMatcher{isPunctuation}, b, false}, false, nil
	case "Sequence":
		var q preSequence
		for i, raw := range c.PreTokenizers {
			sub, err := parseComponent(raw)
			if err != nil {
				return nil, false, fmt.Errorf("pre_tokenizer Sequence[%d]: %w", i, err)
			}
			p, deferred, err := buildPreTokenizer(sub, last && i == len(c.PreTokenizers)-1)
			if err != nil {
				return nil, false, fmt.Errorf("pre_tokenizer Sequence[%d]: %w", i, err)
			}
			if bl, ok := p.(byteLevelPre); ok && deferred && !bl.addPrefixSpace && bl.re == nil {
				p = nil // identity: the mapping is left to the model
			}
			if p != nil {
				q = append(q, p)
			}
			byteLevelDeferred = byteLevelDeferred || deferred
		}
		switch len(q) {
		case 0:
			if byteLevelDeferred {
				return byteLevelPre{}, true, nil
			}
			return nil, false, nil
		case 1:
			return q[0], byteLevelDeferred, nil
		}
		return q, byteLevelDeferred, nil
	default:
		return nil, false, fmt.Errorf("unsupported pre_tokenizer type %q (supported: Split, ByteLevel, Metaspace, Digits, Whitespace, WhitespaceSplit, Punctuation, Sequence)", c.Type)
	}
}
