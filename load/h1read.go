package load

import (
	"bytes"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// Limits on what a response may send before it counts as malformed.
const (
	readBufSize   = 8 << 10  // initial read buffer of a session
	maxHeaderSize = 64 << 10 // status line and headers together
	maxLineSize   = 8 << 10  // one chunk-size or trailer line
)

// reader is a minimal buffered reader over one connection, reused across
// requests so that reading a response allocates nothing. Every byte it hands
// out is counted in n.
type reader struct {
	c    net.Conn
	buf  []byte
	r, w int
	n    int64 // bytes consumed since the last reset

	// wroteAt is when the request's last byte was written, firstAt when
	// the response's first byte was read, on the clock of Now; 0 until
	// then.
	wroteAt, firstAt time.Duration

	// raw, when set, is c's file descriptor. exchange then writes the
	// request and waits for the response inside one raw.Read, so that no
	// read system call is made before the response can be there: a plain
	// Write then Read would make one that fails with EAGAIN on every
	// request. The write must happen inside raw.Read because raw.Read
	// forgets readiness seen before it starts. rawFn is rawStep bound once,
	// so an exchange allocates nothing.
	raw   syscall.RawConn
	rawFn func(fd uintptr) bool
	out   []byte // request bytes not yet written
	wrote int    // request bytes written by the last exchange
	rn    int
	rerr  error

	// body is what the body parser expects next, left the bytes of a
	// Content-Length body or of a chunk still to come.
	body int
	left int64

	// nb marks a reader fed by an event loop: fill never reads, it says
	// errMore, and the loop reads when the descriptor is readable.
	nb bool
}

// start readies b to read a response on c, whose descriptor is raw (nil
// when c has none, as with TLS).
func (b *reader) start(c net.Conn, raw syscall.RawConn) {
	b.c, b.raw, b.r, b.w, b.n = c, raw, 0, 0, 0
	b.wroteAt, b.firstAt = 0, 0
	if b.rawFn == nil {
		b.rawFn = b.rawStep
	}
}

// exchange writes wire and reads the first bytes of the response. It
// reports how many request bytes it wrote; when it could not write them
// all at once, it returns early with done false and the caller writes the
// rest and reads as usual.
func (b *reader) exchange(wire []byte) (wrote int, done bool, err error) {
	if b.raw == nil {
		return 0, false, nil
	}
	b.out, b.wrote, b.rn, b.rerr = wire, 0, -1, nil
	if err := b.raw.Read(b.rawFn); err != nil {
		return b.wrote, false, err
	}
	if b.rerr != nil {
		return b.wrote, false, b.rerr
	}
	if b.rn < 0 { // short write
		return b.wrote, false, nil
	}
	b.w += b.rn
	return b.wrote, true, nil
}

// rawStep is called by raw.Read: first to write the request, then, after
// each readiness wait, to read.
func (b *reader) rawStep(fd uintptr) bool {
	if b.out != nil {
		out := b.out
		b.out = nil
		n, err := syscall.Write(int(fd), out)
		for errors.Is(err, syscall.EINTR) {
			n, err = syscall.Write(int(fd), out)
		}
		if n > 0 {
			b.wrote = n
		}
		switch {
		case errors.Is(err, syscall.EAGAIN) || (err == nil && b.wrote < len(out)):
			return true // short write: the caller finishes it
		case err != nil:
			b.rerr = err
			return true
		}
		b.wroteAt = Now()
		return false // wait for the response
	}
	for {
		n, err := syscall.Read(int(fd), b.buf[b.w:])
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return false
		case err != nil:
			b.rn, b.rerr = 0, err
		case n == 0:
			b.rn, b.rerr = 0, io.EOF
		default:
			b.rn = n
			b.firstAt = Now()
		}
		return true
	}
}

