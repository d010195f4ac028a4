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
	// SCM_TIMESTAMPING (= SO_TIMESTAMPING): struct scm_timestamping,
	// three timespecs of which the first is the software stamp.
	scmTimestamping = 0x25
	solIP           = 0    // SOL_IP
	ipRecvErr       = 0xb  // IP_RECVERR: a struct sock_extended_err
	solIPv6         = 0x29 // SOL_IPV6
	ipv6RecvErr     = 0x19 // IPV6_RECVERR: a struct sock_extended_err
	// The members of struct sock_extended_err that a transmit stamp's
	// message carries: ee_origin (a byte at offset 4) is
	// SO_EE_ORIGIN_TIMESTAMPING, ee_info (a uint32 at 8) SCM_TSTAMP_SND
	// (0: the software stamp of the send), ee_data (a uint32 at 12) the
	// stamp's key.
	extErrSize            = 16
	eeOriginTimestamping  = 4
	scmTstampSnd          = 0
	extErrOriginOffset    = 4
	extErrInfoOffset      = 8
	extErrDataOffset      = 12
	minTimestampingLength = cmsgHeaderSize + 2*wordSize
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
			return timespecOf(b[cmsgHeaderSize:])
		}
		var ok bool
		if b, ok = nextCmsg(b, n); !ok {
			return 0
		}
	}
	return 0
}

// txStampOf parses the control messages of one message from a socket's
// error queue (recvmsg with MSG_ERRQUEUE) and returns the software
// transmit stamp it carries (CLOCK_REALTIME ns since the Unix epoch) and
// its key: with SOF_TIMESTAMPING_OPT_ID on a TCP socket, the byte offset
// of the last byte of the stamped send, counted from the first byte sent
// after the option was set, modulo 2³². ok is false unless b holds both
// an SCM_TIMESTAMPING message with a plausible software stamp and an
// IP_RECVERR or IPV6_RECVERR message whose sock_extended_err says it is a
// send stamp (origin SO_EE_ORIGIN_TIMESTAMPING, info SCM_TSTAMP_SND). It
// does not allocate.
func txStampOf(b []byte) (key uint32, stamp int64, ok bool) {
	var haveKey bool
	for len(b) >= cmsgHeaderSize {
		n := word(b)
		if n < cmsgHeaderSize || n > uint64(len(b)) {
			return 0, 0, false
		}
		level := int32(binary.NativeEndian.Uint32(b[wordSize:]))
		typ := int32(binary.NativeEndian.Uint32(b[wordSize+4:]))
		data := b[cmsgHeaderSize:n]
		switch {
		case level == solSocket && typ == scmTimestamping && n >= minTimestampingLength:
			stamp = timespecOf(data)
		case (level == solIP && typ == ipRecvErr || level == solIPv6 && typ == ipv6RecvErr) && len(data) >= extErrSize:
			if data[extErrOriginOffset] != eeOriginTimestamping || binary.NativeEndian.Uint32(data[extErrInfoOffset:]) != scmTstampSnd {
				return 0, 0, false
			}
			key, haveKey = binary.NativeEndian.Uint32(data[extErrDataOffset:]), true
		}
		var more bool
		if b, more = nextCmsg(b, n); !more {
			break
		}
	}
	if !haveKey || stamp == 0 {
		return 0, 0, false
	}
	return key, stamp, true
}

// nextCmsg returns the control messages after the first, of length n
// (from its header); ok is false when there are none.
func nextCmsg(b []byte, n uint64) (rest []byte, ok bool) {
	step := (n + wordSize - 1) &^ (wordSize - 1)
	if step >= uint64(len(b)) {
		return nil, false
	}
	return b[step:], true
}

// timespecOf reads a struct timespec of two words (seconds, nanoseconds)
// at the start of data, at least two words long, and returns it as ns;
// 0 when it is zero (no stamp) or not a plausible time.
func timespecOf(data []byte) int64 {
	sec, nsec := signedWord(data), signedWord(data[wordSize:])
	if sec < 0 || nsec < 0 || nsec >= 1e9 || sec > 1<<33 || sec == 0 && nsec == 0 {
		return 0
	}
	return sec*1e9 + nsec
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
