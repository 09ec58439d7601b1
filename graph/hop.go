package graph

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"
)

// hopTransport is the http.RoundTripper of a node's calls: HTTP/1.1 over
// keep-alive connections, each request written and its answer read by the
// calling goroutine itself.
//
// Why not net/http's Transport: it gives every connection a reader and a
// writer goroutine and passes each request and answer between them and the
// caller, two hand-offs a call, and at one request in flight each one is a
// thread waking up. bench/hop.sh measured what they cost: a hop of a
// three-service chain took 1.25 × a minimal net/http chain's with them,
// 0.95 × without, side by side in one session. What net/http's Transport
// does besides is kept: connections reused last in,
// first out; a request that meets a kept connection the server has closed
// sent again once on a new one when it can be (no answer begun, its body
// replayable); an answer's end read before the connection is reused;
// interim 1xx answers skipped; cancelling the request's context ends a
// call blocked in a read or write.
//
// Anything but plain http (https, an upgrade) goes to next.
type hopTransport struct {
	next    http.RoundTripper
	dialer  net.Dialer
	maxIdle int           // idle connections kept per host
	idleFor time.Duration // an idle connection older than this is closed, not reused

	mu   sync.Mutex
	idle map[string][]*hopConn // by host:port, most recently used last
}

// newHopTransport returns a hopTransport keeping up to maxIdle idle
// connections per host for at most idleFor, handing other requests to next.
func newHopTransport(next http.RoundTripper, maxIdle int, idleFor time.Duration) *hopTransport {
	return &hopTransport{
		next:    next,
		dialer:  net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second},
		maxIdle: maxIdle,
		idleFor: idleFor,
		idle:    map[string][]*hopConn{},
	}
}

// A hopConn is one connection with its buffers.
type hopConn struct {
	conn      net.Conn
	br        *bufio.Reader
	bw        *bufio.Writer
	idleSince time.Time
}

// longAgo is a deadline in the past: setting it ends a blocked read or write.
var longAgo = time.Unix(1, 0)

func (t *hopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" || req.URL.Host == "" || len(req.Header["Upgrade"]) > 0 {
		return t.next.RoundTrip(req)
	}
	host := hostPort(req.URL.Host)
	ctx := req.Context()
	for again := false; ; again = true {
		c, reused, err := t.get(ctx, host)
		if err != nil {
			closeBody(req)
			if cause := context.Cause(ctx); cause != nil {
				return nil, cause
			}
			return nil, err
		}
		resp, err := t.exchange(ctx, host, c, req)
		if err == nil {
			return resp, nil
		}
		if cause := context.Cause(ctx); cause != nil {
			closeBody(req)
			return nil, cause
		}
		var stale *staleError
		if again || !reused || !errors.As(err, &stale) {
			closeBody(req)
			return nil, err
		}
		// The server closed a kept connection before answering: once more
		// on a new one, with a fresh copy of the body.
		if req.Body != nil && req.Body != http.NoBody {
			closeBody(req)
			if req.GetBody == nil {
				return nil, err
			}
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, errors.Join(err, gerr)
			}
			r2 := *req
			r2.Body = body
			req = &r2
		}
	}
}

// hostPort is host with port 80 when it names none.
func hostPort(host string) string {
	if i := strings.LastIndexByte(host, ':'); i > strings.LastIndexByte(host, ']') {
		return host
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), "80")
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// A staleError is the end of a kept connection met before any of an answer
// came: the request may be sent again.
type staleError struct{ err error }

func (e *staleError) Error() string { return "connection closed before an answer: " + e.err.Error() }
func (e *staleError) Unwrap() error { return e.err }

