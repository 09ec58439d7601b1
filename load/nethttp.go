package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/net/http2"

	"github.com/latlab/latlab/record"
)

// nhBufSize is the size of the buffer a session reads response bodies into;
// it is allocated on first use, so idle sessions cost nothing.
const nhBufSize = 16 << 10

// nhMaxIdle keeps every connection net/http opened: the cap on open
// connections, not an idle limit, is what bounds them.
const nhMaxIdle = 1 << 16

// newNetHTTP returns the net/http-based transport o asks for: HTTP/2 over
// TLS (o.HTTP2), HTTP/2 over cleartext with prior knowledge (o.H2C), or
// else net/http's HTTP/1.1, the reference the lean client is checked against.
func newNetHTTP(o Options) (Transport, error) {
	switch {
	case o.HTTP2 && o.H2C:
		return nil, errors.New("transport: HTTP2 (over TLS) and H2C (cleartext) exclude each other")
	case o.Connections < 0:
		return nil, fmt.Errorf("transport: connections %d: must be 0 (no cap) or more", o.Connections)
	case o.Streams < 0:
		return nil, fmt.Errorf("transport: streams %d: must be 0 (100) or more", o.Streams)
	case o.HTTP2 || o.H2C:
		return newH2(o)
	}
	return newNetH1(o), nil
}

// netH1 is net/http's HTTP/1.1 transport, measured with httptrace.
type netH1 struct {
	o       Options
	timeout time.Duration
	tr      *http.Transport
}

func newNetH1(o Options) *netH1 {
	t := &netH1{o: o, timeout: o.timeout()}
	d := &net.Dialer{Timeout: t.timeout, KeepAlive: -1}
	var p http.Protocols
	p.SetHTTP1(true) // never HTTP/2, even if the server offers it
	t.tr = &http.Transport{
		// No Proxy: a load generator talks to its target, not through
		// whatever HTTP_PROXY says.
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if o.UnixSocket != "" {
				return d.DialContext(ctx, "unix", o.UnixSocket)
			}
			return d.DialContext(ctx, network, addr)
		},
		TLSClientConfig:     o.TLS,
		TLSHandshakeTimeout: t.timeout,
		DisableKeepAlives:   o.NoKeepAlive,
		DisableCompression:  true,
		MaxIdleConnsPerHost: nhMaxIdle,
		MaxConnsPerHost:     o.Connections,
		ForceAttemptHTTP2:   false,
		Protocols:           &p,
		// The lean client's limit, so that both call the same answers
		// malformed.
		MaxResponseHeaderBytes: maxHeaderSize,
	}
	return t
}

// Session implements Transport.
func (t *netH1) Session() Session { return &nhSession{t: t} }

// Close implements Transport.
func (t *netH1) Close() error {
	t.tr.CloseIdleConnections()
	return nil
}

// nhSession is one worker's use of net/http's HTTP/1.1 transport. It holds
// no connection between requests: net/http pools them.
type nhSession struct {
	t   *netH1
	c   nhCache
	buf []byte
}

// errNHTimeout is the cause a request's context is cancelled with when
// its timeout, counted from the send, expires.
var errNHTimeout = fmt.Errorf("no full response within the timeout: %w", context.DeadlineExceeded)

