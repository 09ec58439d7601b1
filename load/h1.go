package load

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/latlab/latlab/record"
)

// h1 is the lean HTTP/1.1 transport: one request at a time per connection,
// a pool of connections shared by sessions, and a response parser that reads
// only what it must (status, framing, keep-alive) and allocates nothing per
// request.
type h1 struct {
	o       Options
	timeout time.Duration
	dialer  net.Dialer

	sessions atomic.Int64 // open sessions; while ≤ the cap they keep their connection

	mu      sync.Mutex
	idle    map[string][]*h1conn // by dial key
	nidle   int
	open    int       // connections open or being dialed
	waiters []*waiter // sessions waiting for a connection, oldest first
}

// h1conn is one pooled connection.
type h1conn struct {
	net.Conn
	raw  syscall.RawConn // nil for TLS
	key  string
	used bool // carried a request before
}

func newH1(o Options) *h1 {
	t := &h1{o: o, timeout: o.timeout(), idle: map[string][]*h1conn{}}
	t.dialer.KeepAlive = -1 // load generator connections are never idle for long
	return t
}

// Session implements Transport.
func (t *h1) Session() Session {
	t.sessions.Add(1)
	return &h1session{t: t, rd: reader{buf: make([]byte, readBufSize)}}
}

// Close implements Transport.
func (t *h1) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, cs := range t.idle {
		for _, c := range cs {
			c.Close()
			t.open--
		}
		delete(t.idle, k)
	}
	t.nidle = 0
	return nil
}

// sticky reports whether a session may keep its connection between
// requests: always, unless there are more sessions than connections.
func (t *h1) sticky() bool {
	return t.o.Connections == 0 || t.sessions.Load() <= int64(t.o.Connections)
}

// put returns c to the pool: to the longest-waiting session if there is
// one, so that sessions share connections in turn rather than the fastest
// keeping them, else to the idle list.
func (t *h1) put(c *h1conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := t.popWaiter(); w != nil {
		if w.key == c.key && !w.fresh {
			w.ch <- c
			return
		}
		c.Close() // wrong address, or a waiter who must dial: the place is the waiter's
		w.ch <- nil
		return
	}
	t.idle[c.key] = append(t.idle[c.key], c)
	t.nidle++
}

// discard closes c and frees its place under the cap.
func (t *h1) discard(c *h1conn) {
	c.Close()
	t.release()
}

// release frees a place under the cap: the longest-waiting session may dial.
func (t *h1) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := t.popWaiter(); w != nil {
		w.ch <- nil
		return
	}
	t.open--
}

// waiter is a session waiting for a connection; it receives one, or nil
// as leave to dial. A fresh waiter receives only leave to dial.
type waiter struct {
	key   string
	fresh bool
	ch    chan *h1conn
}

func (t *h1) popWaiter() *waiter {
	if len(t.waiters) == 0 {
		return nil
	}
	w := t.waiters[0]
	t.waiters[0] = nil
	t.waiters = t.waiters[1:]
	return w
}

// get returns an idle connection for key, or nil as leave to dial one,
// waiting in turn while the cap is reached. An idle connection to another
// address is closed to make room. fresh asks for leave to dial, never an
// idle connection: one may have been closed by the server as the last.
func (t *h1) get(ctx context.Context, key string, fresh bool) (*h1conn, error) {
	t.mu.Lock()
	if len(t.waiters) == 0 {
		if cs := t.idle[key]; len(cs) > 0 && !fresh {
			c := cs[len(cs)-1]
			t.idle[key] = cs[:len(cs)-1]
			t.nidle--
			t.mu.Unlock()
			return c, nil
		}
		if t.o.Connections == 0 || t.open < t.o.Connections {
			t.open++
			t.mu.Unlock()
			return nil, nil
		}
		if t.nidle > 0 {
			for k, cs := range t.idle {
				if len(cs) > 0 {
					cs[0].Close()
					t.idle[k] = cs[1:]
					t.nidle--
					break
				}
			}
			t.mu.Unlock()
			return nil, nil // the closed connection's place is ours
		}
	}
	w := &waiter{key: key, fresh: fresh, ch: make(chan *h1conn, 1)}
	t.waiters = append(t.waiters, w)
	t.mu.Unlock()
	select {
	case c := <-w.ch:
		return c, nil
	case <-ctx.Done():
		t.mu.Lock()
		for i, o := range t.waiters {
			if o == w {
				t.waiters = append(t.waiters[:i], t.waiters[i+1:]...)
				t.mu.Unlock()
				return nil, ctx.Err()
			}
		}
		t.mu.Unlock()
		// Served meanwhile: pass what we were given on.
		if c := <-w.ch; c != nil {
			t.put(c)
		} else {
			t.release()
		}
		return nil, ctx.Err()
	}
}

