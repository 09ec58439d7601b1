package load

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http/httptrace"
	"slices"
	"sync"
	"time"

	"golang.org/x/net/http2"

	"github.com/latlab/latlab/record"
)

// h2 is the HTTP/2 transport, over TLS or cleartext (h2c, prior knowledge).
// It opens its connections itself, so that it can measure them, and keeps
// them in one pool shared by all sessions: a request takes a stream on the
// least loaded connection to its address, opens a new connection while
// under the cap, or waits.
type h2 struct {
	o       Options
	timeout time.Duration
	streams int              // our cap on concurrent streams per connection
	tr      *http2.Transport // builds the connections; its own pool is unused
	dialer  net.Dialer
	tls     *tls.Config // nil for h2c
	first   []byte      // what a ClientConn of tr writes first (h2FirstBytes)

	mu      sync.Mutex
	conns   []*h2conn     // open and opening, every address; the cap counts them all
	waiters int           // acquire calls blocked on wake
	wake    chan struct{} // closed, then replaced, when a stream or a place under the cap frees
}

// h2conn is one pooled connection. Its dial is shared: requests that take
// a stream on it while it is opening wait for ready.
type h2conn struct {
	key   string        // scheme://host:port
	ready chan struct{} // closed when the dial ends

	// Written under h2.mu before ready is closed; after ready they can
	// be read without the lock.
	cc           *http2.ClientConn // nil if the dial failed
	err          error
	connect, tls time.Duration

	// Guarded by h2.mu.
	active  int  // streams taken
	limit   int  // our cap, then min(it, the server's MAX_CONCURRENT_STREAMS)
	dropped bool // out of the pool; closed when active reaches 0
	closed  bool
}

func newH2(o Options) (*h2, error) {
	t := &h2{
		o:       o,
		timeout: o.timeout(),
		streams: o.Streams,
		wake:    make(chan struct{}),
		tr: &http2.Transport{
			DisableCompression: true,
			// We cap streams ourselves; strict mode makes a connection
			// queue, rather than fail, a request over the server's limit.
			StrictMaxConcurrentStreams: true,
			AllowHTTP:                  true,
			MaxHeaderListSize:          maxHeaderSize, // as the lean client
		},
	}
	if t.streams == 0 {
		t.streams = DefaultStreams
	}
	t.dialer.KeepAlive = -1
	if o.HTTP2 {
		cfg := &tls.Config{}
		if o.TLS != nil {
			cfg = o.TLS.Clone()
		}
		cfg.NextProtos = []string{"h2"}
		t.tls = cfg
	}
	first, err := h2FirstBytes(t.tr)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	t.first = first
	return t, nil
}

// Session implements Transport.
func (t *h2) Session() Session { return &h2session{t: t} }

// Close implements Transport: idle connections close now, busy ones when
// their last stream ends.
func (t *h2) Close() error {
	t.mu.Lock()
	var idle []*http2.ClientConn
	for _, c := range t.conns {
		c.dropped = true
		if cc := t.closeIfIdleLocked(c); cc != nil {
			idle = append(idle, cc)
		}
	}
	t.conns = nil
	t.signalLocked()
	t.mu.Unlock()
	for _, cc := range idle {
		cc.Close()
	}
	return nil
}

// signalLocked wakes the acquire calls waiting for a stream or a place.
// A closed channel wakes all of them at once, which a sync.Cond could do
// too, but a channel can be selected on together with ctx.Done.
func (t *h2) signalLocked() {
	if t.waiters > 0 {
		close(t.wake)
		t.wake = make(chan struct{})
	}
}

// dropLocked takes c out of the pool. It returns c's connection if it must
// be closed now, because no stream uses it.
func (t *h2) dropLocked(c *h2conn) *http2.ClientConn {
	if i := slices.Index(t.conns, c); i >= 0 {
		t.conns = slices.Delete(t.conns, i, i+1)
	}
	c.dropped = true
	t.signalLocked()
	return t.closeIfIdleLocked(c)
}

func (t *h2) closeIfIdleLocked(c *h2conn) *http2.ClientConn {
	if c.dropped && c.active == 0 && c.cc != nil && !c.closed {
		c.closed = true
		return c.cc
	}
	return nil
}

