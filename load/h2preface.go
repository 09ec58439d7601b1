package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"golang.org/x/net/http2"
)

// h2InitialFrameSize is the largest frame a peer may send before it has
// seen the other side's SETTINGS.
const h2InitialFrameSize = 16 << 10

// h2Preface opens HTTP/2 on nc before any http2.ClientConn exists: it sends
// the client's connection preface, first (the preface, SETTINGS and more, as
// the ClientConn would write them), and reads the server's, a SETTINGS frame.
// A server that answers anything else, or nothing, does not speak HTTP/2,
// and the error says so. Checking first matters for memory: x/net keeps a
// ClientConn whose connection dies young, with its 8 KB of buffers, for 5 s,
// so redialing a server that refuses the preface would hold thousands.
//
// The returned connection replays what the server sent to the ClientConn
// built on it and drops the first bytes the ClientConn writes, which the
// server already has; maxStreams is the server's MAX_CONCURRENT_STREAMS, 0
// when it sets none.
func h2Preface(ctx context.Context, nc net.Conn, first []byte) (c net.Conn, maxStreams int, err error) {
	if d, ok := ctx.Deadline(); ok {
		nc.SetDeadline(d)
		defer nc.SetDeadline(time.Time{})
	}
	if _, err := nc.Write(first); err != nil {
		return nil, 0, err
	}
	sn := &h2Sniff{c: nc}
	fr := http2.NewFramer(io.Discard, sn)
	fr.SetMaxReadFrameSize(h2InitialFrameSize)
	f, err := fr.ReadFrame()
	if err != nil {
		return nil, 0, h2NotSpoken(sn.got, err)
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok || sf.IsAck() {
		return nil, 0, &h2NotHTTP2{first: sn.got}
	}
	if m, ok := sf.Value(http2.SettingMaxConcurrentStreams); ok {
		maxStreams = int(min(m, 1<<20))
	}
	return &h2PrefacedConn{Conn: nc, replay: sn.got, sent: first}, maxStreams, nil
}

// h2FirstBytes returns the bytes a ClientConn of tr writes first: the
// client preface, its SETTINGS and its WINDOW_UPDATE. They depend on tr's
// settings alone, so one ClientConn over a pipe shows them.
func h2FirstBytes(tr *http2.Transport) ([]byte, error) {
	c, s := net.Pipe()
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(s)
		got <- b
	}()
	cc, err := tr.NewClientConn(c) // returns once its first bytes are read
	c.Close()
	b := <-got
	s.Close()
	if err != nil {
		return nil, err
	}
	cc.Close()
	if !bytes.HasPrefix(b, []byte(http2.ClientPreface)) {
		return nil, fmt.Errorf("http2: a client connection starts with %.24q, not the preface", b)
	}
	return b, nil
}

// h2Sniff reads a connection for a Framer, keeping every byte it read. It
// reads what is there, not only what the Framer asks for, so that an
// answer that is not HTTP/2 can be quoted.
type h2Sniff struct {
	c   net.Conn
	got []byte
	off int // bytes of got handed out
}

func (s *h2Sniff) Read(p []byte) (int, error) {
	if s.off == len(s.got) {
		s.got = slices.Grow(s.got, 512)
		n, err := s.c.Read(s.got[len(s.got):cap(s.got)])
		s.got = s.got[:len(s.got)+n]
		if n == 0 {
			return 0, err
		}
	}
	n := copy(p, s.got[s.off:])
	s.off += n
	return n, nil
}

// h2NotSpoken turns the failure to read a server's preface into the error
// it is reported as: a timeout stays a timeout, and anything the server
// sent or did instead of SETTINGS says it does not speak HTTP/2.
func h2NotSpoken(first []byte, err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	if len(first) == 0 && !isClosed(err) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err // a local failure, not the server's answer
	}
	if looksTLS(first) {
		return &tlsAnswerError{first: first, fix: "use HTTP/2 over TLS, with an https:// URL"}
	}
	return &h2NotHTTP2{first: first, err: err}
}

// h2NotHTTP2 is the error of a server that did not answer the HTTP/2
// preface with its own: first holds what it sent instead, err how reading
// it ended.
type h2NotHTTP2 struct {
	first []byte
	err   error
}

func (e *h2NotHTTP2) Error() string {
	const head = "server does not speak HTTP/2: "
	switch {
	case len(e.first) == 0:
		return fmt.Sprintf(head+"it closed the connection on the HTTP/2 preface without a byte (%v)", e.err)
	case bytes.HasPrefix(e.first, []byte("HTTP/")):
		line, _, _ := bytes.Cut(e.first, []byte("\r\n"))
		return fmt.Sprintf(head+"it answered the HTTP/2 preface with HTTP/1 (%.40q)", line)
	}
	return fmt.Sprintf(head+"it answered the HTTP/2 preface with %.16q, not a SETTINGS frame", e.first)
}

func (e *h2NotHTTP2) Unwrap() error { return errProtocol }

// h2PrefacedConn is a connection on which h2Preface opened HTTP/2.
type h2PrefacedConn struct {
	net.Conn
	replay []byte // what h2Preface read, not yet read by the ClientConn
	sent   []byte // what h2Preface wrote, not yet dropped from the ClientConn's writes
}

// Read implements net.Conn: what h2Preface read first.
func (c *h2PrefacedConn) Read(p []byte) (int, error) {
	if len(c.replay) > 0 {
		n := copy(p, c.replay)
		if c.replay = c.replay[n:]; len(c.replay) == 0 {
			c.replay = nil
		}
		return n, nil
	}
	return c.Conn.Read(p)
}

// Write implements net.Conn, dropping the first bytes, already sent.
func (c *h2PrefacedConn) Write(p []byte) (int, error) {
	if len(c.sent) == 0 {
		return c.Conn.Write(p)
	}
	n := min(len(c.sent), len(p))
	if !bytes.Equal(p[:n], c.sent[:n]) {
		return 0, errors.New("http2: the client connection's first bytes differ from those sent for it")
	}
	c.sent = c.sent[n:]
	m, err := c.Conn.Write(p[n:])
	return n + m, err
}

// Close implements net.Conn. Closing TLS sends an alert, which blocks on
// a peer that reads nothing: the connection under it closes after 250 ms,
// as x/net does for the *tls.Conn it no longer sees behind this one.
func (c *h2PrefacedConn) Close() error {
	if tc, ok := c.Conn.(*tls.Conn); ok {
		t := time.AfterFunc(250*time.Millisecond, func() { tc.NetConn().Close() })
		defer t.Stop()
	}
	return c.Conn.Close()
}
