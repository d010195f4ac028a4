// Package jsonstring appends Go strings to a byte slice as JSON string
// literals, without allocating: the hot-path encoder shared by the
// OpenAI client's request bodies and the mock server's stream chunks.
package jsonstring

import "unicode/utf8"

// Append appends s to b as a JSON string literal and returns the extended
// slice. Invalid UTF-8 becomes U+FFFD, as encoding/json does; unlike
// encoding/json, HTML characters (<, >, &) and U+2028/U+2029 are not
// escaped, which JSON does not require. Safe for concurrent use.
func Append(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
