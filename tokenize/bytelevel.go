package tokenize

import "unicode/utf8"

// byteChar is GPT-2's reversible byte-to-unicode map: printable Latin-1
// bytes map to themselves, the other 68 bytes to U+0100..U+0143 in order.
func byteChar(b byte) rune {
	switch {
	case b <= 0x20:
		return rune(256 + int(b))
	case b >= 0x7F && b <= 0xA0:
		return rune(256 + 33 + int(b-0x7F))
	case b == 0xAD:
		return 256 + 33 + 34
	}
	return rune(b)
}

// byteOfChar inverts byteChar; ok is false for characters outside its range.
func byteOfChar(r rune) (byte, bool) {
	switch {
	case r >= 0 && r < 256:
		b := byte(r)
		if byteChar(b) == r {
			return b, true
		}
	case r >= 256 && r <= 256+32:
		return byte(r - 256), true
	case r >= 256+33 && r < 256+33+34:
		return byte(r-256-33) + 0x7F, true
	case r == 256+33+34:
		return 0xAD, true
	}
	return 0, false
}

// byteLevelString maps every byte of s to its byte-level character.
func byteLevelString(s string) string {
	return string(appendByteLevel(make([]byte, 0, len(s)*2), s))
}

func appendByteLevel(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		buf = utf8.AppendRune(buf, byteChar(s[i]))
	}
	return buf
}
