package graph

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveOn serves a new node on a loopback listener until the end of the
// test and returns it with its address.
func serveOn(t *testing.T, cfg NodeConfig) (*Node, string) {
	t.Helper()
	n, ln := nodeAndListener(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- n.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return n, ln.Addr().String()
}

// dialNode opens a connection to addr that the test closes at its end.
func dialNode(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByPeer reads c until the node closes it, for at most 30 s, and
// says whether it did.
func closedByPeer(c net.Conn) bool {
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err := io.Copy(io.Discard, c)
	return err == nil || errors.Is(err, syscall.ECONNRESET)
}

// roundTrip sends one request on c and returns the answer's status.
func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader, req string) int {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatalf("sending %q: %v", req, err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the answer to %q: %v", req, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestBodyTimeout: a connection that sends a request's header and one
// byte of a longer body is closed once it has sent nothing more for
// BodyTimeout, whether the handler reads the body (an upload, a work
// route), leaves it to the server (no such route) or the body is chunked.
func TestBodyTimeout(t *testing.T) {
	const limit = 300 * time.Millisecond
	_, addr := serveOn(t, NodeConfig{Name: "solo", BodyTimeout: limit})
	for _, tt := range []struct{ name, req string }{
		{"upload", "PUT /objects/x HTTP/1.1\r\nHost: solo\r\nContent-Length: 1000\r\n\r\nA"},
		{"work route", "POST /busywork?ms=1 HTTP/1.1\r\nHost: solo\r\nContent-Length: 1000\r\n\r\nA"},
		{"left to the server", "POST /healthz HTTP/1.1\r\nHost: solo\r\nContent-Length: 1000\r\n\r\nA"},
		{"chunked", "PUT /objects/y HTTP/1.1\r\nHost: solo\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nA"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := dialNode(t, addr)
			start := time.Now()
			if _, err := io.WriteString(c, tt.req); err != nil {
				t.Fatal(err)
			}
			if !closedByPeer(c) {
				t.Fatalf("the connection is still open 30 s after its body stopped, want it closed after BodyTimeout (%v)", limit)
			}
			if took := time.Since(start); took < limit {
				t.Errorf("closed after %v, before BodyTimeout (%v)", took, limit)
			}
		})
	}
}

// TestBodyTimeoutIsAStall: a body that keeps coming, a byte at a time,
// takes longer than BodyTimeout and is stored; a handler busy for longer
// than BodyTimeout with its body read, or unread in the socket, answers.
func TestBodyTimeoutIsAStall(t *testing.T) {
	const limit = 2 * time.Second
	_, addr := serveOn(t, NodeConfig{Name: "solo", BodyTimeout: limit})
	t.Run("upload", func(t *testing.T) {
		t.Parallel()
		c := dialNode(t, addr)
		const size = 30 // a byte every 100 ms: 3 s in all
		if _, err := io.WriteString(c, "PUT /objects/slow HTTP/1.1\r\nHost: solo\r\nContent-Length: 30\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		for range size - 1 {
			time.Sleep(100 * time.Millisecond)
			if _, err := io.WriteString(c, "x"); err != nil {
				t.Fatalf("the node closed an upload that kept coming: %v", err)
			}
		}
		if code := roundTrip(t, c, bufio.NewReader(c), "x"); code != http.StatusCreated && code != http.StatusOK {
			t.Errorf("slow upload: status %d, want it stored", code)
		}
		if a := get(t, "http://"+addr+"/objects/slow"); a.body != strings.Repeat("x", size) {
			t.Errorf("slow upload stored %q, want %d bytes of x", a.body, size)
		}
	})
	// /sleep drains its body before it sleeps; net/http then reads the
	// connection in the background, for the next request, all the while.
	for name, req := range map[string]string{
		"sleep":         "POST /sleep?ms=3000 HTTP/1.1\r\nHost: solo\r\nContent-Length: 5\r\n\r\nhello",
		"sleep chunked": "POST /sleep?ms=3000 HTTP/1.1\r\nHost: solo\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := dialNode(t, addr)
			if code := roundTrip(t, c, bufio.NewReader(c), req); code != http.StatusOK {
				t.Errorf("status %d, want 200 after the sleep", code)
			}
		})
	}
}

// TestMaxConns: with MaxConns open, the node closes the next connection
// at once and counts it; the open ones still serve, and once they close
// a new one is served.
func TestMaxConns(t *testing.T) {
	const most = 3
	n, addr := serveOn(t, NodeConfig{Name: "solo", MaxConns: most})
	held := make([]net.Conn, most)
	for i := range held {
		held[i] = dialNode(t, addr)
	}
	extra := dialNode(t, addr)
	if !closedByPeer(extra) {
		t.Fatalf("connection %d of at most %d is still open after 30 s", most+1, most)
	}
	if got := metricCount(t, n.Registry(), "latlab_server_connections_refused_total", nil); got != 1 {
		t.Errorf("latlab_server_connections_refused_total = %v, want 1", got)
	}
	if code := roundTrip(t, held[0], bufio.NewReader(held[0]), "GET /healthz HTTP/1.1\r\nHost: solo\r\n\r\n"); code != http.StatusOK {
		t.Errorf("GET /healthz on an open connection: status %d", code)
	}
	for _, c := range held {
		c.Close()
	}
	// The node sees the closes when its reads return: until then a new
	// connection may still be refused.
	for try := 0; ; try++ {
		c := dialNode(t, addr)
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: solo\r\n\r\n"); err == nil {
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET /healthz after the others closed: status %d", resp.StatusCode)
				}
				return
			}
		}
		c.Close()
		if try == 500 {
			t.Fatal("no new connection served in 500 tries after the open ones closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
