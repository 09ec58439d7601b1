package load

import (
	"bufio"
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// closeAfterResponse answers one request per connection and closes it,
// without saying so (no Connection: close), counting the closes.
func closeAfterResponse(closed *atomic.Int64) func(c net.Conn, br *bufio.Reader) {
	return func(c net.Conn, br *bufio.Reader) {
		if _, err := readRequest(br); err == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
		c.Close()
		closed.Add(1)
	}
}

// TestRetryOnNewConnection has sessions hand connections the server has
// closed to the pool, as sessions do when a run ends, and checks that a
// request whose kept-alive connection turns out closed is sent again on a
// new connection, not on another closed one, so that none fails.
func TestRetryOnNewConnection(t *testing.T) {
	var closed atomic.Int64
	srv := newRawServer(t, closeAfterResponse(&closed))
	tr, err := NewTransport(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	req := mustRequest(t, "GET", srv.url())
	prepare(req, Options{})
	const stale, requests = 4, 20
	failed, retries := 0, 0
	do := func(s Session) {
		var out record.Sample
		s.Do(context.Background(), req, &out)
		if out.Error != record.OK || out.Code != 200 {
			failed++
			t.Errorf("code %d, error %s (%v)", out.Code, out.Error, out.Err)
		}
		if out.Retries > 1 {
			t.Errorf("%d retries of one request, want at most 1", out.Retries)
		}
		retries += int(out.Retries)
	}
	// Sessions that stop leave their connections, closed by the server,
	// in the pool.
	last := tr.Session()
	defer last.Close()
	do(last)
	var ss []Session
	for range stale {
		s := tr.Session()
		do(s)
		ss = append(ss, s)
	}
	for _, s := range ss {
		s.Close()
	}
	for deadline := time.Now().Add(10 * time.Second); closed.Load() < stale+1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	// last's own connection is closed too: its next request fails on it,
	// and must not go again on one from the pool.
	retries = 0
	for range requests {
		do(last)
	}
	if failed != 0 {
		t.Errorf("%d of %d requests failed, want 0", failed, stale+1+requests)
	}
	// The first of them, at least, found its connection closed.
	if retries < 1 {
		t.Errorf("%d retries counted of %d requests on closed connections, want at least 1", retries, requests)
	}
}

// TestRetryOnNewConnectionUnderCap runs more workers than connections
// against a server that closes after each response without saying so:
// sessions hand their connections on after each request, so most are
// closed when taken, and each request must still succeed, the lean client
// sending it again on a new connection.
func TestRetryOnNewConnectionUnderCap(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			var closed atomic.Int64
			srv := newRawServer(t, closeAfterResponse(&closed))
			opts := cl.opts
			opts.Connections = 2
			const n = 300
			res := attack(t, context.Background(), Config{
				Source:    staticTo(t, srv.url()),
				Model:     Closed{Workers: 8},
				Count:     n,
				Transport: opts,
			})
			if res.Requests != n || res.ErrorsTotal != 0 {
				t.Errorf("%d requests, %d failed (%v, first: %v); want %d, none failed", res.Requests, res.ErrorsTotal, res.Errors, res.ErrorExample, n)
			}
		})
	}
}
