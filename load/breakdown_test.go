package load

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// Pauses of the slow server: before its head, and between head and body.
const (
	headPause = 30 * time.Millisecond
	bodyPause = 20 * time.Millisecond
)

// slowHead sleeps headPause, sends its head, sleeps bodyPause and sends
// its body: a response whose wait and read are known from below.
func slowHead(w http.ResponseWriter, _ *http.Request) {
	time.Sleep(headPause)
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	time.Sleep(bodyPause)
	w.Write([]byte("body after a pause"))
}

// checkBreakdown fails t unless s is a success whose wait and read are
// measured, put the first byte after the server's first pause, and
// together fit within its service time.
func checkBreakdown(t *testing.T, s record.Sample) {
	t.Helper()
	if s.Error != record.OK || s.Code != 200 {
		t.Fatalf("code %d, error %v; want 200", s.Code, s.Err)
	}
	// What holds whatever the machine's load: the first byte is stamped
	// when the client sees it, never before the head arrives, which is
	// at least the first pause after the send began (Sent), so service
	// time less read covers that pause. The stamps themselves may come late
	// on a busy machine, so neither wait nor read alone need cover its pause.
	if svc := s.Done - s.Sent; s.Wait <= 0 || s.Read <= 0 || svc-s.Read < headPause {
		t.Errorf("wait %v, read %v, service time %v; want both measured and the first byte at least %v after the send",
			s.Wait, s.Read, svc, headPause)
	}
	if svc := s.Done - s.Sent; s.Wait+s.Read > svc {
		t.Errorf("wait %v + read %v = %v exceeds service time %v", s.Wait, s.Read, s.Wait+s.Read, svc)
	}
}

// TestBreakdown checks wait and read in every client: the lean one over a
// plain connection (its raw exchange) and TLS (buffered reads), and
// net/http's HTTP/1.1 and HTTP/2, on a new connection and a reused one.
func TestBreakdown(t *testing.T) {
	for _, tls := range []bool{false, true} {
		name := "lean"
		if tls {
			name = "lean-tls"
		}
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(slowHead))
			o := Options{}
			if tls {
				srv.StartTLS()
				o.TLS = nhTrust(srv)
			} else {
				srv.Start()
			}
			t.Cleanup(srv.Close)
			tr, err := NewTransport(o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tr.Close() })
			req := nhRequest(t, "GET", srv.URL, "")
			prepare(req, o)
			twice(t, tr, req)
		})
	}
	for _, m := range nhModes {
		t.Run(m.name, func(t *testing.T) {
			base, tr := nhServe(t, m, http.HandlerFunc(slowHead), nil, Options{})
			twice(t, tr, nhRequest(t, "GET", base, ""))
		})
	}
}

// twice sends req twice on one session, opening a connection and then
// reusing it, and checks both breakdowns.
func twice(t *testing.T, tr Transport, req *Request) {
	t.Helper()
	sess := tr.Session()
	defer sess.Close()
	for range 2 {
		var s record.Sample
		sess.Do(context.Background(), req, &s)
		checkBreakdown(t, s)
	}
}

// TestBreakdownNotOnFailure checks that a response cut short carries no
// breakdown, though its head arrived: zero means not measured.
func TestBreakdownNotOnFailure(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			srv := newRawServer(t, func(c net.Conn, br *bufio.Reader) {
				if _, err := readRequest(br); err == nil {
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ncut short")
				}
			})
			s := do(t, cl.opts, mustRequest(t, "GET", srv.url()))
			if s.Error == record.OK || s.Wait != 0 || s.Read != 0 {
				t.Errorf("error %v, wait %v, read %v; want an error and neither measured", s.Error, s.Wait, s.Read)
			}
		})
	}
}
