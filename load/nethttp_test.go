package load

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
)

// nhMode is one way the net/http transport reaches an httptest server.
type nhMode struct {
	name  string
	tls   bool
	proto string // what the server sees in r.Proto
	// start starts srv and returns the options that reach it.
	start func(srv *httptest.Server) Options
}

var nhModes = []nhMode{
	{"h1", false, "HTTP/1.1", func(srv *httptest.Server) Options {
		srv.Start()
		return Options{NetHTTP: true}
	}},
	{"h1-tls", true, "HTTP/1.1", func(srv *httptest.Server) Options {
		srv.StartTLS()
		return Options{NetHTTP: true, TLS: nhTrust(srv)}
	}},
	{"h2", true, "HTTP/2.0", func(srv *httptest.Server) Options {
		srv.EnableHTTP2 = true
		srv.StartTLS()
		return Options{HTTP2: true, TLS: nhTrust(srv)}
	}},
	{"h2c", false, "HTTP/2.0", func(srv *httptest.Server) Options {
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		srv.Start()
		return Options{H2C: true}
	}},
}

// nhModeNamed returns the mode called name.
func nhModeNamed(t *testing.T, name string) nhMode {
	t.Helper()
	for _, m := range nhModes {
		if m.name == name {
			return m
		}
	}
	t.Fatalf("no mode %q", name)
	return nhMode{}
}

// nhTrust returns a client TLS config that trusts srv's certificate.
func nhTrust(srv *httptest.Server) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &tls.Config{RootCAs: pool}
}

// nhServe starts h in mode m, on ln if not nil, and returns its URL and a
// transport that reaches it, with o's fields layered on the mode's.
func nhServe(t *testing.T, m nhMode, h http.Handler, ln net.Listener, o Options) (string, Transport) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // failed handshakes are what some tests want
	if ln != nil {
		srv.Listener.Close()
		srv.Listener = ln
	}
	mo := m.start(srv)
	t.Cleanup(srv.Close)
	o.NetHTTP, o.HTTP2, o.H2C = mo.NetHTTP, mo.HTTP2, mo.H2C
	if o.TLS == nil {
		o.TLS = mo.TLS
	}
	tr, err := newNetHTTP(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() }) // before srv.Close: cleanups run last first
	return srv.URL, tr
}

func nhRequest(t *testing.T, method, rawURL, body string) *Request {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	r := &Request{Method: method, URL: u, Header: http.Header{}}
	if body != "" {
		r.Body = []byte(body)
	}
	return r
}

func nhDo(ctx context.Context, tr Transport, req *Request) record.Sample {
	sess := tr.Session()
	defer sess.Close()
	var s record.Sample
	sess.Do(ctx, req, &s)
	return s
}

// nhSeen is what the server saw of a request.
type nhSeen struct {
	Method, Host, Proto, XTest, UA, BodySHA string
}

// nhEcho records what it sees and answers "hello, latlab", or 404 for
// /missing.
type nhEcho struct {
	mu   sync.Mutex
	seen nhSeen
}

func (e *nhEcho) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	e.mu.Lock()
	e.seen = nhSeen{r.Method, r.Host, r.Proto, r.Header.Get("X-Test"), r.UserAgent(), fmt.Sprintf("%x", sha256.Sum256(b))}
	e.mu.Unlock()
	if r.URL.Path == "/missing" {
		http.NotFound(w, r)
		return
	}
	io.WriteString(w, "hello, latlab")
}

