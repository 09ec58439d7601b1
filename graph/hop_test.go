package graph

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rawServer serves every connection on 127.0.0.1 with serve and counts
// them.
func rawServer(t *testing.T, serve func(c net.Conn, br *bufio.Reader)) (addr string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(time.Minute))
				serve(c, bufio.NewReader(c))
			}()
		}
	}()
	return ln.Addr().String(), conns
}

func hopDo(t *testing.T, tr http.RoundTripper, req *http.Request) (int, string, error) {
	t.Helper()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func newHops() *hopTransport {
	return newHopTransport(roundTripFunc(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("not for next")
	}), 4, time.Minute)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHopTransportReusesConnections(t *testing.T) {
	var opened atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %d", r.Method, r.URL.RequestURI(), len(b))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tr := newHops()
	defer tr.CloseIdleConnections()
	for i := range 10 {
		method, body := http.MethodGet, io.Reader(nil)
		if i%2 == 1 {
			method, body = http.MethodPost, strings.NewReader("12345")
		}
		req, _ := http.NewRequest(method, srv.URL+"/a?b=c", body)
		code, text, err := hopDo(t, tr, req)
		want := method + " /a?b=c 0"
		if body != nil {
			want = method + " /a?b=c 5"
		}
		if err != nil || code != 200 || text != want {
			t.Fatalf("request %d = %d %q, %v; want 200 %q", i, code, text, err, want)
		}
	}
	if n := opened.Load(); n != 1 {
		t.Errorf("10 requests in turn opened %d connections, want 1", n)
	}
	// An answer closed before its end takes its connection with it.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, _, err := hopDo(t, tr, req); err != nil {
		t.Fatal(err)
	}
	if n := opened.Load(); n != 2 {
		t.Errorf("after an answer closed unread: %d connections, want 2", n)
	}
}

// A server that answers one request per connection and closes it, though
// its answer does not say so: the second request meets a closed connection.
func oneShotServer(t *testing.T) (string, *atomic.Int32, *atomic.Value) {
	var last atomic.Value
	addr, conns := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		b, _ := io.ReadAll(req.Body)
		last.Store(string(b))
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	return addr, conns, &last
}

func TestHopTransportSendsAgainOnAClosedConnection(t *testing.T) {
	addr, conns, last := oneShotServer(t)
	tr := newHops()
	defer tr.CloseIdleConnections()
	for i := range 3 {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader("body"))
		code, text, err := hopDo(t, tr, req)
		if err != nil || code != 200 || text != "ok" {
			t.Fatalf("request %d = %d %q, %v", i, code, text, err)
		}
		if got := last.Load(); got != "body" {
			t.Fatalf("request %d: the server read body %q, want %q", i, got, "body")
		}
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("3 requests to a one-shot server used %d connections, want 3", n)
	}

	// A body that cannot be had again is not sent again.
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader("body"))
	if _, _, err := hopDo(t, tr, req); err != nil {
		t.Fatal(err)
	}
	oneOff := &closeCount{Reader: strings.NewReader("body")}
	req, _ = http.NewRequest(http.MethodPost, "http://"+addr+"/", oneOff)
	var stale *staleError
	if _, _, err := hopDo(t, tr, req); !errors.As(err, &stale) || oneOff.closed == 0 {
		t.Errorf("a one-off body on a closed kept connection: error %v, closed %d times; want a staleError, the body closed", err, oneOff.closed)
	}
}

func TestHopTransportCancel(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	addr, _ := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf")
		<-block
	})
	tr := newHops()
	defer tr.CloseIdleConnections()
	cause := errors.New("called off")
	ctx, cancel := context.WithCancelCause(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(20*time.Millisecond, func() { cancel(cause) })
	start := time.Now()
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, cause) {
		t.Errorf("reading an answer whose call was cancelled: %v, want %v", err, cause)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the cancelled read took %v", d)
	}
	// Cancelled before the answer's head.
	ctx, cancel = context.WithCancelCause(context.Background())
	cancel(cause)
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	if _, err := tr.RoundTrip(req); !errors.Is(err, cause) {
		t.Errorf("a call cancelled before it began: %v, want %v", err, cause)
	}
}

func TestHopTransportInterimAndClose(t *testing.T) {
	addr, conns := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		for {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			fmt.Fprintf(c, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"+
				"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	tr := newHops()
	defer tr.CloseIdleConnections()
	for i := range 2 {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)
		code, text, err := hopDo(t, tr, req)
		if err != nil || code != 200 || text != "ok" {
			t.Fatalf("request %d = %d %q, %v; want 200 ok after the interim answers", i, code, text, err)
		}
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("two answers saying Connection: close used %d connections, want 2", n)
	}
}

// A net/http server answering 413 without reading a large body: the
// answer is the result, not the write that could not finish.
func TestHopTransportEarlyAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "too large", http.StatusRequestEntityTooLarge)
	}))
	defer srv.Close()
	tr := newHops()
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", io.LimitReader(repeatReader{}, 16<<20))
	req.ContentLength = 16 << 20
	code, _, err := hopDo(t, tr, req)
	if err != nil || code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 16 MB body to a server that answers at once = %d, %v; want 413", code, err)
	}
}

func TestHopTransportPassesOn(t *testing.T) {
	var passed []string
	tr := newHopTransport(roundTripFunc(func(r *http.Request) (*http.Response, error) {
		passed = append(passed, r.URL.String())
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}), 4, time.Minute)
	up, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/ws", nil)
	up.Header.Set("Upgrade", "websocket")
	tls, _ := http.NewRequest(http.MethodGet, "https://127.0.0.1:1/", nil)
	for _, req := range []*http.Request{up, tls} {
		if _, err := tr.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	if len(passed) != 2 {
		t.Errorf("passed to next: %q, want the upgrade and the https request", passed)
	}
}

func TestHostPort(t *testing.T) {
	for in, want := range map[string]string{
		"a:1": "a:1", "a": "a:80", "[::1]:8": "[::1]:8", "[::1]": "[::1]:80", "127.0.0.1": "127.0.0.1:80",
	} {
		if got := hostPort(in); got != want {
			t.Errorf("hostPort(%q) = %q, want %q", in, got, want)
		}
	}
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// A body that fails to read ends the call with its error, at once: the
// server, waiting for the rest, would never answer.
func TestHopTransportBodyError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
	}))
	defer srv.Close()
	tr := newHops()
	defer tr.CloseIdleConnections()
	bad := errors.New("no more body")
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", io.MultiReader(strings.NewReader("some"), failingReader{bad}))
	req.ContentLength = -1
	if _, _, err := hopDo(t, tr, req); !errors.Is(err, bad) {
		t.Errorf("a body failing after 4 bytes: error %v, want %v", err, bad)
	}
}

// closeCount is a one-off request body that counts its closes.
type closeCount struct {
	io.Reader
	closed int
}

func (c *closeCount) Close() error { c.closed++; return nil }