// Do implements Session.
func (s *nhSession) Do(ctx context.Context, req *Request, out *record.Sample) {
	if err := s.c.load(req, s.t.o.NoKeepAlive); err != nil {
		nhFail(out, err)
		return
	}
	if s.buf == nil {
		s.buf = make([]byte, nhBufSize)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	tr := &nhTrace{timeout: s.t.timeout, cancel: cancel}
	hr := s.c.hr.WithContext(httptrace.WithClientTrace(rctx, tr.hooks()))
	hr.Body = nhNewBody(req.Body)
	resp, err := s.t.tr.RoundTrip(hr)
	if err == nil && errors.Is(context.Cause(rctx), errNHTimeout) {
		// The head raced with the timer and lost: the server answered
		// only because the client gave up, so no status is recorded.
		resp.Body.Close()
		resp, err = nil, errNHTimeout
	}
	if err == nil {
		out.Code = resp.StatusCode
		out.BytesIn = nhHeadSize(resp)
		var n int64
		n, err = nhDrain(resp.Body, s.buf)
		out.BytesIn += n
		if err == nil {
			out.Done = Now()
			out.Wait, out.Read = tr.split(out.Done)
		}
		resp.Body.Close()
	}
	if tr.timer != nil {
		tr.timer.Stop()
	}
	// net/http may report our timeout as a plain cancellation, or even
	// return a response that raced with it; the cause says whether the
	// timer fired before the body ended. Read it before cancel(nil).
	if errors.Is(context.Cause(rctx), errNHTimeout) {
		err = errNHTimeout
	}
	cancel(nil)
	if out.Sent = tr.sent; out.Sent != 0 {
		out.BytesOut = s.c.out
	}
	if !tr.reused {
		out.Connect = nhSpan(&tr.connectStart, &tr.connectDone)
		out.TLS = nhSpan(&tr.tlsStart, &tr.tlsDone)
		// The send starts with opening the connection, as in the lean client.
		if cs := time.Duration(tr.connectStart.Load()); cs != 0 && (out.Sent == 0 || cs < out.Sent) {
			out.Sent = cs
		}
	}
	if err != nil {
		if tr.tlsFailed.Load() {
			err = tlsHandshakeError(err)
		}
		nhFail(out, nhCause(err))
	}
}

// Close implements Session.
func (s *nhSession) Close() {
	s.buf = nil
	s.c = nhCache{}
}

// nhTrace collects one request's httptrace events. Dial events come from
// the goroutine net/http dials on, possibly after RoundTrip has returned,
// hence the atomics; GotConn runs on the goroutine that called RoundTrip,
// so the fields below it need none.
type nhTrace struct {
	connectStart, connectDone atomic.Int64 // on the clock of Now
	tlsStart, tlsDone         atomic.Int64
	tlsFailed                 atomic.Bool // the last handshake failed
	wireTimes

	sent    time.Duration
	reused  bool
	timer   *time.Timer
	timeout time.Duration
	cancel  context.CancelCauseFunc
}

func (tr *nhTrace) hooks() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		ConnectStart: func(string, string) { tr.connectStart.CompareAndSwap(0, int64(Now())) },
		ConnectDone:  func(string, string, error) { tr.connectDone.Store(int64(Now())) },
		TLSHandshakeStart: func() {
			tr.tlsStart.CompareAndSwap(0, int64(Now()))
		},
		TLSHandshakeDone: func(_ tls.ConnectionState, err error) {
			tr.tlsFailed.Store(err != nil)
			tr.tlsDone.Store(int64(Now()))
		},
		GotConn:              tr.gotConn,
		WroteRequest:         tr.wroteRequest,
		GotFirstResponseByte: tr.gotFirstByte,
	}
}

// gotConn marks the send: the request's first byte is written next. The
// timeout starts here, as it does in the lean client, so time spent waiting
// for a connection under the cap is lag, not service time. A retry on
// another connection keeps the first send time.
func (tr *nhTrace) gotConn(info httptrace.GotConnInfo) {
	if tr.sent != 0 {
		return
	}
	tr.sent = Now()
	tr.reused = info.Reused
	tr.timer = time.AfterFunc(tr.timeout, func() { tr.cancel(errNHTimeout) })
}

// nhSpan returns done−start, or 0 unless both were recorded in order.
func nhSpan(start, done *atomic.Int64) time.Duration {
	s, d := start.Load(), done.Load()
	if s == 0 || d < s {
		return 0
	}
	return time.Duration(d - s)
}

// nhCache holds the *http.Request template built for the last Request a
// session sent: a worker usually sends the same one again, and building it
// (header with User-Agent, wire size, dial key) is the costly part.
// Requests are not changed once sent, so the pointer identifies them.
type nhCache struct {
	req *Request
	hr  *http.Request // without context or body; copied per attempt
	key string        // scheme://host:port
	out int64         // HTTP/1.1 size of the request, headers and body
	tmp []byte
}

