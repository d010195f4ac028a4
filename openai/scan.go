package openai

import "strings"

// This file holds the allocation-free fast path of chunk decoding: a strict
// scanner for the JSON of one stream chunk that picks the few members the
// client measures and skips the rest. It gives up (returns false) on
// anything it does not handle exactly as encoding/json would (escaped keys,
// invalid syntax, duplicate-sensitive shapes), and chunk.decode then uses
// encoding/json. FuzzChunkDecode checks that both paths agree.

// fastDecode parses data into c without allocating (once c.Choices has
// grown to the chunk's number of choices). The rawJSON fields it sets alias
// data. It returns false, leaving c in an unspecified state, when data must
// go through encoding/json instead.
func (c *chunk) fastDecode(data []byte) bool {
	c.Choices, c.Usage, c.Error, c.Object = c.Choices[:0], usage{}, nil, nil
	s := scanner{b: data}
	seenChoices := false
	s.ws()
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "choices":
			if seenChoices { // encoding/json merges repeats: leave it to it
				return false
			}
			seenChoices = true
			return c.scanChoices(&s)
		case "usage":
			return c.scanUsage(&s)
		case "error":
			c.Error = s.raw()
			return c.Error != nil
		case "object":
			c.Object = s.raw()
			return c.Object != nil
		}
		return !nearKey(key, "choices", "usage", "error", "object") && s.skip()
	})
	if !ok {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

func (c *chunk) scanChoices(s *scanner) bool {
	if s.literal("null") {
		c.Choices = c.Choices[:0]
		return true
	}
	if s.peek() != '[' {
		return false
	}
	c.Choices = c.Choices[:0]
	return s.array(func() bool {
		if s.peek() != '{' {
			return false // encoding/json would record a type error
		}
		if len(c.Choices) < cap(c.Choices) {
			c.Choices = c.Choices[:len(c.Choices)+1]
			c.Choices[len(c.Choices)-1] = chunkChoice{}
		} else {
			c.Choices = append(c.Choices, chunkChoice{})
		}
		ch := &c.Choices[len(c.Choices)-1]
		return s.object(func(key []byte) bool {
			switch string(key) {
			case "text":
				return s.rawInto(&ch.Text)
			case "delta":
				return scanDelta(s, &ch.Delta)
			case "message":
				return scanDelta(s, &ch.Message)
			case "finish_reason":
				return s.rawInto(&ch.FinishReason)
			case "logprobs":
				return s.rawInto(&ch.Logprobs)
			}
			return !nearKey(key, "text", "delta", "message", "finish_reason", "logprobs") && s.skip()
		})
	})
}

func scanDelta(s *scanner, d *chunkDelta) bool {
	if s.literal("null") {
		return true
	}
	if s.peek() != '{' {
		return false
	}
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "content":
			return s.rawInto(&d.Content)
		case "reasoning_content":
			return s.rawInto(&d.ReasoningContent)
		case "reasoning":
			return s.rawInto(&d.Reasoning)
		case "tool_calls":
			return s.rawInto(&d.ToolCalls)
		}
		return !nearKey(key, "content", "reasoning_content", "reasoning", "tool_calls") && s.skip()
	})
}

func (c *chunk) scanUsage(s *scanner) bool {
	if s.literal("null") {
		c.Usage = usage{}
		return true
	}
	if s.peek() != '{' {
		return false
	}
	if !c.Usage.present { // a repeated "usage" merges, as in encoding/json
		c.Usage = usage{present: true}
	}
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			n, ok := s.int()
			c.Usage.prompt = count{set: true, n: int64(n)}
			return ok
		case "completion_tokens":
			n, ok := s.int()
			c.Usage.completion = count{set: true, n: int64(n)}
			return ok
		case "prompt_tokens_details":
			return c.scanPromptDetails(s)
		case "cost":
			raw := s.raw()
			c.Usage.cost = parsePrice(raw)
			return raw != nil
		}
		return !nearKey(key, "prompt_tokens", "completion_tokens", "prompt_tokens_details", "cost") && s.skip()
	})
}

