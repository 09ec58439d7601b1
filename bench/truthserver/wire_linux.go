package main

import (
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The wire time of a request runs from the moment its first bytes reached
// the server's socket (the kernel's receive stamp, SO_TIMESTAMPNS) to the
// moment the write of its answer began. It holds everything the server
// did, the handler and the waits around it: for the Go scheduler to run
// the connection's goroutine, for a CPU when the machine is busy. On
// loopback the stamp is taken while the client's write is still in the
// kernel, and the answer reaches the client's socket during the server's
// write, so a client's latency less the wire time is the client's own
// part, and the write: how late it sent, and how late it saw the answer.

// stampListener hands out connections that keep their receive stamps.
type stampListener struct{ net.Listener }

func (l stampListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c, nil
	}
	return &stampConn{Conn: c, raw: raw}, nil
}

// stampConn reads with recvmsg to keep the stamp of what it read last.
type stampConn struct {
	net.Conn
	raw syscall.RawConn
	oob [64]byte
	rx  atomic.Int64 // wall-clock ns when the newest bytes read arrived
	// answer, when set, is where the next write's wire time goes: the
	// handler of a timed request sets it.
	answer atomic.Pointer[truth]
}

func (c *stampConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	err := c.raw.Read(func(fd uintptr) bool {
		var oobn int
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), p, c.oob[:], 0)
		if rerr == unix.EAGAIN {
			return false
		}
		if rerr == nil && oobn > 0 {
			if at := stampOf(c.oob[:oobn]); at != 0 {
				c.rx.Store(at)
			}
		}
		return true
	})
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: rerr}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write ends the wire time of a timed request as the answer's write
// begins: the answer cannot reach the client before that. Taken after the
// write, it would also hold however long the server's thread waited to
// run again once the answer had left, which on loopback is often the
// client that the answer woke taking the CPU.
func (c *stampConn) Write(p []byte) (int, error) {
	if t := c.answer.Swap(nil); t != nil {
		if rx := c.rx.Load(); rx != 0 {
			t.add(time.Duration(time.Now().UnixNano() - rx))
		}
	}
	return c.Conn.Write(p)
}

// stampOf returns the receive stamp in a read's control messages, 0 if
// none.
func stampOf(oob []byte) int64 {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPNS && len(m.Data) >= int(unsafe.Sizeof(unix.Timespec{})) {
			ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
			return ts.Nano()
		}
	}
	return 0
}
