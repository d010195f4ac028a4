package rxstamp

import "encoding/binary"

// Control message layout (cmsg(3)) on Linux: a header of the message's
// length (a size_t: the platform's word) then two int32s, level and type;
// each message, header included, padded to a word.
const (
	wordSize       = 4 << (^uintptr(0) >> 63) // sizeof(size_t): 8 on 64-bit, 4 on 32-bit
	cmsgHeaderSize = wordSize + 8
	solSocket      = 1    // SOL_SOCKET
	scmTimestampNS = 0x23 // SCM_TIMESTAMPNS (= SO_TIMESTAMPNS): a struct timespec
)

// stampOf returns the SCM_TIMESTAMPNS stamp among the control messages in
// b, as nanoseconds since the Unix epoch; 0 when there is none or b is
// malformed. The timespec is two words (seconds, nanoseconds), as the
// kernel writes it for SO_TIMESTAMPNS (_OLD on 32-bit systems). It does not
// allocate.
func stampOf(b []byte) int64 {
	for len(b) >= cmsgHeaderSize {
		n := word(b)
		if n < cmsgHeaderSize || n > uint64(len(b)) {
			return 0
		}
		level := int32(binary.NativeEndian.Uint32(b[wordSize:]))
		typ := int32(binary.NativeEndian.Uint32(b[wordSize+4:]))
		if level == solSocket && typ == scmTimestampNS && n >= cmsgHeaderSize+2*wordSize {
			data := b[cmsgHeaderSize:]
			sec, nsec := signedWord(data), signedWord(data[wordSize:])
			if sec < 0 || nsec < 0 || nsec >= 1e9 || sec > 1<<33 || sec == 0 && nsec == 0 {
				return 0 // absent, or not a plausible time
			}
			return sec*1e9 + nsec
		}
		step := (n + wordSize - 1) &^ (wordSize - 1)
		if step >= uint64(len(b)) {
			return 0
		}
		b = b[step:]
	}
	return 0
}

// word reads a size_t at the start of b.
func word(b []byte) uint64 {
	if wordSize == 8 {
		return binary.NativeEndian.Uint64(b)
	}
	return uint64(binary.NativeEndian.Uint32(b))
}

// signedWord reads a long at the start of b.
func signedWord(b []byte) int64 {
	if wordSize == 8 {
		return int64(binary.NativeEndian.Uint64(b))
	}
	return int64(int32(binary.NativeEndian.Uint32(b)))
}