// acquire takes a stream on a connection to key. When it opens the
// connection, the dial's timings go into out.
func (t *h2) acquire(ctx context.Context, req *Request, key string, out *record.Sample) (*h2conn, error) {
	for {
		t.mu.Lock()
		c, dead := t.pickLocked(key)
		if c != nil {
			c.active++
			t.mu.Unlock()
			closeAll(dead)
			return t.await(ctx, c)
		}
		if t.o.Connections == 0 || len(t.conns) < t.o.Connections {
			c = &h2conn{key: key, ready: make(chan struct{}), active: 1, limit: t.streams}
			t.conns = append(t.conns, c)
			t.mu.Unlock()
			closeAll(dead)
			if out.Sent == 0 { // the send starts with opening the connection, as in the lean client
				out.Sent = Now()
			}
			t.dial(ctx, req, c)
			out.Connect, out.TLS = c.connect, c.tls
			if c.err != nil {
				t.release(c)
				return nil, c.err
			}
			return c, nil
		}
		// At the cap: make room by closing a connection to another
		// address that nobody uses, else wait for a stream or a place.
		if idle := t.idleElsewhereLocked(key); idle != nil {
			dead = append(dead, t.dropLocked(idle))
			t.mu.Unlock()
			closeAll(dead)
			continue
		}
		t.waiters++
		wake := t.wake
		t.mu.Unlock()
		closeAll(dead)
		select {
		case <-wake:
		case <-ctx.Done():
		}
		t.mu.Lock()
		t.waiters--
		t.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// pickLocked returns the least loaded connection to key with a free stream,
// dropping the dead ones it meets and returning those to close.
func (t *h2) pickLocked(key string) (*h2conn, []*http2.ClientConn) {
	var dead []*http2.ClientConn
	for {
		var best *h2conn
		for _, c := range t.conns {
			if c.key == key && c.active < c.limit && (best == nil || c.active < best.active) {
				best = c
			}
		}
		// Asking the connection takes its lock under ours; it never
		// calls back into the pool, so the order cannot deadlock.
		if best == nil || best.cc == nil || best.cc.CanTakeNewRequest() {
			return best, dead
		}
		if cc := t.dropLocked(best); cc != nil {
			dead = append(dead, cc)
		}
	}
}

// idleElsewhereLocked returns an open connection to another address with
// no stream in use, or, failing that, a dead one.
func (t *h2) idleElsewhereLocked(key string) *h2conn {
	for _, c := range t.conns {
		if c.cc != nil && c.active == 0 && (c.key != key || !c.cc.CanTakeNewRequest()) {
			return c
		}
	}
	return nil
}

// await waits until c, on which the caller took a stream, has been dialed.
func (t *h2) await(ctx context.Context, c *h2conn) (*h2conn, error) {
	select {
	case <-c.ready:
	default:
		select {
		case <-c.ready:
		case <-ctx.Done():
			t.unreserve(c)
			return nil, ctx.Err()
		}
	}
	if c.err != nil {
		t.release(c)
		return nil, c.err
	}
	return c, nil
}

// dial opens c's connection, within the timeout.
func (t *h2) dial(ctx context.Context, req *Request, c *h2conn) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	network, addr := "tcp", c.key[len(req.URL.Scheme)+len("://"):]
	if t.o.UnixSocket != "" {
		network, addr = "unix", t.o.UnixSocket
	}
	start := Now()
	nc, err := t.dialer.DialContext(ctx, network, addr)
	connect := Now() - start
	var handshake time.Duration
	if err == nil && t.tls != nil {
		cfg := t.tls
		if cfg.ServerName == "" {
			cfg = cfg.Clone()
			cfg.ServerName = req.URL.Hostname()
		}
		tc := tls.Client(nc, cfg)
		start = Now()
		err = tlsHandshakeError(tc.HandshakeContext(ctx))
		handshake = Now() - start
		if p := tc.ConnectionState().NegotiatedProtocol; err == nil && p != "h2" {
			err = &h2NotNegotiated{addr: addr, proto: p}
		}
		if err != nil {
			nc.Close()
		}
		nc = tc
	}
	// The server's preface holds its stream limit, so that no stream
	// goes over it; a server that does not send one gets no ClientConn.
	limit := t.streams
	if err == nil {
		var pc net.Conn
		var max int
		if pc, max, err = h2Preface(ctx, nc, t.first); err != nil {
			nc.Close()
		} else if nc = pc; max > 0 {
			limit = min(limit, max)
		}
	}
	var cc *http2.ClientConn
	if err == nil {
		if cc, err = t.tr.NewClientConn(nc); err != nil {
			nc.Close()
		}
	}
	t.mu.Lock()
	c.cc, c.err, c.connect, c.tls, c.limit = cc, err, connect, handshake, limit
	if err != nil {
		t.dropLocked(c) // nil: c has no connection to close
	}
	t.signalLocked()
	t.mu.Unlock()
	close(c.ready)
}

// release gives back a stream taken on c after its dial ended, and drops
// c if its connection can take no more requests (closed, GOAWAY).
func (t *h2) release(c *h2conn) {
	usable := c.cc != nil && c.cc.CanTakeNewRequest()
	t.mu.Lock()
	c.active--
	var cc *http2.ClientConn
	if !usable && !c.dropped {
		cc = t.dropLocked(c)
	} else {
		cc = t.closeIfIdleLocked(c)
	}
	t.signalLocked()
	t.mu.Unlock()
	if cc != nil {
		cc.Close()
	}
}

// unreserve gives back a stream taken on c while it may still be dialing.
func (t *h2) unreserve(c *h2conn) {
	t.mu.Lock()
	c.active--
	cc := t.closeIfIdleLocked(c)
	t.signalLocked()
	t.mu.Unlock()
	if cc != nil {
		cc.Close()
	}
}

func closeAll(ccs []*http2.ClientConn) {
	for _, cc := range ccs {
		if cc != nil {
			cc.Close()
		}
	}
}

// h2session is one worker's use of the pool. Between requests it holds no
// stream.
type h2session struct {
	t   *h2
	c   nhCache
	buf []byte
}

// Do implements Session.
func (s *h2session) Do(ctx context.Context, req *Request, out *record.Sample) {
	err := s.c.load(req, false)
	if err == nil {
		err = s.t.check(req)
	}
	if err != nil {
		nhFail(out, err)
		return
	}
	if s.buf == nil {
		s.buf = make([]byte, nhBufSize)
	}
	// A request the server never processed goes again on another
	// connection. One sent on a connection that was going away (GOAWAY)
	// goes again within the timeout of its first send: a server that ends
	// each connection after one response refuses the streams that raced
	// it, however many times. One refused on its own (REFUSED_STREAM) may
	// be a server shedding load, which the result must show: it goes again
	// twice at most.
	var deadline time.Time
	refused := 0
	for {
		c, err := s.t.acquire(ctx, req, s.c.key, out)
		if err != nil {
			nhFail(out, h2Cause(err))
			return
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(s.t.timeout)
		}
		retry, err := s.roundTrip(ctx, deadline, c.cc, req, out)
		s.t.release(c)
		if err == nil {
			return
		}
		if se := (http2.StreamError{}); retry && errors.As(err, &se) {
			refused++
			retry = refused <= 2
		}
		if !retry || !time.Now().Before(deadline) {
			nhFail(out, h2Cause(err))
			return
		}
		out.Retries = min(out.Retries+1, math.MaxUint8)
	}
}

// roundTrip sends req on cc and reads the response, by deadline. retry
// reports that the server never processed the request.
func (s *h2session) roundTrip(ctx context.Context, deadline time.Time, cc *http2.ClientConn, req *Request, out *record.Sample) (retry bool, err error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	wt := new(wireTimes) // per attempt: a late hook of another stays in its own
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: wt.wroteRequest, GotFirstResponseByte: wt.gotFirstByte})
	hr := s.c.hr.WithContext(ctx)
	hr.Body = nhNewBody(req.Body)
	if out.Sent == 0 { // a retry keeps the first send time
		out.Sent = Now()
	}
	out.BytesOut = s.c.out
	resp, err := cc.RoundTrip(hr)
	if err != nil {
		return h2Retryable(err), err
	}
	out.Code = resp.StatusCode
	out.BytesIn = nhHeadSize(resp)
	n, err := nhDrain(resp.Body, s.buf)
	out.BytesIn += n
	if err == nil {
		out.Done = Now()
		out.Wait, out.Read = wt.split(out.Done)
	}
	resp.Body.Close()
	return false, err
}

// check fails a request whose scheme does not match the transport's mode.
func (t *h2) check(req *Request) error {
	switch {
	case t.o.HTTP2 && req.URL.Scheme != "https":
		return fmt.Errorf("HTTP/2 over TLS needs an https URL, not %s", req.URL.Redacted())
	case t.o.H2C && req.URL.Scheme != "http":
		return fmt.Errorf("h2c (HTTP/2 over cleartext) needs an http URL, not %s", req.URL.Redacted())
	}
	return nil
}

// Close implements Session.
func (s *h2session) Close() {
	s.buf = nil
	s.c = nhCache{}
}
