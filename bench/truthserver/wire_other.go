//go:build !linux

package main

import (
	"net"
	"sync/atomic"
)

// Elsewhere no receive stamps: the wire times stay empty.
type stampListener struct{ net.Listener }

type stampConn struct {
	net.Conn
	answer atomic.Pointer[truth]
}
