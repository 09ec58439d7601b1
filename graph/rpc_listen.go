package graph

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// serveRPC is Serve for a node whose service speaks gRPC. One port serves
// both: each connection goes to the gRPC server when it opens with
// HTTP/2's preface (or, over TLS, agrees on h2), and to the HTTP server
// of /healthz, /metrics and /debug/pprof/ otherwise, so that probes and
// scrapers reach a gRPC node as they reach any other.
func (n *Node) serveRPC(ctx context.Context, ln net.Listener) error {
	wl := &watchedListener{Listener: ln, max: int64(n.cfg.MaxConns), refused: n.m.refused}
	sp := newSplitListener(wl, n.cfg.TLS)
	web := &http.Server{
		Handler:           n.handler,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          log.New(discard{}, "", 0),
	}
	errc := make(chan error, 3)
	go func() { errc <- sp.run() }()
	go func() { errc <- n.rpc.Serve(sp.rpc) }()
	go func() { errc <- web.Serve(sp.web) }()
	select {
	case err := <-errc:
		n.rpc.Stop()
		_ = web.Close()
		_ = wl.Close()
		return errors.Join(fmt.Errorf("node %s: serving %s: %w", n.cfg.Name, ln.Addr(), err), n.Close())
	case <-ctx.Done():
	}
	n.cancel()
	_ = wl.Close()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.cfg.ShutdownGrace)
	defer cancel()
	stopped := make(chan struct{})
	go func() { n.rpc.GracefulStop(); close(stopped) }()
	var serr error
	select {
	case <-stopped:
	case <-sctx.Done():
		n.rpc.Stop()
		serr = fmt.Errorf("node %s: shutting down: calls still running after %s were ended", n.cfg.Name, n.cfg.ShutdownGrace)
	}
	if err := web.Shutdown(sctx); err != nil {
		_ = web.Close()
	}
	return errors.Join(serr, n.Close())
}

// http2Preface is how every HTTP/2 connection opens; no HTTP/1 request
// starts with its first three bytes.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// A splitListener hands the connections of one listener to two: rpc for
// HTTP/2, web for the rest. A connection that sends nothing, or no TLS
// handshake, within headerTimeout is closed.
type splitListener struct {
	ln       net.Listener
	tls      *tls.Config // nil for cleartext
	rpc, web *chanListener
}

func newSplitListener(ln net.Listener, cfg *tls.Config) *splitListener {
	if cfg != nil {
		cfg = cfg.Clone()
		if !slices.Contains(cfg.NextProtos, "h2") {
			cfg.NextProtos = append([]string{"h2"}, cfg.NextProtos...)
		}
		if !slices.Contains(cfg.NextProtos, "http/1.1") {
			cfg.NextProtos = append(cfg.NextProtos, "http/1.1")
		}
	}
	return &splitListener{ln: ln, tls: cfg, rpc: newChanListener(ln.Addr()), web: newChanListener(ln.Addr())}
}

// run accepts connections until the listener is closed, then closes both
// halves, and returns the error that ended it.
func (s *splitListener) run() error {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.rpc.close()
			s.web.close()
			return err
		}
		go s.route(c)
	}
}

// route hands c to the half its first bytes, or its TLS handshake, name.
func (s *splitListener) route(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(headerTimeout))
	if s.tls != nil {
		tc := tls.Server(c, s.tls)
		if err := tc.Handshake(); err != nil {
			_ = c.Close()
			return
		}
		_ = c.SetDeadline(time.Time{})
		to := s.web
		if tc.ConnectionState().NegotiatedProtocol == "h2" {
			to = s.rpc
		}
		to.put(tc)
		return
	}
	head := make([]byte, 3)
	if _, err := io.ReadFull(c, head); err != nil {
		_ = c.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	to := s.web
	if string(head) == http2Preface[:3] {
		to = s.rpc
	}
	to.put(&prefixConn{Conn: c, head: head})
}

// A prefixConn is a connection whose first bytes were read already.
type prefixConn struct {
	net.Conn
	head []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.head) > 0 {
		k := copy(p, c.head)
		c.head = c.head[k:]
		return k, nil
	}
	return c.Conn.Read(p)
}

// A chanListener is a listener whose connections are handed to it.
type chanListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// put hands c to the listener's Accept, or closes it once the listener
// is closed.
func (l *chanListener) put(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.done:
		_ = c.Close()
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) close() { l.once.Do(func() { close(l.done) }) }

func (l *chanListener) Close() error { l.close(); return nil }

func (l *chanListener) Addr() net.Addr { return l.addr }
