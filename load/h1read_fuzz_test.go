package load

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

// streamConn is a connection whose peer sends data, at most max bytes a
// read, then closes. Only Read may be called.
type streamConn struct {
	net.Conn
	data []byte
	max  int
	off  int // bytes read so far
	eofs int // reads that returned io.EOF
}

func (c *streamConn) Read(p []byte) (int, error) {
	if c.off == len(c.data) {
		c.eofs++
		return 0, io.EOF
	}
	n := min(len(p), c.max, len(c.data)-c.off)
	copy(p, c.data[c.off:c.off+n])
	c.off += n
	return n, nil
}

// chunkedLen returns the length of the chunked body that starts body: its
// chunks, each a size line (hex digits, an extension after ';'), the data
// and an empty line, up to the last, zero-size chunk and its trailers, up
// to an empty line. Lines end in LF or CRLF. It returns -1 when body holds
// no whole chunked body.
func chunkedLen(body []byte) int {
	off := 0
	line := func() ([]byte, bool) {
		i := bytes.IndexByte(body[off:], '\n')
		if i < 0 {
			return nil, false
		}
		l := body[off : off+i]
		off += i + 1
		return bytes.TrimSuffix(l, []byte("\r")), true
	}
	for {
		l, ok := line()
		if !ok {
			return -1
		}
		l, _, _ = bytes.Cut(l, []byte(";"))
		size, err := strconv.ParseUint(string(bytes.TrimSpace(l)), 16, 63)
		if err != nil {
			return -1
		}
		if size == 0 {
			for {
				l, ok := line()
				if !ok {
					return -1
				}
				if len(l) == 0 {
					return off
				}
			}
		}
		if uint64(len(body)-off) < size {
			return -1
		}
		off += int(size)
		if l, ok := line(); !ok || len(l) != 0 {
			return -1
		}
	}
}

// h1Seeds are responses as servers send them, well and badly.
var h1Seeds = []string{
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
	"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n",
	"HTTP/1.1 200 OK\nTransfer-Encoding: gzip, chunked\n\n3\nabc\n0\n\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nwhatever until close",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n",
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x00",
	"HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n",
	"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
	"HTTP/1.0 200 OK\r\n\r\nread to close",
	"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
	"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
	"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 999999999999999999\r\n\r\nshort",
	"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\nshort",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
	"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nextra bytes after the response",
	"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 099 Low\r\n\r\n",
	"HTTP/2 200 OK\r\n\r\n",
	"\x16\x03\x01\x00\x02\x02\x28",
	"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
	"HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
	"HTTP/1.1 200 OK\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n",
	"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 70<<10) + "\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", 9<<10) + "\r\nx\r\n0\r\n\r\n",
	"",
}

// FuzzReadResponse feeds the lean client's HTTP/1.1 reader a server's
// bytes, as many responses as a kept-alive connection would read: it must
// stop at the stream's end, count every byte it takes, fail only as
// malformed or cut short, and on success have read exactly the body the
// head announced.
func FuzzReadResponse(f *testing.F) {
	for _, s := range h1Seeds {
		f.Add([]byte(s), uint8(0), uint16(0), false)
	}
	f.Add([]byte(h1Seeds[3]), uint8(1), uint16(1), false)
	f.Add([]byte(h1Seeds[0]), uint8(7), uint16(16), true)
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, bufSize uint16, head bool) {
		c := &streamConn{data: data, max: int(chunk)}
		if c.max == 0 {
			c.max = len(data) + 1
		}
		// Any buffer size, to reach the paths a production-sized one
		// reaches only with long heads.
		initial := 1 + int(bufSize)%readBufSize
		rd := reader{buf: make([]byte, initial)}
		for responses := 1; ; responses++ {
			start := c.off
			rd.start(c, nil)
			var r response
			err := rd.readHead(&r)
			headN := rd.n
			if err == nil {
				checkHead(t, data[start:start+int(headN)], r)
				err = rd.readBody(&r, head)
			}
			if buffered := rd.w - rd.r; rd.n != int64(c.off-start-buffered) {
				t.Fatalf("response %d: counted %d bytes, read %d of which %d are buffered", responses, rd.n, c.off-start, buffered)
			}
			if c.eofs > responses {
				t.Fatalf("%d reads at the end of the stream over %d responses", c.eofs, responses)
			}
			if len(rd.buf) > max(initial, maxHeaderSize) {
				t.Fatalf("buffer grew to %d bytes", len(rd.buf))
			}
			if err != nil {
				checkReadError(t, err, rd.n)
				return
			}
			checkBody(t, data, start+int(headN), rd.n-headN, r, head)
			if !r.keepAlive || rd.r != rd.w || r.code == 101 {
				return // the client drops the connection
			}
			if c.off == start {
				t.Fatalf("response %d read nothing", responses)
			}
		}
	})
}

// checkHead checks a head the reader accepted, whose bytes are raw.
func checkHead(t *testing.T, raw []byte, r response) {
	t.Helper()
	if r.code < 100 || r.code > 999 || (r.code < 200 && r.code != 101) {
		t.Fatalf("status %d accepted as final", r.code)
	}
	if !bytes.HasSuffix(raw, []byte("\n\n")) && !bytes.HasSuffix(raw, []byte("\n\r\n")) {
		t.Fatalf("head %q does not end with an empty line", raw)
	}
	if r.length < -1 {
		t.Fatalf("Content-Length %d", r.length)
	}
}

// checkBody checks the n bytes the reader took as the body of r, from
// data[at:].
func checkBody(t *testing.T, data []byte, at int, n int64, r response, head bool) {
	t.Helper()
	body := data[at : at+int(n)]
	switch {
	case head || r.code == 204 || r.code == 304 || r.code < 200:
		if n != 0 {
			t.Fatalf("status %d, HEAD %v: read %d body bytes, want none", r.code, head, n)
		}
	case r.chunked:
		if want := chunkedLen(body); want != len(body) {
			t.Fatalf("read %q as a chunked body, which frames %d bytes", body, want)
		}
	case r.length >= 0:
		if n != r.length {
			t.Fatalf("read %d body bytes, Content-Length %d", n, r.length)
		}
	default:
		if at+int(n) != len(data) || r.keepAlive {
			t.Fatalf("a body delimited by close: read %d of %d bytes, keep-alive %v", n, len(data)-at, r.keepAlive)
		}
	}
}

// checkReadError checks the error of a response of which n bytes were
// read: the stream can only be malformed or end, and ending after some of
// the response is unexpected.
func checkReadError(t *testing.T, err error, n int64) {
	t.Helper()
	switch {
	case err.Error() == "":
		t.Fatalf("empty error %#v", err)
	case errors.Is(err, errProtocol), errors.Is(err, io.ErrUnexpectedEOF):
	case errors.Is(err, errTLS): // a TLS record where a status line belongs
	case errors.Is(err, io.EOF):
		if n > 0 {
			t.Fatalf("%d bytes of the response read, then %v: want %v", n, err, io.ErrUnexpectedEOF)
		}
	default:
		t.Fatalf("error %v (%T): want a malformed response, a TLS answer or the end of the stream", err, err)
	}
}
