//go:build !linux

package rxstamp

import "net"

const supported = false

func enable(c net.Conn, _ bool) (net.Conn, error) { return c, ErrUnsupported }

func hold() (int, error) { return -1, ErrUnsupported }

func release(int) {}
