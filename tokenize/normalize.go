package tokenize

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites one piece of input text, as a Hugging Face normalizer
// does. Offsets are not tracked: this package needs ids only.
type normalizer interface {
	normalize(s string) string
}

type unicodeNorm struct{ form norm.Form }

func (n unicodeNorm) normalize(s string) string {
	// ASCII is normal in every form; checking it first saves
	// IsNormalString's allocation on most chunks of output text.
	if isASCII(s) || n.form.IsNormalString(s) {
		return s
	}
	return n.form.String(s)
}

type lowercase struct{}

func (lowercase) normalize(s string) string {
	// Rust's char::to_lowercase maps U+0130 to "i\u0307"; Go maps it to "i".
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if r == 'İ' {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

type prepend struct{ prefix string }

func (p prepend) normalize(s string) string {
	if s == "" {
		return s
	}
	return p.prefix + s
}

type replaceString struct{ old, new string }

func (r replaceString) normalize(s string) string { return strings.ReplaceAll(s, r.old, r.new) }

type replaceRegex struct {
	re  *regexp2.Regexp
	new string
}

func (r replaceRegex) normalize(s string) string {
	var b strings.Builder
	last := 0
	forEachMatch(r.re, s, func(start, end int) {
		b.WriteString(s[last:start])
		b.WriteString(r.new)
		last = end
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

type strip struct{ left, right bool }

func (st strip) normalize(s string) string {
	if st.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if st.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

type normSequence []normalizer

func (q normSequence) normalize(s string) string {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

func buildNormalizer(c *componentJSON) (normalizer, error) {
	if c == nil {
		return nil, nil
	}
	switch c.Type {
	case "NFC":
		return unicodeNorm{norm.NFC}, nil
	case "NFD":
		return unicodeNorm{norm.NFD}, nil
	case "NFKC":
		return unicodeNorm{norm.NFKC}, nil
	case "NFKD":
		return unicodeNorm{norm.NFKD}, nil
	case "Lowercase":
		return lowercase{}, nil
	case "Prepend":
		if c.Prepend == nil {
			return nil, fmt.Errorf("normalizer Prepend: missing field \"prepend\"")
		}
		return prepend{*c.Prepend}, nil
	case "Replace":
		if c.Pattern == nil || c.Content == nil {
			return nil, fmt.Errorf("normalizer Replace: want fields \"pattern\" and \"content\"")
		}
		if c.Pattern.String != nil {
			if *c.Pattern.String == "" {
				return nil, fmt.Errorf("normalizer Replace: empty String pattern")
			}
			return replaceString{*c.Pattern.String, *c.Content}, nil
		}
		if c.Pattern.Regex != nil {
			re, err := compileRegex(*c.Pattern.Regex)
			if err != nil {
				return nil, fmt.Errorf("normalizer Replace: %w", err)
			}
			return replaceRegex{re, *c.Content}, nil
		}
		return nil, fmt.Errorf("normalizer Replace: pattern has neither String nor Regex")
	case "Strip":
		st := strip{true, true}
		if c.StripLeft != nil {
			st.left = *c.StripLeft
		}
		if c.StripRight != nil {
			st.right = *c.StripRight
		}
		return st, nil
	case "Sequence":
		var q normSequence
		for i, raw := range c.Normalizers {
			sub, err := parseComponent(raw)
			if err != nil {
				return nil, fmt.Errorf("normalizer Sequence[%d]: %w", i, err)
			}
			n, err := buildNormalizer(sub)
			if err != nil {
				return nil, fmt.Errorf("normalizer Sequence[%d]: %w", i, err)
			}
			if n != nil {
				q = append(q, n)
			}
		}
		if len(q) == 0 {
			return nil, nil
		}
		if len(q) == 1 {
			return q[0], nil
		}
		return q, nil
	default:
		return nil, fmt.Errorf("unsupported normalizer type %q (supported: NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace, Strip, Sequence)", c.Type)
	}
}

// normalizeTracked normalizes s and reports whether the result still starts
// at the first original character (false when leading characters were
// removed), which Metaspace's prepend_scheme "first" depends on.
func normalizeTracked(n normalizer, s string) (string, bool) {
	switch n := n.(type) {
	case normSequence:
		keep := true
		for _, sub := range n {
			var k bool
			s, k = normalizeTracked(sub, s)
			keep = keep && k
		}
		return s, keep
	case strip:
		r, _ := utf8.DecodeRuneInString(s)
		return n.normalize(s), !(n.left && s != "" && unicode.IsSpace(r))
	case replaceString:
		return n.normalize(s), !(n.new == "" && strings.HasPrefix(s, n.old))
	case replaceRegex:
		keep := true
		if n.new == "" {
			forEachMatch(n.re, s, func(start, end int) {
				if start == 0 && end > 0 {
					keep = false
				}
			})
		}
		return n.normalize(s), keep
	}
	return n.normalize(s), true
}

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