// fill reads more bytes into the buffer, growing it up to max.
func (b *reader) fill(max int) error {
	if b.nb {
		if b.w-b.r >= max {
			return &protocolError{"line or header too long"}
		}
		return errMore
	}
	if b.r > 0 {
		copy(b.buf, b.buf[b.r:b.w])
		b.w -= b.r
		b.r = 0
	}
	if b.w == len(b.buf) {
		if len(b.buf) >= max {
			return &protocolError{"line or header too long"}
		}
		nb := make([]byte, min(2*len(b.buf), max))
		copy(nb, b.buf[:b.w])
		b.buf = nb
	}
	n, err := b.c.Read(b.buf[b.w:])
	b.w += n
	if n > 0 {
		if b.firstAt == 0 {
			b.firstAt = Now()
		}
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// line returns the next line without its CRLF (or LF). The slice is valid
// until the next call.
func (b *reader) line(max int) ([]byte, error) {
	for {
		if l, ok := b.bufLine(); ok {
			return l, nil
		}
		if err := b.fill(max); err != nil {
			if errors.Is(err, io.EOF) && b.w > b.r {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// bufLine returns the next line in the buffer without its CRLF (or LF),
// and false when the buffer holds no whole line.
func (b *reader) bufLine() ([]byte, bool) {
	i := bytes.IndexByte(b.buf[b.r:b.w], '\n')
	if i < 0 {
		return nil, false
	}
	l := b.buf[b.r : b.r+i]
	b.r += i + 1
	b.n += int64(i + 1)
	if len(l) > 0 && l[len(l)-1] == '\r' {
		l = l[:len(l)-1]
	}
	return l, true
}

// response is what a response's head says about it.
type response struct {
	code      int
	length    int64 // Content-Length; -1 when absent
	chunked   bool
	keepAlive bool
}

// readHead reads a status line and headers, skipping 1xx interim responses.
// A stream that ends after any of it is io.ErrUnexpectedEOF: io.EOF says
// the peer closed before the response began. The heads together, interim
// ones included, may take maxHeaderSize bytes, as in net/http: interim
// responses without end are a malformed response.
func (b *reader) readHead(r *response) error {
	start := b.n
	for {
		if err := b.readOneHead(r); err != nil {
			if b.n > start {
				return eofIsUnexpected(err)
			}
			return err
		}
		if b.n-start > maxHeaderSize {
			return &protocolError{"interim (1xx) responses and headers too long"}
		}
		if r.code >= 200 || r.code == 101 {
			return nil
		}
	}
}

func (b *reader) readOneHead(r *response) error {
	start := b.n
	l, err := b.line(maxHeaderSize)
	if err != nil {
		if start == 0 && looksTLS(b.buf[b.r:b.w]) {
			return tlsAnswer(b.buf[b.r:b.w])
		}
		return err
	}
	// "HTTP/1.1 200 OK": the version, a space, three digits, then a space or
	// the end of the line.
	if len(l) < 12 || !bytes.HasPrefix(l, []byte("HTTP/1.")) || l[8] != ' ' ||
		!isDigit(l[9]) || !isDigit(l[10]) || !isDigit(l[11]) || (len(l) > 12 && l[12] != ' ') || l[9] == '0' {
		if start == 0 && looksTLS(l) {
			return tlsAnswer(l)
		}
		return &protocolError{"bad status line"}
	}
	r.code = int(l[9]-'0')*100 + int(l[10]-'0')*10 + int(l[11]-'0')
	r.keepAlive = l[7] == '1'
	r.length = -1
	r.chunked = false
	for {
		l, err := b.line(maxHeaderSize)
		if err != nil {
			return err
		}
		if b.n-start > maxHeaderSize {
			return &protocolError{"headers too long"}
		}
		if len(l) == 0 {
			return nil
		}
		colon := bytes.IndexByte(l, ':')
		if colon <= 0 {
			return &protocolError{"bad header line"}
		}
		name, value := l[:colon], bytes.TrimSpace(l[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, ok := parseLength(value)
			if !ok || (r.length >= 0 && r.length != n) {
				return &protocolError{"bad Content-Length"}
			}
			r.length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			r.chunked = bytes.EqualFold(lastToken(value), []byte("chunked"))
			if !r.chunked {
				r.keepAlive = false // body delimited by close
			}
		case bytes.EqualFold(name, []byte("Connection")):
			if containsToken(value, "close") {
				r.keepAlive = false
			} else if containsToken(value, "keep-alive") {
				r.keepAlive = true
			}
		}
	}
}

// What the body parser expects next.
const (
	bodyDone      = iota
	bodyLength    // the rest of a Content-Length body
	bodyClose     // bytes until the peer closes
	bodyChunkSize // a chunk-size line
	bodyChunkData // the rest of a chunk
	bodyChunkEnd  // the line ending a chunk's data
	bodyTrailer   // trailer lines, up to an empty one
)

// errMore says that parsing needs bytes the buffer does not hold yet.
var errMore = errors.New("more bytes needed")

// startBody readies the body parser for the response r, to a HEAD request
// when head is set.
func (b *reader) startBody(r *response, head bool) {
	switch {
	case head || r.code == 204 || r.code == 304 || (r.code >= 100 && r.code < 200):
		b.body = bodyDone
	case r.chunked:
		b.body = bodyChunkSize
	case r.length >= 0:
		b.body, b.left = bodyLength, r.length
	default:
		r.keepAlive = false
		b.body = bodyClose
	}
}

// readBody consumes the body of r, reading until it ends.
func (b *reader) readBody(r *response, head bool) error {
	b.startBody(r, head)
	for {
		err := b.bodyStep()
		if err != errMore {
			return err
		}
		if err := b.fill(maxLineSize); err != nil {
			if b.body == bodyClose && errors.Is(err, io.EOF) {
				return nil
			}
			return eofIsUnexpected(err)
		}
	}
}

// bodyStep consumes what the buffer holds of the body. It returns nil once
// the body is complete, and errMore when it needs more bytes: the caller
// reads them (fill) and calls again.
func (b *reader) bodyStep() error {
	for {
		switch b.body {
		case bodyDone:
			return nil
		case bodyLength, bodyChunkData, bodyClose:
			k := int64(b.w - b.r)
			if b.body != bodyClose {
				k = min(k, b.left)
				b.left -= k
			}
			b.r += int(k)
			b.n += k
			switch {
			case b.body == bodyClose || b.left > 0:
				return errMore
			case b.body == bodyLength:
				b.body = bodyDone
			default:
				b.body = bodyChunkEnd
			}
			continue
		}
		l, ok := b.bufLine()
		if !ok {
			return errMore
		}
		switch b.body {
		case bodyChunkSize:
			if i := bytes.IndexByte(l, ';'); i >= 0 {
				l = l[:i]
			}
			size, ok := parseHex(bytes.TrimSpace(l))
			switch {
			case !ok:
				return &protocolError{"bad chunk size"}
			case size == 0:
				b.body = bodyTrailer
			default:
				b.body, b.left = bodyChunkData, size
			}
		case bodyChunkEnd:
			if len(l) != 0 {
				return &protocolError{"chunk data longer than its size"}
			}
			b.body = bodyChunkSize
		case bodyTrailer:
			if len(l) == 0 {
				b.body = bodyDone
			}
		}
	}
}

func eofIsUnexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func parseHex(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		switch {
		case isDigit(c):
			n = n<<4 | int64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | int64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | int64(c-'A'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

// lastToken returns the last comma-separated token of a header value.
func lastToken(v []byte) []byte {
	if i := bytes.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return bytes.TrimSpace(v)
}

// containsToken reports whether a comma-separated header value holds tok.
func containsToken(v []byte, tok string) bool {
	for len(v) > 0 {
		var t []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			t, v = v[:i], v[i+1:]
		} else {
			t, v = v, nil
		}
		if bytes.EqualFold(bytes.TrimSpace(t), []byte(tok)) {
			return true
		}
	}
	return false
}
