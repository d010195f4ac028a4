// Package rxstamp reads the time at which the kernel received the bytes of
// a TCP connection, instead of the time at which a goroutine got round to
// reading them.
//
// On Linux, Enable turns on SO_TIMESTAMPNS for a TCP connection and returns
// a net.Conn whose Read calls recvmsg(2) through the connection's
// syscall.RawConn: non-blocking, parked in Go's poller while no data is
// ready (no thread per connection, no spinning). Each Read keeps the
// kernel's receive stamp of the last segment it copied (for TCP, recvmsg
// returns the software receive time of the last buffer it read), which
// LastReceive returns. A TLS connection dialled over such a connection
// reads through it, so the stamp also covers the records it decrypts
// (SourceOf finds it under a *tls.Conn).
//
// The stamps are CLOCK_REALTIME. Offset returns the difference between
// that clock and a monotonic clock's offsets from a start time, so a
// caller converts a stamp with stamp − Offset(start). The kernel keeps
// CLOCK_REALTIME − CLOCK_MONOTONIC constant except when the wall clock is
// stepped (settimeofday, clock_settime, a leap second); NTP slewing changes
// both clocks alike. So an Offset sampled before a request is sent and
// again after its last read tells whether a step happened in between.
//
// Elsewhere (other systems, a connection that is not TCP, a failure to
// enable the option) Enable says why, and callers use their own stamps.
package rxstamp