// load makes c describe req.
func (c *nhCache) load(req *Request, closeConn bool) error {
	if c.req == req && c.hr != nil {
		return nil
	}
	if req.URL == nil {
		return errors.New("request without a URL")
	}
	h := req.Header
	if !nhHasUA(h) {
		// The same User-Agent as the lean client, so the two send the
		// same request.
		h = h.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Set("User-Agent", userAgent)
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	body := req.Body
	c.hr = &http.Request{
		Method:        method,
		URL:           req.URL,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Host:          req.Host,
		ContentLength: int64(len(body)),
	}
	if len(body) > 0 {
		// GetBody lets net/http resend an idempotent request on a new
		// connection when a kept-alive one turns out closed.
		c.hr.GetBody = func() (io.ReadCloser, error) { return nhNewBody(body), nil }
	}
	if req.wire != nil {
		c.out = int64(len(req.wire))
	} else {
		c.tmp = appendWire(c.tmp[:0], req, closeConn)
		c.out = int64(len(c.tmp))
	}
	c.key = req.key
	if c.key == "" {
		c.key = dialKey(req)
	}
	c.req = req
	return nil
}

// nhHasUA reports whether h sets a User-Agent, however its key is spelled.
func nhHasUA(h http.Header) bool {
	for k := range h {
		if http.CanonicalHeaderKey(k) == "User-Agent" {
			return true
		}
	}
	return false
}

// nhBody is a request body: one allocation per attempt, since a transport
// may still read it after the response has been read.
type nhBody struct{ bytes.Reader }

func (*nhBody) Close() error { return nil }

// nhNewBody returns a body reading b, or nil when b is empty.
func nhNewBody(b []byte) io.ReadCloser {
	if len(b) == 0 {
		return nil
	}
	r := &nhBody{}
	r.Reset(b)
	return r
}

// nhDrain reads r to its end into buf, returning the bytes read. An error
// before io.EOF means the body was cut short.
func nhDrain(r io.Reader, buf []byte) (int64, error) {
	var n int64
	for {
		m, err := r.Read(buf)
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// nhHeadSize approximates the HTTP/1.1 size of resp's status line and
// headers. For HTTP/2 it is the size the same response would have in
// HTTP/1.1, so byte counts of both protocols compare.
func nhHeadSize(resp *http.Response) int64 {
	n := len("HTTP/1.1 \r\n") + len(resp.Status) + len("\r\n")
	for k, vs := range resp.Header {
		for _, v := range vs {
			n += len(k) + len(": \r\n") + len(v)
		}
	}
	for _, te := range resp.TransferEncoding {
		n += len("Transfer-Encoding: \r\n") + len(te)
	}
	return int64(n)
}

// nhFail records err in out, with its class.
func nhFail(out *record.Sample, err error) {
	if out.Sent == 0 {
		out.Sent = Now()
	}
	out.Done = Now()
	out.Error, out.Err = classify(err), err
}

// nhClassed gives an error a class classify knows: class is
// syscall.ECONNRESET or errProtocol. The message stays the original's.
type nhClassed struct {
	err   error
	class error
}

func (e *nhClassed) Error() string   { return e.err.Error() }
func (e *nhClassed) Unwrap() []error { return []error{e.err, e.class} }

// nhCause classifies the errors classify does not know: net/http errors
// that carry their kind only in their text.
func nhCause(err error) error {
	msg := err.Error()
	if first, ok := nhMalformed(msg); ok && looksTLS(first) {
		return tlsAnswer(first)
	}
	switch {
	case strings.Contains(msg, "malformed HTTP"),
		strings.Contains(msg, "server response headers exceeded"),
		strings.Contains(msg, "response header list larger than advertised limit"): // HTTP/2
		return &nhClassed{err, errProtocol}
	case strings.Contains(msg, "server closed idle connection"):
		return &nhClassed{err, syscall.ECONNRESET}
	}
	return err
}

// nhMalformed returns the bytes net/http quotes in its error for a
// response that is not HTTP.
func nhMalformed(msg string) ([]byte, bool) {
	const head = `malformed HTTP response `
	i := strings.Index(msg, head)
	if i < 0 {
		return nil, false
	}
	q, err := strconv.QuotedPrefix(msg[i+len(head):])
	if err != nil {
		return nil, false
	}
	s, err := strconv.Unquote(q)
	return []byte(s), err == nil
}

// h2NotNegotiated is the error of a TLS server that did not agree to
// speak HTTP/2.
type h2NotNegotiated struct{ addr, proto string }

func (e *h2NotNegotiated) Error() string {
	return fmt.Sprintf("%s did not negotiate h2 with ALPN (got %q): the server does not offer HTTP/2 over TLS", e.addr, e.proto)
}

func (e *h2NotNegotiated) Unwrap() error { return errProtocol }

// h2Retryable reports whether err from RoundTrip means the request was
// never processed, so it may go again on another connection: what
// x/net/http2's own pool retries on. Two of those errors are unexported,
// so they are known by their text.
func h2Retryable(err error) bool {
	var se http2.StreamError
	if errors.As(err, &se) {
		return se.Code == http2.ErrCodeRefusedStream
	}
	switch err.Error() {
	case "http2: client conn not usable",
		"http2: Transport received Server's graceful shutdown GOAWAY":
		return true
	}
	return false
}

// h2Cause gives HTTP/2 errors the class classify should report: a stream
// or connection the peer ended is a reset, a broken frame a protocol error.
func h2Cause(err error) error {
	var (
		se http2.StreamError
		ge http2.GoAwayError
		ce http2.ConnectionError
	)
	switch {
	case errors.As(err, &se):
		return &nhClassed{err, h2CodeClass(se.Code)}
	case errors.As(err, &ge):
		return &nhClassed{err, h2CodeClass(ge.ErrCode)}
	case errors.As(err, &ce), errors.Is(err, http2.ErrFrameTooLarge): // the latter: often an HTTP/1.1 reply
		return &nhClassed{err, errProtocol}
	case h2Retryable(err):
		return &nhClassed{err, syscall.ECONNRESET}
	}
	return nhCause(err)
}

func h2CodeClass(code http2.ErrCode) error {
	switch code {
	case http2.ErrCodeProtocol, http2.ErrCodeFrameSize, http2.ErrCodeCompression,
		http2.ErrCodeFlowControl, http2.ErrCodeHTTP11Required:
		return errProtocol
	}
	return syscall.ECONNRESET
}