func TestNetHTTPRoundTrip(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 16<<10) // 256 KiB, many frames
	tests := []struct {
		name, method, path, body, host, xtest string
		code                                  int
		bodyIn                                int64
	}{
		{name: "get", method: "GET", path: "/", code: 200, bodyIn: 13},
		{name: "not found", method: "GET", path: "/missing", code: 404, bodyIn: 19},
		{name: "post with header and host", method: "POST", path: "/", body: big, host: "example.test", xtest: "yes", code: 200, bodyIn: 13},
	}
	for _, m := range nhModes {
		for _, tt := range tests {
			t.Run(m.name+"/"+tt.name, func(t *testing.T) {
				echo := &nhEcho{}
				base, tr := nhServe(t, m, echo, nil, Options{})
				req := nhRequest(t, tt.method, base+tt.path, tt.body)
				req.Host = tt.host
				if tt.xtest != "" {
					req.Header.Set("X-Test", tt.xtest)
				}
				got := nhDo(context.Background(), tr, req)
				if d := cmp.Diff(record.Sample{Code: tt.code}, record.Sample{Code: got.Code, Error: got.Error}); d != "" {
					t.Errorf("sample (-want +got):\n%s", d)
				}
				host := tt.host
				if host == "" {
					host = req.URL.Host
				}
				want := nhSeen{tt.method, host, m.proto, tt.xtest, userAgent, fmt.Sprintf("%x", sha256.Sum256([]byte(tt.body)))}
				if d := cmp.Diff(want, echo.seen); d != "" {
					t.Errorf("server saw (-want +got):\n%s", d)
				}
				if min := tt.bodyIn + int64(len("HTTP/1.1 200 OK\r\n\r\n")); got.BytesIn < min || got.BytesIn > min+512 {
					t.Errorf("BytesIn = %d, want status line, headers and body: %d to %d", got.BytesIn, min, min+512)
				}
				if min := int64(len(tt.body) + len("GET / HTTP/1.1\r\n\r\n")); got.BytesOut < min || got.BytesOut > min+512 {
					t.Errorf("BytesOut = %d, want request line, headers and body: %d to %d", got.BytesOut, min, min+512)
				}
				if got.Sent <= 0 || got.Done < got.Sent {
					t.Errorf("Sent %v, Done %v: want 0 < Sent <= Done", got.Sent, got.Done)
				}
			})
		}
	}
}

// TestNetHTTPConnectTimes checks that the request that opens a connection
// carries its connect and TLS times, and the next one, reusing it, none.
func TestNetHTTPConnectTimes(t *testing.T) {
	for _, m := range nhModes {
		t.Run(m.name, func(t *testing.T) {
			base, tr := nhServe(t, m, &nhEcho{}, nil, Options{})
			req := nhRequest(t, "GET", base, "")
			sess := tr.Session()
			defer sess.Close()
			var first, second record.Sample
			sess.Do(context.Background(), req, &first)
			sess.Do(context.Background(), req, &second)
			type times struct{ Connect, TLS, ReuseConnect, ReuseTLS bool }
			want := times{Connect: true, TLS: m.tls}
			got := times{first.Connect > 0, first.TLS > 0, second.Connect > 0, second.TLS > 0}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("measured (-want +got):\n%s", d)
			}
		})
	}
}

// nhConcurrency counts, per connection, the handlers running at once.
type nhConcurrency struct {
	mu       sync.Mutex
	cur, max map[string]int // by remote address
}

func (c *nhConcurrency) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.cur[r.RemoteAddr]++
	c.max[r.RemoteAddr] = max(c.max[r.RemoteAddr], c.cur[r.RemoteAddr])
	c.mu.Unlock()
	time.Sleep(10 * time.Millisecond)
	c.mu.Lock()
	c.cur[r.RemoteAddr]--
	c.mu.Unlock()
}

