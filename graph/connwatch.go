package graph

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// A connWatch is what a node's watchdog knows of one connection: its
// header or idle deadline and, while it serves a request with a body,
// whether the server waits for that body's bytes and whether any came.
//
// A connection making no progress reading a body is closed after the
// node's BodyTimeout; one whose handler is busy (sleeping, calling
// downstream) while the body waits in the socket is not, however long it
// takes. Telling the two apart takes the counters below: the connection
// counts the bytes it reads and the reads and writes in progress, the
// request's body its own reads, all with atomic adds, which wake no other
// thread; the sweep reads them once a tick.
type connWatch struct {
	got       atomic.Int64 // bytes read from the connection
	reading   atomic.Int32 // reads of the connection in progress
	writing   atomic.Int32 // writes to the connection in progress
	body      atomic.Int32 // bodyNone, bodyHandler or bodyServer
	bodyReads atomic.Int32 // reads of the request's body in progress

	// Guarded by the watchdog's mu.
	deadline time.Time // for a request's header; zero while one is served
	seen     int64     // got when the sweep last saw the body wait
	since    time.Time // since when it has waited without a byte; zero when not waiting
}

// The states of a request's body on its connection.
const (
	// bodyNone: no body left to read, or no request.
	bodyNone int32 = iota
	// bodyHandler: the handler runs and may read the body. It waits for
	// the body only while it is in one of the body's reads: net/http may
	// have read the body to its end by itself (when the response is
	// flushed first), and then reads the connection in the background,
	// for the next request, the whole time the handler runs.
	bodyHandler
	// bodyServer: the handler has returned before the body's end, and
	// net/http reads what is left of it (up to 256 KiB) before the next
	// request: any read of the connection is the body's, except while a
	// write of the response is blocked (the background read, if the body
	// had ended after all, lasts until the response is written).
	bodyServer
)

// waitingForBody says whether the server waits for bytes of a request body.
func (c *connWatch) waitingForBody() bool {
	switch c.body.Load() {
	case bodyHandler:
		return c.bodyReads.Load() > 0
	case bodyServer:
		return c.reading.Load() > 0 && c.writing.Load() == 0
	}
	return false
}

// stalled says whether c has waited for body bytes, without one coming,
// for limit or longer by now. The sweep calls it once a tick, with the
// watchdog's mu held; it notices a wait up to a tick late.
func (c *connWatch) stalled(now time.Time, limit time.Duration) bool {
	if !c.waitingForBody() {
		c.since = time.Time{}
		return false
	}
	if got := c.got.Load(); c.since.IsZero() || got != c.seen {
		c.seen, c.since = got, now
		return false
	}
	return now.Sub(c.since) >= limit
}

// A watchedConn is a connection a node's listener accepted: it counts
// into its connWatch, and out of the listener's open connections when
// closed.
type watchedConn struct {
	net.Conn
	watch  *connWatch
	ln     *watchedListener
	closed atomic.Bool
}

func (c *watchedConn) Read(p []byte) (int, error) {
	c.watch.reading.Add(1)
	n, err := c.Conn.Read(p)
	c.watch.got.Add(int64(n))
	c.watch.reading.Add(-1)
	return n, err
}

func (c *watchedConn) Write(p []byte) (int, error) {
	c.watch.writing.Add(1)
	n, err := c.Conn.Write(p)
	c.watch.writing.Add(-1)
	return n, err
}

func (c *watchedConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.ln.open.Add(-1)
	}
	return c.Conn.Close()
}

// CloseWrite lets net/http half-close a connection before closing it, so
// that a response is not lost to a reset when the client's unread bytes
// are dropped.
func (c *watchedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// watchOf returns the connWatch of a connection a watchedListener
// accepted, beneath TLS or not, and nil for any other.
func watchOf(c net.Conn) *connWatch {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if wc, ok := c.(*watchedConn); ok {
		return wc.watch
	}
	return nil
}

// A watchedListener is a node server's listener: it closes a connection
// as it accepts it when max are open already, and watches every other
// beneath TLS, when it serves TLS, so that the bytes it counts are the
// client's.
type watchedListener struct {
	net.Listener
	tls     *tls.Config // nil for plain HTTP
	max     int64
	refused prometheus.Counter
	open    atomic.Int64
}

// errTLSListener is Serve's error for a listener that hands out TLS
// connections, whose bytes it could not count.
var errTLSListener = errors.New("the listener serves TLS: give NodeConfig.TLS and a plain listener instead")

// Accept returns the next connection under the cap. One beyond it is
// closed before any of its bytes are read, and counted in
// latlab_server_connections_refused_total.
func (l *watchedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if _, ok := c.(*tls.Conn); ok {
			c.Close()
			return nil, errTLSListener
		}
		if l.open.Load() >= l.max {
			// Counted before the close, so that a client that sees
			// the close finds it counted.
			l.refused.Inc()
			c.Close()
			continue
		}
		l.open.Add(1)
		wc := &watchedConn{Conn: c, watch: &connWatch{}, ln: l}
		if l.tls != nil {
			return tls.Server(wc, l.tls), nil
		}
		return wc, nil
	}
}

// connWatchKey is the context key of a connection's connWatch.
type connWatchKey struct{}

// connContext is an http.Server's ConnContext hook: it hands a
// connection's watch to its requests.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if w := watchOf(c); w != nil {
		return context.WithValue(ctx, connWatchKey{}, w)
	}
	return ctx
}

// watchBodies returns next with each HTTP/1 request's body watched, so
// that the sweep knows when the handler waits for it. A request without a
// body costs a comparison.
func watchBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == http.NoBody || r.Body == nil || r.ProtoMajor != 1 {
			next.ServeHTTP(w, r)
			return
		}
		cw, _ := r.Context().Value(connWatchKey{}).(*connWatch)
		if cw == nil {
			next.ServeHTTP(w, r)
			return
		}
		cw.body.Store(bodyHandler)
		// A copy, so that net/http still sees its own body in the request
		// it holds, and reads what the handler left as it would.
		r = r.WithContext(r.Context())
		r.Body = &watchedBody{ReadCloser: r.Body, watch: cw}
		next.ServeHTTP(w, r)
		cw.body.CompareAndSwap(bodyHandler, bodyServer)
	})
}

// A watchedBody is a request body that tells its connection's watch when
// it is being read and when it has ended.
type watchedBody struct {
	io.ReadCloser
	watch *connWatch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.watch.bodyReads.Add(1)
	n, err := b.ReadCloser.Read(p)
	b.watch.bodyReads.Add(-1)
	if err == io.EOF {
		b.watch.body.Store(bodyNone)
	}
	return n, err
}

// defaultMaxConns is the cap on a node's open connections when MaxConns
// is 0: 10,000, or three quarters of the process's limit on open files
// when that is lower, the rest left to downstream calls and files.
func defaultMaxConns() int {
	const most = 10_000
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur >= most*4/3 {
		return most
	}
	return max(int(lim.Cur*3/4), 1)
}
