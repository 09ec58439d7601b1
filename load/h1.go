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

	mu     sync.Mutex
	idle   map[string][]*h1conn // by dial key
	nidle  int
	open   int
	notify chan struct{} // a connection was returned or closed
}

// h1conn is one pooled connection.
type h1conn struct {
	net.Conn
	key  string
	used bool // carried a request before
}

func newH1(o Options) *h1 {
	t := &h1{o: o, timeout: o.timeout(), idle: map[string][]*h1conn{}}
	t.dialer.KeepAlive = -1 // load generator connections are never idle for long
	if o.Connections > 0 {
		t.notify = make(chan struct{}, o.Connections)
	}
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

// put returns c to the idle pool.
func (t *h1) put(c *h1conn) {
	t.mu.Lock()
	t.idle[c.key] = append(t.idle[c.key], c)
	t.nidle++
	t.mu.Unlock()
	t.signal()
}

// discard closes c and frees its place under the cap.
func (t *h1) discard(c *h1conn) {
	c.Close()
	t.mu.Lock()
	t.open--
	t.mu.Unlock()
	t.signal()
}

func (t *h1) signal() {
	if t.notify != nil {
		select {
		case t.notify <- struct{}{}:
		default:
		}
	}
}

// get returns an idle connection for key, or reserves the right to dial one
// (conn nil), waiting while the cap is reached. An idle connection to
// another address is closed to make room.
func (t *h1) get(ctx context.Context, key string) (*h1conn, error) {
	for {
		t.mu.Lock()
		if cs := t.idle[key]; len(cs) > 0 {
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
		t.mu.Unlock()
		select {
		case <-t.notify:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// dial opens a connection for req, measuring connect and TLS time into s.
func (t *h1) dial(ctx context.Context, req *Request, s *record.Sample) (*h1conn, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	network, addr := "tcp", req.key[len(req.URL.Scheme)+3:]
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
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(c, cfg)
		start := Now()
		err := tc.HandshakeContext(ctx)
		s.TLS = Now() - start
		if err != nil {
			c.Close()
			return nil, err
		}
		c = tc
	}
	return &h1conn{Conn: c, key: req.key}, nil
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
	for attempt := 0; ; attempt++ {
		c, err := s.conn(ctx, req, key, out)
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
		// A keep-alive connection the server closed while it sat idle fails
		// before any byte of the response: send once more on a new one.
		if retry && attempt == 0 {
			continue
		}
		out.Done = Now()
		out.Error, out.Err = classify(err), err
		return
	}
}

// conn returns the connection for key: the session's own, an idle one or a
// new one.
func (s *h1session) conn(ctx context.Context, req *Request, key string, out *record.Sample) (*h1conn, error) {
	if s.cur != nil {
		if s.cur.key == key {
			return s.cur, nil
		}
		s.t.put(s.cur)
		s.cur = nil
	}
	c, err := s.t.get(ctx, key)
	if err != nil {
		return nil, err
	}
	if c == nil {
		if c, err = s.t.dial(ctx, req, out); err != nil {
			s.t.discardSlot()
			return nil, err
		}
	}
	s.cur = c
	return c, nil
}

// discardSlot frees a place reserved for a dial that failed.
func (t *h1) discardSlot() {
	t.mu.Lock()
	t.open--
	t.mu.Unlock()
	t.signal()
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
	n, err := c.Write(wire)
	out.BytesOut += int64(n)
	if err != nil {
		s.drop()
		return reused && isClosed(err), err
	}
	rd := &s.rd
	rd.c, rd.r, rd.w, rd.n = c, 0, 0, 0
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