func TestNetHTTPConnectionAndStreamCaps(t *testing.T) {
	tests := []struct {
		mode                     string
		conns, streams, sessions int
		serverStreams            int // the server's MAX_CONCURRENT_STREAMS; 0: its default
		wantStreams              int // most concurrent requests seen on one connection
	}{
		{mode: "h1", conns: 2, sessions: 8, wantStreams: 1},
		{mode: "h1-tls", conns: 3, sessions: 8, wantStreams: 1},
		{mode: "h2", conns: 2, streams: 1, sessions: 8, wantStreams: 1},
		{mode: "h2", conns: 3, streams: 2, sessions: 12, wantStreams: 2},
		{mode: "h2", conns: 1, streams: 4, sessions: 12, wantStreams: 4},
		{mode: "h2c", conns: 2, streams: 3, sessions: 12, wantStreams: 3},
		{mode: "h2", conns: 3, streams: 10, sessions: 12, serverStreams: 2, wantStreams: 2},
	}
	const perSession = 5
	for _, tt := range tests {
		name := fmt.Sprintf("%s/conns=%d/streams=%d/server=%d", tt.mode, tt.conns, tt.streams, tt.serverStreams)
		t.Run(name, func(t *testing.T) {
			h := &nhConcurrency{cur: map[string]int{}, max: map[string]int{}}
			m := nhModeNamed(t, tt.mode)
			if start := m.start; tt.serverStreams > 0 {
				m.start = func(srv *httptest.Server) Options {
					srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: tt.serverStreams}
					return start(srv)
				}
			}
			o := Options{Connections: tt.conns, Streams: tt.streams}
			base, tr := nhServe(t, m, h, nil, o)
			req := nhRequest(t, "GET", base, "")
			var wg sync.WaitGroup
			errs := make(chan record.Sample, tt.sessions*perSession)
			for range tt.sessions {
				wg.Go(func() {
					sess := tr.Session()
					defer sess.Close()
					for range perSession {
						var s record.Sample
						sess.Do(context.Background(), req, &s)
						errs <- s
					}
				})
			}
			wg.Wait()
			close(errs)
			failed := 0
			for s := range errs {
				if s.Error != record.OK {
					if failed == 0 {
						t.Logf("first failure: %v: %v", s.Error, s.Err)
					}
					failed++
				}
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			most := 0
			for _, n := range h.max {
				most = max(most, n)
			}
			type caps struct{ Failed, Conns, Streams int }
			want := caps{0, tt.conns, tt.wantStreams}
			if d := cmp.Diff(want, caps{failed, len(h.max), most}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// nhBlock waits until the client gives up on r, or 5 s.
func nhBlock(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

// nhFailing serves responses that fail, but for /ok: /slow never answers,
// /stall stops mid-body, /abort breaks the stream (RST_STREAM in HTTP/2, a
// closed connection in HTTP/1.1) after 100 of 1000 bytes, /huge sends too
// much header.
func nhFailing(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/ok":
		return
	case "/slow":
		nhBlock(r)
		return
	case "/huge": // headers over the 64 KiB limit
		w.Header().Set("X-Filler", strings.Repeat("a", 100<<10))
		return
	}
	w.Header().Set("Content-Length", "1000")
	io.WriteString(w, strings.Repeat("x", 100))
	w.(http.Flusher).Flush()
	if r.URL.Path == "/stall" {
		nhBlock(r)
		return
	}
	// net/http's own way for a handler to abort a response: recovered by
	// the server, which then resets the stream or closes the connection.
	panic(http.ErrAbortHandler)
}

func TestNetHTTPFailures(t *testing.T) {
	const timeout = 300 * time.Millisecond
	// The failures that are not timeouts get a timeout they cannot race:
	// encoding and decoding /huge's 100 KiB of HTTP/2 header under the
	// race detector takes 70-600 ms of a busy CPU, and a client that has
	// not read the header by its timeout rightly reports a timeout.
	const patient = 20 * time.Second
	tests := []struct {
		path    string
		timeout time.Duration
		want    record.Sample
	}{
		{"/slow", timeout, record.Sample{Error: record.Timeout}},
		{"/stall", timeout, record.Sample{Code: 200, Error: record.Timeout}},
		{"/abort", patient, record.Sample{Code: 200, Error: record.Reset}},
		{"/huge", patient, record.Sample{Error: record.Protocol}},
	}
	for _, m := range nhModes {
		for _, tt := range tests {
			t.Run(m.name+tt.path, func(t *testing.T) {
				base, tr := nhServe(t, m, http.HandlerFunc(nhFailing), nil, Options{Timeout: tt.timeout})
				sess := tr.Session()
				defer sess.Close()
				// Open the connection first, so that the timeout
				// measured is the request's, not the dial's. A busy
				// machine may take longer than 300 ms to dial and
				// shake hands: try again.
				var warm, got record.Sample
				for try := 1; ; try++ {
					warm = record.Sample{}
					if sess.Do(context.Background(), nhRequest(t, "GET", base+"/ok", ""), &warm); warm.Error == record.OK {
						break
					} else if try == 20 {
						t.Fatalf("warming up: %v", warm.Error)
					}
				}
				sess.Do(context.Background(), nhRequest(t, "GET", base+tt.path, ""), &got)
				if d := cmp.Diff(tt.want, record.Sample{Code: got.Code, Error: got.Error}); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
				took := got.Done - got.Sent
				// Late timers are a busy machine's; early ones or the
				// server's own 5 s would be wrong.
				if tt.want.Error == record.Timeout && (took < timeout*9/10 || took > 4*time.Second) {
					t.Errorf("timed out after %v, want %v or a little more", took, timeout)
				}
			})
		}
	}
}

func TestNetHTTPUnixSocket(t *testing.T) {
	tests := []struct{ mode, url string }{
		{"h1", "http://latlab.test/"},
		{"h2c", "http://latlab.test/"},
		{"h2", "https://example.com/"}, // a name the httptest certificate holds
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			dir, err := os.MkdirTemp("", "ll") // short: socket paths are limited to ~100 bytes
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			sock := filepath.Join(dir, "s")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			echo := &nhEcho{}
			_, tr := nhServe(t, nhModeNamed(t, tt.mode), echo, ln, Options{UnixSocket: sock})
			got := nhDo(context.Background(), tr, nhRequest(t, "GET", tt.url, ""))
			if d := cmp.Diff(record.Sample{Code: 200}, record.Sample{Code: got.Code, Error: got.Error}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			u, _ := url.Parse(tt.url)
			if echo.seen.Host != u.Host {
				t.Errorf("server saw Host %q, want %q", echo.seen.Host, u.Host)
			}
		})
	}
}

func TestNetHTTPHandshakeFailures(t *testing.T) {
	tests := []struct {
		name, mode  string
		serverProto []string // nil: what the mode offers
		trust       bool
		h2c         bool // speak h2c to the server, whatever its mode
		want        record.ErrorClass
	}{
		{name: "h1 unknown authority", mode: "h1-tls", want: record.TLS},
		{name: "h2 unknown authority", mode: "h2", want: record.TLS},
		{name: "h2 server offers only http/1.1", mode: "h2", serverProto: []string{"http/1.1"}, trust: true, want: record.TLS},
		{name: "h2 server offers no ALPN", mode: "h2", serverProto: []string{}, trust: true, want: record.Protocol},
		{name: "h2 trusted", mode: "h2", trust: true, want: record.OK},
		{name: "h2c to an HTTP/1.1 server", mode: "h1", trust: true, h2c: true, want: record.Protocol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nhModeNamed(t, tt.mode)
			start := m.start
			m.start = func(srv *httptest.Server) Options {
				if tt.serverProto != nil {
					srv.TLS = &tls.Config{NextProtos: tt.serverProto}
				}
				o := start(srv)
				if tt.h2c {
					o = Options{H2C: true}
				}
				if !tt.trust {
					o.TLS = &tls.Config{RootCAs: x509.NewCertPool()}
				}
				return o
			}
			base, tr := nhServe(t, m, &nhEcho{}, nil, Options{})
			got := nhDo(context.Background(), tr, nhRequest(t, "GET", base, ""))
			if got.Error != tt.want {
				t.Errorf("Error = %v (%v), want %v", got.Error, got.Err, tt.want)
			}
		})
	}
}

// TestH2GoAwayReplaced sends on connections the server closes after each
// response: each request must still succeed, on a new connection, and the
// pool must not keep the dead ones.
func TestH2GoAwayReplaced(t *testing.T) {
	for _, mode := range []string{"h2", "h2c"} {
		t.Run(mode, func(t *testing.T) {
			var mu sync.Mutex
			conns := map[string]bool{}
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				conns[r.RemoteAddr] = true
				mu.Unlock()
				w.Header().Set("Connection", "close") // HTTP/2 servers answer with GOAWAY
			})
			base, tr := nhServe(t, nhModeNamed(t, mode), h, nil, Options{Connections: 1})
			req := nhRequest(t, "GET", base, "")
			sess := tr.Session()
			defer sess.Close()
			const n = 10
			failed := 0
			for range n {
				var s record.Sample
				sess.Do(context.Background(), req, &s)
				if s.Error != record.OK {
					failed++
				}
			}
			p := tr.(*h2)
			p.mu.Lock()
			pooled := len(p.conns)
			p.mu.Unlock()
			mu.Lock()
			defer mu.Unlock()
			type result struct{ Failed, Conns, MaxPooled int }
			if d := cmp.Diff(result{0, n, 1}, result{failed, len(conns), max(pooled, 1)}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestH2WaitRespectsContext fills the only stream, then checks that a
// request waiting for it gives up when its context ends.
func TestH2WaitRespectsContext(t *testing.T) {
	release, arrived := make(chan struct{}), make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-time.After(time.Minute):
		}
	})
	base, tr := nhServe(t, nhModeNamed(t, "h2c"), h, nil, Options{Connections: 1, Streams: 1})
	req := nhRequest(t, "GET", base, "")
	first := make(chan record.Sample)
	go func() { first <- nhDo(context.Background(), tr, req) }()
	<-arrived // the first request holds the only stream
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	waited := nhDo(ctx, tr, req)
	close(release)
	type result struct{ Waited, First record.ErrorClass }
	if d := cmp.Diff(result{record.Timeout, record.OK}, result{waited.Error, (<-first).Error}); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestNetHTTPOptions checks that bad options fail newNetHTTP, and that a
// URL whose scheme contradicts the mode fails its request before any dial
// (port 1 on 127.0.0.1 would refuse one).
func TestNetHTTPOptions(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		wantErr bool
		url     string // when set, a request to it must fail as Other
	}{
		{name: "http/1.1", o: Options{NetHTTP: true}},
		{name: "h2 and h2c", o: Options{HTTP2: true, H2C: true}, wantErr: true},
		{name: "negative connections", o: Options{HTTP2: true, Connections: -1}, wantErr: true},
		{name: "negative streams", o: Options{H2C: true, Streams: -1}, wantErr: true},
		{name: "h2 to an http URL", o: Options{HTTP2: true}, url: "http://127.0.0.1:1/"},
		{name: "h2c to an https URL", o: Options{H2C: true}, url: "https://127.0.0.1:1/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := newNetHTTP(tt.o)
			if (err != nil) != tt.wantErr {
				t.Fatalf("newNetHTTP: err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			defer tr.Close()
			if tt.url != "" {
				got := nhDo(context.Background(), tr, nhRequest(t, "GET", tt.url, ""))
				if got.Error != record.Other || got.Connect != 0 {
					t.Errorf("got %v after connecting for %v, want other without connecting", got.Error, got.Connect)
				}
			}
		})
	}
}

// TestNetHTTPLargeBody checks that a body is counted, not kept: halfway
// through 64 MiB, the live heap has grown by much less than the 32 MiB read.
func TestNetHTTPLargeBody(t *testing.T) {
	const chunks, size = 1024, 64 << 10
	chunk := make([]byte, size)
	var mid runtime.MemStats
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range chunks {
			if i == chunks/2 {
				w.(http.Flusher).Flush()
				runtime.GC()
				runtime.ReadMemStats(&mid)
			}
			w.Write(chunk)
		}
	})
	for _, m := range nhModes {
		t.Run(m.name, func(t *testing.T) {
			base, tr := nhServe(t, m, h, nil, Options{})
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got := nhDo(context.Background(), tr, nhRequest(t, "GET", base, ""))
			if got.Error != record.OK || got.BytesIn < chunks*size {
				t.Errorf("got %v with %d bytes in, want ok with more than %d", got.Error, got.BytesIn, chunks*size)
			}
			if grew := int64(mid.HeapAlloc) - int64(before.HeapAlloc); grew > chunks*size/8 {
				t.Errorf("live heap grew by %d KiB halfway through a %d KiB body", grew>>10, chunks*size>>10)
			}
		})
	}
}