// dial opens a connection for req, measuring connect and TLS time into s.
func (t *h1) dial(ctx context.Context, req *Request, s *record.Sample) (*h1conn, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	network, addr := "tcp", dialAddr(req)
	if t.o.UnixSocket != "" {
		network, addr = "unix", t.o.UnixSocket
	}
	start := Now()
	c, err := t.dialer.DialContext(ctx, network, addr)
	s.Connect = Now() - start
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	if req.URL.Scheme == "https" {
		cfg := &tls.Config{}
		if t.o.TLS != nil {
			cfg = t.o.TLS.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = req.URL.Hostname()
		}
		if c := req.clientCert(); c != nil {
			cfg.Certificates = []tls.Certificate{*c}
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(c, cfg)
		start := Now()
		err := tlsHandshakeError(tc.HandshakeContext(ctx))
		s.TLS = Now() - start
		if err != nil {
			c.Close()
			return nil, err
		}
		c = tc
	}
	hc := &h1conn{Conn: c, key: req.key}
	if sc, ok := c.(syscall.Conn); ok {
		hc.raw, _ = sc.SyscallConn()
	}
	return hc, nil
}

// h1session is one worker's view of the pool.
type h1session struct {
	t   *h1
	cur *h1conn
	rd  reader
	tmp []byte // wire bytes of a request that was not prepared
}

// Do implements Session.
func (s *h1session) Do(ctx context.Context, req *Request, out *record.Sample) {
	head := req.Method == http.MethodHead
	wire, key := req.wire, req.key
	if wire == nil { // built for this use alone, so nobody shares it
		s.tmp = appendWire(s.tmp[:0], req, s.t.o.NoKeepAlive)
		wire, key = s.tmp, dialKey(req)
		req.key = key
	}
	for fresh := false; ; fresh = true {
		c, err := s.conn(ctx, req, key, fresh, out)
		if err != nil {
			if out.Sent == 0 {
				out.Sent = Now()
			}
			out.Done = Now()
			out.Error, out.Err = classify(err), err
			return
		}
		retry, err := s.roundTrip(c, wire, head, out)
		if err == nil {
			return
		}
		// A keep-alive connection the server closed while it sat idle
		// fails before any byte of the response: the request goes again,
		// on a connection dialed for it, not on another idle one that the
		// server may have closed too (as at the end of a run, when the
		// sessions that stop hand theirs to the pool). The new
		// connection's dial is counted with the others, the retry in Retries.
		if retry && !fresh {
			out.Retries++
			continue
		}
		out.Done = Now()
		out.Error, out.Err = classify(err), err
		return
	}
}

// conn returns the connection for key: the session's own, an idle one or a
// new one; only a new one when fresh.
func (s *h1session) conn(ctx context.Context, req *Request, key string, fresh bool, out *record.Sample) (*h1conn, error) {
	if s.cur != nil {
		if s.cur.key == key && !fresh {
			return s.cur, nil
		}
		s.t.put(s.cur)
		s.cur = nil
	}
	c, err := s.t.get(ctx, key, fresh)
	if err != nil {
		return nil, err
	}
	if c == nil {
		// The request's send starts with its connection: opening one is
		// the target's work (accept, handshake), not the generator's lag.
		if out.Sent == 0 {
			out.Sent = Now()
		}
		if c, err = s.t.dial(ctx, req, out); err != nil {
			s.t.release()
			return nil, err
		}
	}
	s.cur = c
	return c, nil
}

// roundTrip writes one request on c and reads its response. retry reports
// that the connection had been used before and failed before any response
// byte arrived, so the request can be sent again.
func (s *h1session) roundTrip(c *h1conn, wire []byte, head bool, out *record.Sample) (retry bool, err error) {
	reused := c.used
	c.used = true
	if err := c.SetDeadline(time.Now().Add(s.t.timeout)); err != nil {
		s.drop()
		return false, err
	}
	if out.Sent == 0 { // a retry keeps the first send time
		out.Sent = Now()
	}
	rd := &s.rd
	rd.start(c, c.raw)
	n, done, err := rd.exchange(wire)
	if err == nil && !done {
		var m int
		m, err = c.Write(wire[n:])
		n += m
		rd.wroteAt = Now()
	}
	out.BytesOut += int64(n)
	if err != nil {
		s.drop()
		return reused && isClosed(err), err
	}
	var resp response
	err = rd.readHead(&resp)
	if err == nil {
		out.Code = resp.code
		err = rd.readBody(&resp, head)
	}
	out.BytesIn += rd.n
	if err != nil {
		s.drop()
		return reused && rd.n == 0 && isClosed(err), err
	}
	out.Done = Now()
	out.Wait, out.Read = breakdown(rd.wroteAt, rd.firstAt, out.Done)
	if !resp.keepAlive || rd.r != rd.w || s.t.o.NoKeepAlive || resp.code == 101 {
		s.drop()
	} else if !s.t.sticky() {
		s.t.put(c)
		s.cur = nil
	}
	return false, nil
}

// drop closes the session's connection.
func (s *h1session) drop() {
	if s.cur != nil {
		s.t.discard(s.cur)
		s.cur = nil
	}
}

// isClosed reports whether err says the peer closed the connection.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// Close implements Session: the connection goes back to the pool.
func (s *h1session) Close() {
	if s.cur != nil {
		s.t.put(s.cur)
		s.cur = nil
	}
	s.t.sessions.Add(-1)
}
