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
// Enable also turns on the kernel's software transmit stamps
// (SO_TIMESTAMPING): after each write, the connection reads the socket's
// error queue, without blocking, for the stamp of the last byte written
// (keyed by its byte offset), which LastSend returns: the moment the
// request was handed to the network device, the symmetric limit of the
// receive stamp. MarkRequest marks the next write as a request's first:
// RequestSend returns the stamp of its first send call, when the request
// began to leave (the first stamp at or after the write's first byte, as
// the kernel queues them in byte order), moved later by the writer's own
// time between the request's writes (net/http writes the headers, then
// the body), so that a writer's pause is not counted as the server's. A stamp that has not come by the
// time the write returns (TCP could not send at once) is read by the next
// Read. A stamp queued
// while the socket is neither readable nor writable makes epoll report
// EPOLLERR alone, after which Go's poller refuses to wait for the socket
// to become readable until its next event; Read then reads directly and
// waits in poll(2) until that event comes.
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
