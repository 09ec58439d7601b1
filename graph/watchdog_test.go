package graph

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestWatchdogCalls(t *testing.T) {
	w := newWatchdog(10*time.Second, 2*time.Minute, time.Minute, time.Minute)
	defer w.stop()
	start := time.Now()
	late, lateCall := w.bound(context.Background(), time.Minute)
	defer w.release(lateCall)
	early, earlyCall := w.bound(context.Background(), time.Minute)

	w.sweep(start)
	if late.Err() != nil || early.Err() != nil {
		t.Fatalf("before the deadline: errors %v, %v, want none", late.Err(), early.Err())
	}
	w.release(earlyCall)
	if got := context.Cause(early); !errors.Is(got, context.Canceled) {
		t.Errorf("released call: cause %v, want context.Canceled", got)
	}
	w.sweep(time.Now().Add(time.Minute))
	if got := context.Cause(late); !errors.Is(got, context.DeadlineExceeded) {
		t.Errorf("call past its deadline: cause %v, want context.DeadlineExceeded", got)
	}
	w.mu.Lock()
	left := len(w.calls)
	w.mu.Unlock()
	if left != 0 {
		t.Errorf("%d calls still watched, want 0", left)
	}
}

func TestWatchdogConns(t *testing.T) {
	const header, idle = 10 * time.Second, 2 * time.Minute
	w := newWatchdog(header, idle, time.Minute, time.Minute)
	defer w.stop()
	conn := func() (net.Conn, net.Conn) {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return a, b
	}
	closed := func(peer net.Conn) bool {
		_ = peer.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		_, err := peer.Read(make([]byte, 1))
		return errors.Is(err, io.EOF)
	}
	newConn, newPeer := conn()
	idleConn, idlePeer := conn()
	busyConn, busyPeer := conn()
	start := time.Now()
	w.connState(newConn, http.StateNew)
	w.connState(idleConn, http.StateNew)
	w.connState(idleConn, http.StateActive)
	w.connState(idleConn, http.StateIdle)
	w.connState(busyConn, http.StateNew)
	w.connState(busyConn, http.StateActive)

	w.sweep(start.Add(header - time.Second))
	if closed(newPeer) || closed(idlePeer) || closed(busyPeer) {
		t.Fatal("a connection was closed before its deadline")
	}
	w.sweep(time.Now().Add(header))
	if !closed(newPeer) {
		t.Error("a new connection without a request header for ReadHeaderTimeout is still open")
	}
	if closed(idlePeer) {
		t.Error("an idle connection was closed after ReadHeaderTimeout, want IdleTimeout + ReadHeaderTimeout")
	}
	w.sweep(time.Now().Add(idle + header))
	if !closed(idlePeer) {
		t.Error("a connection idle for IdleTimeout + ReadHeaderTimeout is still open")
	}
	if closed(busyPeer) {
		t.Error("a connection serving a request was closed")
	}
	w.connState(busyConn, http.StateClosed)
	w.mu.Lock()
	left := len(w.conns)
	w.mu.Unlock()
	if left != 0 {
		t.Errorf("%d connections still watched, want 0", left)
	}
}

// TestServeClosesWaitingConnections: Serve closes a connection that sends
// no request, and one left idle after its request, once their limits have
// passed.
func TestServeClosesWaitingConnections(t *testing.T) {
	n, ln := nodeAndListener(t, NodeConfig{Name: "solo"})
	n.watch.stop()
	n.watch = newWatchdog(100*time.Millisecond, 100*time.Millisecond, time.Minute, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- n.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		// A safety net: the server is expected to close long before.
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		return c
	}
	silent := dial()
	idle := dial()
	if _, err := io.WriteString(idle, "GET /healthz HTTP/1.1\r\nHost: solo\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: status %d", resp.StatusCode)
	}
	if _, err := silent.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("silent connection: read %v, want EOF (closed by the node)", err)
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("idle connection: read %v, want EOF (closed by the node)", err)
	}
}

// TestCallTimeout: a downstream call that outlasts CallTimeout fails the
// request with 502 naming the downstream and the deadline, after at least
// CallTimeout.
func TestCallTimeout(t *testing.T) {
	// The downstream answers after 20 s if nothing has ended the call by then.
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}))
	defer hang.Close()
	const limit = 100 * time.Millisecond
	n, srv := startNode(t, NodeConfig{Name: "front", Downstreams: []string{hang.URL}, CallTimeout: limit})
	start := time.Now()
	a := get(t, srv.URL+"/")
	if took := time.Since(start); took < limit {
		t.Errorf("answered after %v, before CallTimeout %v", took, limit)
	}
	if a.code != http.StatusBadGateway || !strings.Contains(a.body, "front: downstream "+hang.URL+" /") ||
		!strings.Contains(a.body, "context deadline exceeded") {
		t.Errorf("GET / = %d %q, want 502 naming the downstream and the deadline", a.code, a.body)
	}
	if got := metricCount(t, n.Registry(), "latlab_client_request_duration_seconds", map[string]string{"code": "error"}); got != 1 {
		t.Errorf("%v failed calls counted, want 1", got)
	}
}

// TestWatchdogStopped: a call bounded after the watchdog has stopped is
// still bounded, by a timer.
func TestWatchdogStopped(t *testing.T) {
	w := newWatchdog(10*time.Second, 2*time.Minute, time.Minute, time.Minute)
	w.stop()
	ctx, c := w.bound(context.Background(), 20*time.Millisecond)
	defer w.release(c)
	select {
	case <-ctx.Done():
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("ended with %v, want context.DeadlineExceeded", ctx.Err())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a call bounded after stop never ended")
	}
	ctx, c = w.bound(context.Background(), time.Minute)
	w.release(c)
	if !errors.Is(context.Cause(ctx), context.Canceled) {
		t.Errorf("released call: cause %v, want context.Canceled", context.Cause(ctx))
	}
}
