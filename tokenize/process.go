package tokenize

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// postProcessor is what a single-sequence post-processor adds around the
// ids when special tokens are requested.
type postProcessor struct {
	prefix, suffix []int
}

func buildPostProcessor(c *componentJSON) (postProcessor, error) {
	var pp postProcessor
	if c == nil {
		return pp, nil
	}
	switch c.Type {
	case "ByteLevel":
		return pp, nil // offsets only
	case "TemplateProcessing":
		seen := false
		for i, it := range c.Single {
			switch {
			case it.Sequence != nil:
				if seen {
					return pp, fmt.Errorf("post_processor TemplateProcessing: single[%d]: more than one sequence", i)
				}
				seen = true
			case it.SpecialToken != nil:
				st, ok := c.SpecialTokens[it.SpecialToken.ID]
				if !ok {
					return pp, fmt.Errorf("post_processor TemplateProcessing: single[%d]: special token %q missing from special_tokens", i, it.SpecialToken.ID)
				}
				if seen {
					pp.suffix = append(pp.suffix, st.IDs...)
				} else {
					pp.prefix = append(pp.prefix, st.IDs...)
				}
			}
		}
		return pp, nil
	case "RobertaProcessing", "BertProcessing":
		cls, err := tokenIDPair(c.Cls)
		if err != nil {
			return pp, fmt.Errorf("post_processor %s: cls: %w", c.Type, err)
		}
		sep, err := tokenIDPair(c.Sep)
		if err != nil {
			return pp, fmt.Errorf("post_processor %s: sep: %w", c.Type, err)
		}
		return postProcessor{[]int{cls}, []int{sep}}, nil
	case "Sequence":
		for i, raw := range c.Processors {
			sub, err := parseComponent(raw)
			if err != nil {
				return pp, fmt.Errorf("post_processor Sequence[%d]: %w", i, err)
			}
			p, err := buildPostProcessor(sub)
			if err != nil {
				return pp, fmt.Errorf("post_processor Sequence[%d]: %w", i, err)
			}
			pp.prefix = append(append([]int(nil), p.prefix...), pp.prefix...)
			pp.suffix = append(pp.suffix, p.suffix...)
		}
		return pp, nil
	default:
		return pp, fmt.Errorf("unsupported post_processor type %q (supported: TemplateProcessing, ByteLevel, RobertaProcessing, BertProcessing, Sequence)", c.Type)
	}
}

// tokenIDPair reads ["<s>", 0].
func tokenIDPair(raw []json.RawMessage) (int, error) {
	if len(raw) != 2 {
		return 0, fmt.Errorf("want [token, id]")
	}
	var id int
	if err := json.Unmarshal(raw[1], &id); err != nil {
		return 0, fmt.Errorf("want [token, id]: %w", err)
	}
	return id, nil
}

// decoder turns tokens back into text pieces, as HF's decode_chain does.
type decoder interface {
	decodeChain(tokens []string) []string
}

type byteLevelDec struct{}

func (byteLevelDec) decodeChain(tokens []string) []string {
	var out []byte
	for _, t := range tokens {
		n := len(out)
		ok := true
		for _, r := range t {
			b, isByte := byteOfChar(r)
			if !isByte {
				ok = false
				break
			}
			out = append(out, b)
		}
		if !ok {
			out = append(out[:n], t...)
		}
	}
	return []string{lossyString(out)}
}

type metaspaceDec struct {
	replacement rune
	prepend     bool
}

func (d metaspaceDec) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		var b strings.Builder
		for _, r := range t {
			if r == d.replacement {
				if i == 0 && d.prepend {
					continue
				}
				r = ' '
			}
			b.WriteRune(r)
		}
		out[i] = b.String()
	}
	return out
}

type byteFallbackDec struct{}

func (byteFallbackDec) decodeChain(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, t := range tokens {
		if len(t) == 6 && strings.HasPrefix(t, "<0x") && t[5] == '>' {
			if v, ok := hexByte(t[3], t[4]); ok {
				pending = append(pending, v)
				continue
			}
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

func hexByte(a, b byte) (byte, bool) {
	h, ok1 := hexDigit(a)
	l, ok2 := hexDigit(b)
	return h<<4 | l, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

type fuseDec struct{}

func (fuseDec) decodeChain(tokens []string) []string { return []string{strings.Join(tokens, "")} }

type stripDec struct {
	content     rune
	start, stop int
}

func (d stripDec) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		rs := []rune(t)
		a := 0
		for a < len(rs) && a < d.start && rs[a] == d.content {
			a++
		}
		z := len(rs)
		for k := 0; k < d.stop && z > a && rs[z-1] == d.content; k++ {
			z--
		}
		out[i] = string(rs[a:z])
	}
	return out
}

type replaceDec struct{ n normalizer }

func (d replaceDec) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = d.n.normalize(t)
	}
	return out
}

type decSequence []decoder

func (q decSequence) decodeChain(tokens []string) []string {
	for _, d := range q {
		tokens = d.decodeChain(tokens)
	}
	return tokens
}

func buildDecoder(c *componentJSON) (decoder, error) {
	if c == nil {
		return nil, nil
	}
	switch c.Type {
	case "ByteLevel":
		return byteLevelDec{}, nil
	case "Metaspace":
		d := metaspaceDec{replacement: '▁', prepend: true}
		if c.Replacement != "" {
			d.replacement, _ = utf8.DecodeRuneInString(c.Replacement)
		}
		if c.PrependScheme == "never" || (c.PrependScheme == "" && !boolOr(c.AddPrefixSpace, true)) {
			d.prepend = false
		}
		return d, nil
	case "ByteFallback":
		return byteFallbackDec{}, nil
	case "Fuse":
		return fuseDec{}, nil
	case "Strip":
		d := stripDec{content: ' ', start: c.Start, stop: c.Stop}
		if c.Content != nil {
			d.content, _ = utf8.DecodeRuneInString(*c.Content)
		}
		return d, nil
	case "Replace":
		n, err := buildNormalizer(c)
		if err != nil {
			return nil, fmt.Errorf("decoder %w", err)
		}
		return replaceDec{n}, nil
	case "Sequence":
		var q decSequence
		for i, raw := range c.Decoders {
			sub, err := parseComponent(raw)
			if err != nil {
				return nil, fmt.Errorf("decoder Sequence[%d]: %w", i, err)
			}
			d, err := buildDecoder(sub)
			if err != nil {
				return nil, fmt.Errorf("decoder Sequence[%d]: %w", i, err)
			}
			if d != nil {
				q = append(q, d)
			}
		}
		return q, nil
	default:
		return nil, fmt.Errorf("unsupported decoder type %q (supported: ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, Sequence)", c.Type)
	}
}