// exchange writes req on c and reads the head of its answer. On success the
// answer's body owns c; on failure c is closed.
func (t *hopTransport) exchange(ctx context.Context, host string, c *hopConn, req *http.Request) (*http.Response, error) {
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(longAgo) })
	fail := func(err error) (*http.Response, error) {
		stop()
		_ = c.conn.Close()
		return nil, err
	}
	var body *bodyReader
	if req.Body != nil && req.Body != http.NoBody {
		body = &bodyReader{ReadCloser: req.Body}
		r2 := *req
		r2.Body = body
		req = &r2
	}
	werr := req.Write(c.bw)
	if werr == nil {
		werr = c.bw.Flush()
	}
	if body != nil && body.err != nil {
		return fail(body.err) // the request could not be had: no answer will come
	}
	// A server may answer and close without reading all of a body (a 413,
	// say): its answer, when one came, is the result, as net/http's would be.
	if _, err := c.br.Peek(1); err != nil {
		stale := isStale(err)
		if werr != nil {
			err = werr // the first thing that went wrong
		}
		if stale {
			return fail(&staleError{err})
		}
		return fail(err)
	}
	var resp *http.Response
	for {
		var err error
		if resp, err = http.ReadResponse(c.br, req); err != nil {
			return fail(err)
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		// An interim answer (100 Continue, 103 Early Hints): the final one follows.
	}
	keep := werr == nil && !resp.Close && !req.Close
	b := &hopBody{t: t, host: host, c: c, rc: resp.Body, stop: stop, keep: keep, ctx: ctx}
	if resp.Body == http.NoBody {
		b.release(true)
		return resp, nil
	}
	resp.Body = b
	return resp, nil
}

// isStale says whether err, met reading the first byte of an answer, means
// that the server had closed the connection.
func isStale(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// get returns an idle connection to host, or a new one.
func (t *hopTransport) get(ctx context.Context, host string) (c *hopConn, reused bool, err error) {
	t.mu.Lock()
	for l := t.idle[host]; len(l) > 0; l = t.idle[host] {
		c = l[len(l)-1]
		l[len(l)-1] = nil
		t.idle[host] = l[:len(l)-1]
		if time.Since(c.idleSince) < t.idleFor {
			t.mu.Unlock()
			return c, true, nil
		}
		_ = c.conn.Close()
	}
	t.mu.Unlock()
	conn, err := t.dialer.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, false, err
	}
	return &hopConn{conn: conn, br: bufio.NewReader(conn), bw: bufio.NewWriter(conn)}, false, nil
}

// put keeps c for the next request to host, or closes it when host has
// maxIdle idle connections already.
func (t *hopTransport) put(host string, c *hopConn) {
	c.idleSince = time.Now()
	t.mu.Lock()
	if len(t.idle[host]) < t.maxIdle {
		t.idle[host] = append(t.idle[host], c)
		c = nil
	}
	t.mu.Unlock()
	if c != nil {
		_ = c.conn.Close()
	}
}

// CloseIdleConnections closes the connections kept idle, and next's.
func (t *hopTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = map[string][]*hopConn{}
	t.mu.Unlock()
	for _, l := range idle {
		for _, c := range l {
			_ = c.conn.Close()
		}
	}
	if ci, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// A hopBody is an answer's body on a hopConn: read to its end, it gives the
// connection back for reuse; closed before, or failing, it closes it.
type hopBody struct {
	t    *hopTransport
	host string
	c    *hopConn
	rc   io.ReadCloser
	stop func() bool // unregisters the context's hook; false once it has run
	keep bool        // the connection may serve another request
	ctx  context.Context
	done bool // the connection is released
	eof  bool // ... after the whole answer was read
}

func (b *hopBody) Read(p []byte) (int, error) {
	if b.eof {
		return 0, io.EOF
	}
	if b.done {
		return 0, errors.New("read on a closed body")
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.eof = true
		b.release(true)
	case err != nil:
		b.release(false)
		if cause := context.Cause(b.ctx); cause != nil {
			err = cause
		}
	}
	return n, err
}

func (b *hopBody) Close() error {
	if !b.done {
		b.release(false)
	}
	return nil
}

// release ends the body's hold on its connection: back to the pool when the
// whole answer was read and nothing forbids it, else closed.
func (b *hopBody) release(whole bool) {
	b.done = true
	if b.stop() && whole && b.keep {
		b.t.put(b.host, b.c)
		return
	}
	_ = b.c.conn.Close()
}

// A bodyReader keeps the error of reading a request's body, which
// Request.Write does not tell from one of writing it.
type bodyReader struct {
	io.ReadCloser
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}
