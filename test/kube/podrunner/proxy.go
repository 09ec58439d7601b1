package main

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// proxyListener forwards the connections to one ClusterIP:port, each to
// the next of its backends in turn: a userspace hop, as kube-proxy's old
// userspace mode was, where a real cluster rewrites addresses in the
// kernel. A connection no backend takes is reset, as a Service without
// endpoints rejects it.
type proxyListener struct {
	ln       net.Listener
	backends atomic.Pointer[[]string]
	next     atomic.Uint64
}

// listenProxy listens on addr and forwards to backends.
func listenProxy(addr string, backends []string) (*proxyListener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := &proxyListener{ln: ln}
	l.setBackends(backends)
	go l.serve()
	return l, nil
}

func (l *proxyListener) setBackends(b []string) { l.backends.Store(&b) }

// close stops accepting; connections in flight go on until either end
// closes.
func (l *proxyListener) close() { l.ln.Close() }

func (l *proxyListener) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		go l.forward(c.(*net.TCPConn))
	}
}

// forward connects c to a backend, trying each once from the next in
// turn, and copies both ways until both are done.
func (l *proxyListener) forward(c *net.TCPConn) {
	bs := *l.backends.Load()
	var up *net.TCPConn
	if n := len(bs); n > 0 {
		start := int(l.next.Add(1) % uint64(n))
		for i := range n {
			conn, err := net.DialTimeout("tcp", bs[(start+i)%n], 5*time.Second)
			if err == nil {
				up = conn.(*net.TCPConn)
				break
			}
		}
	}
	if up == nil {
		_ = c.SetLinger(0) // a reset, not an orderly close
		c.Close()
		return
	}
	var wg sync.WaitGroup
	half := func(dst, src *net.TCPConn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		_ = dst.CloseWrite()
	}
	wg.Add(2)
	go half(up, c)
	go half(c, up)
	wg.Wait()
	c.Close()
	up.Close()
}