// scanPromptDetails reads usage.prompt_tokens_details.cached_tokens.
func (c *chunk) scanPromptDetails(s *scanner) bool {
	if s.literal("null") {
		c.Usage.cached = count{}
		return true
	}
	if s.peek() != '{' {
		return false
	}
	return s.object(func(key []byte) bool {
		if string(key) == "cached_tokens" {
			n, ok := s.int()
			c.Usage.cached = count{set: true, n: int64(n)}
			return ok
		}
		return !nearKey(key, "cached_tokens") && s.skip()
	})
}

// scanner walks JSON text. Its methods return false on anything unexpected.
type scanner struct {
	b     []byte
	i     int
	depth int // nesting of skipped values; capped at maxScanDepth
}

// maxScanDepth bounds the nesting the fast path skips; deeper input goes to
// encoding/json, which has its own limit.
const maxScanDepth = 64

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// literal consumes lit if it comes next.
func (s *scanner) literal(lit string) bool {
	s.ws()
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		if e := s.i + len(lit); e == len(s.b) || !isAlnum(s.b[e]) {
			s.i = e
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// object walks an object, calling member with each key (without quotes)
// when the scanner stands before the member's value.
func (s *scanner) object(member func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		start := s.i + 1
		if !s.str() {
			return false
		}
		key := s.b[start : s.i-1]
		for _, c := range key {
			if c == '\\' {
				return false // escaped key: leave it to encoding/json
			}
		}
		if s.peek() != ':' {
			return false
		}
		s.i++
		s.ws()
		if !member(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// array walks an array, calling elem before each element.
func (s *scanner) array(elem func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		s.ws()
		if !elem() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// raw skips one value and returns its text; nil for null.
func (s *scanner) raw() []byte {
	s.ws()
	start := s.i
	if !s.skip() {
		return nil
	}
	v := s.b[start:s.i]
	if string(v) == "null" {
		return v[:0:0]
	}
	return v
}

// rawInto sets *dst to the next value's text (empty for null). Strings are
// the only scalar the measured fields may hold in encoding/json's view of
// rawJSON, so any value is accepted as is.
func (s *scanner) rawInto(dst *rawJSON) bool {
	s.ws()
	start := s.i
	if !s.skip() {
		return false
	}
	v := s.b[start:s.i]
	if string(v) == "null" {
		*dst = nil
		return true
	}
	*dst = v
	return true
}

// skip consumes one value.
func (s *scanner) skip() bool {
	switch s.peek() {
	case '{', '[':
		if s.depth >= maxScanDepth {
			return false
		}
		s.depth++
		var ok bool
		if s.b[s.i] == '{' {
			ok = s.object(func([]byte) bool { return s.skip() })
		} else {
			ok = s.array(s.skip)
		}
		s.depth--
		return ok
	case '"':
		return s.str()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.number()
}

// str consumes a string, the scanner standing on its opening quote.
func (s *scanner) str() bool {
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				s.i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			s.i++
		}
	}
	return false
}

// number consumes a JSON number (RFC 8259 grammar).
func (s *scanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	s.i = i
	return true
}

// int consumes a non-negative integer that fits an int32; anything else
// (a float, a huge value) makes the caller fall back.
func (s *scanner) int() (int, bool) {
	s.ws()
	n, i := 0, s.i
	for i < len(s.b) && s.b[i] >= '0' && s.b[i] <= '9' && i-s.i < 9 {
		n = n*10 + int(s.b[i]-'0')
		i++
	}
	if i == s.i || (i < len(s.b) && (s.b[i] == '.' || s.b[i] == 'e' || s.b[i] == 'E' || s.b[i] >= '0' && s.b[i] <= '9')) {
		return 0, false
	}
	if s.b[s.i] == '0' && i-s.i > 1 {
		return 0, false
	}
	s.i = i
	return n, true
}

// nearKey reports a key that encoding/json, which matches keys without
// regard to case (and folds a few non-ASCII letters), might take for one of
// names although it is not spelled exactly so: the fast path then gives up.
func nearKey(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	for _, n := range names {
		if len(key) == len(n) && strings.EqualFold(string(key), n) {
			return true
		}
	}
	return false
}
