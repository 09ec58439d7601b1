package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeBodyTimeoutMaxConns runs latlab serve with --max-conns 2 and
// --body-timeout 300ms: a third connection is closed at once and counted,
// a connection that sends one byte of a 1,000-byte body is closed after
// the timeout, and the node still serves a request afterwards.
func TestServeBodyTimeoutMaxConns(t *testing.T) {
	const limit = 300 * time.Millisecond
	bin := buildLatlab(t)
	_, base := startServe(t, bin, "--name", "conns", "--max-conns", "2", "--body-timeout", limit.String())
	addr := strings.TrimPrefix(base, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		return c
	}
	closed := func(c net.Conn) bool {
		_, err := io.Copy(io.Discard, c)
		return err == nil || errors.Is(err, syscall.ECONNRESET)
	}

	held := []net.Conn{dial(), dial()}
	if !closed(dial()) {
		t.Error("a third connection with --max-conns 2 is still open after 30 s")
	}
	for _, c := range held {
		c.Close()
	}

	var stalled net.Conn
	start := time.Now()
	// Until the node has seen the held connections close, it may refuse.
	for try := 0; ; try++ {
		stalled = dial()
		if _, err := io.WriteString(stalled, "PUT /objects/x HTTP/1.1\r\nHost: conns\r\nContent-Length: 1000\r\n\r\nA"); err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		_ = stalled.SetReadDeadline(time.Now().Add(limit / 2))
		_, err := stalled.Read(make([]byte, 1))
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			break // accepted, and waiting for its body
		}
		if try == 500 {
			t.Fatal("no connection accepted in 500 tries after the held ones closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = stalled.SetReadDeadline(time.Now().Add(30 * time.Second))
	if !closed(stalled) {
		t.Fatalf("a connection that sent 1 byte of a 1000-byte body is open 30 s later, want it closed after --body-timeout %v", limit)
	}
	if took := time.Since(start); took < limit/2 {
		t.Errorf("closed %v after its byte, before --body-timeout %v", took, limit)
	}

	c := dial()
	if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: conns\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET /metrics after the refusal and the timeout: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "latlab_server_connections_refused_total{service=\"conns\"}") {
		t.Errorf("GET /metrics: %d, want 200 with latlab_server_connections_refused_total:\n%.1500s", resp.StatusCode, b)
	}
}
