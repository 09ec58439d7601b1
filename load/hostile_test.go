package load

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// clients are the HTTP/1.1 transports every transport test runs against.
var clients = []client{
	{"lean", Options{}, false},
	{"nethttp", Options{NetHTTP: true}, false},
}

// client is a way to send requests: a transport, or the open loop's event
// loops (the lean client's protocol on epoll).
type client struct {
	name string
	opts Options
	loop bool
}

// loopClient sends through the open loop's event loops.
var loopClient = client{"evloop", Options{}, true}

// rawServer serves each connection with handle on 127.0.0.1 and counts the
// connections it accepted.
type rawServer struct {
	ln    net.Listener
	conns atomic.Int64
	wg    sync.WaitGroup
}

func newRawServer(t *testing.T, handle func(c net.Conn, br *bufio.Reader)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				handle(c, bufio.NewReader(c))
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/" }

// readRequest consumes one request head (and its body, by Content-Length).
func readRequest(br *bufio.Reader) (*http.Request, error) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, req.Body)
	return req, err
}

// replies reads a request and writes resp as the answer.
func replies(resp string) func(c net.Conn, br *bufio.Reader) {
	return func(c net.Conn, br *bufio.Reader) {
		readRequest(br)
		io.WriteString(c, resp)
	}
}

func mustRequest(t *testing.T, method, raw string) *Request {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return &Request{Method: method, URL: u, Header: http.Header{}}
}

// do sends req once on a new transport built from opts.
func do(t *testing.T, opts Options, req *Request) record.Sample {
	t.Helper()
	tr, err := NewTransport(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	prepare(req, opts)
	s := tr.Session()
	defer s.Close()
	var out record.Sample
	s.Do(context.Background(), req, &out)
	return out
}

// do sends req with opts, as cl sends it.
func (cl client) do(t *testing.T, opts Options, req *Request) record.Sample {
	t.Helper()
	if !cl.loop {
		return do(t, opts, req)
	}
	res := attack(t, context.Background(), Config{
		Source: Static{req}, Model: Open{Pacer: Constant{Rate: 1000}}, Count: 1,
		Transport: opts, KeepRaw: 1, Pool: -1,
	})
	if len(res.Raw) != 1 {
		t.Fatalf("%d raw samples, want 1", len(res.Raw))
	}
	r := res.Raw[0]
	s := record.Sample{Sent: r.Sent, Done: r.Done, Code: int(r.Code), Error: r.Error, BytesIn: r.BytesIn}
	for _, e := range res.ErrorExample {
		s.Err = errors.New(e)
	}
	return s
}

func TestHostileServers(t *testing.T) {
	tests := []struct {
		name    string
		handle  func(c net.Conn, br *bufio.Reader)
		method  string
		timeout time.Duration
		code    int
		class   record.ErrorClass
		minIn   int64
	}{
		{
			name: "reset mid-body",
			handle: func(c net.Conn, br *bufio.Reader) {
				readRequest(br)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\npartial")
				time.Sleep(20 * time.Millisecond)
				c.(*net.TCPConn).SetLinger(0) // close with RST
			},
			class: record.Reset,
		},
		{
			name:   "close mid-body",
			handle: replies("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"),
			class:  record.Reset,
		},
		{
			name: "never answers",
			handle: func(c net.Conn, br *bufio.Reader) {
				readRequest(br)
				time.Sleep(2 * time.Second)
			},
			timeout: 200 * time.Millisecond,
			class:   record.Timeout,
		},
		{
			name:   "garbage status line",
			handle: replies("SMTP READY\r\n\r\n"),
			class:  record.Protocol,
		},
		{
			name:   "status code with letters",
			handle: replies("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n"),
			class:  record.Protocol,
		},
		{
			name:   "bad content length",
			handle: replies("HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n"),
			class:  record.Protocol,
		},
		{
			name: "endless headers",
			handle: func(c net.Conn, br *bufio.Reader) {
				readRequest(br)
				io.WriteString(c, "HTTP/1.1 200 OK\r\n")
				line := "X-Filler: " + strings.Repeat("a", 1000) + "\r\n"
				for i := 0; i < 2000; i++ {
					if _, err := io.WriteString(c, line); err != nil {
						return
					}
				}
			},
			class: record.Protocol,
		},
		{
			name:   "bad chunk size",
			handle: replies("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
			class:  record.Protocol,
		},
		{
			name:   "chunked",
			handle: replies("HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n"),
			code:   201,
			minIn:  11,
		},
		{
			name:   "interim 100 then 200",
			handle: replies("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
			code:   200,
		},
		{
			name:   "HTTP/1.0 body to close",
			handle: replies("HTTP/1.0 200 OK\r\n\r\n" + strings.Repeat("x", 50000)),
			code:   200,
			minIn:  50000,
		},
		{
			name: "HEAD with a length and no body",
			handle: func(c net.Conn, br *bufio.Reader) {
				readRequest(br)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
				time.Sleep(time.Second) // a client that waits for the body times out
			},
			method:  http.MethodHead,
			timeout: 500 * time.Millisecond,
			code:    200,
		},
	}
	for _, cl := range append(slices.Clone(clients), loopClient) {
		for _, tt := range tests {
			t.Run(cl.name+"/"+tt.name, func(t *testing.T) {
				srv := newRawServer(t, tt.handle)
				opts := cl.opts
				opts.Timeout = tt.timeout
				if opts.Timeout == 0 {
					opts.Timeout = 5 * time.Second
				}
				method := tt.method
				if method == "" {
					method = http.MethodGet
				}
				start := time.Now()
				got := cl.do(t, opts, mustRequest(t, method, srv.url()))
				if el := time.Since(start); el > opts.Timeout+time.Second {
					t.Errorf("took %s, want at most the timeout %s", el, opts.Timeout)
				}
				if got.Error != tt.class {
					t.Errorf("error class = %s (%v), want %s", got.Error, got.Err, tt.class)
				}
				if tt.class == record.OK && got.Code != tt.code {
					t.Errorf("code = %d, want %d", got.Code, tt.code)
				}
				if got.BytesIn < tt.minIn {
					t.Errorf("bytes in = %d, want at least %d", got.BytesIn, tt.minIn)
				}
				if got.Done < got.Sent {
					t.Errorf("done %s before sent %s", got.Done, got.Sent)
				}
			})
		}
	}
}

// hangUp sends b, closes its side of c and reads until the client closes
// its own, so that the client reads b and then an orderly end, never a
// reset for unread bytes.
func hangUp(c net.Conn, b []byte) {
	c.Write(b)
	c.(*net.TCPConn).CloseWrite()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.Copy(io.Discard, c)
}

// tlsAlert is a TLS record: a fatal protocol_version alert, what a TLS
// server sends to a client it cannot understand, such as one in the clear.
var tlsAlert = []byte{0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x46}

// TestFaultClasses checks that a fault is reported under the class a user
// would look for, the same from every client that can meet it.
func TestFaultClasses(t *testing.T) {
	var (
		http1 = []Options{{}, {NetHTTP: true}}
		h2c   = []Options{{H2C: true}}
		h2    = []Options{{HTTP2: true, TLS: &tls.Config{InsecureSkipVerify: true}}}
		https = []Options{{TLS: &tls.Config{InsecureSkipVerify: true}}, {NetHTTP: true, TLS: &tls.Config{InsecureSkipVerify: true}}}
	)
	var (
		silent   = func(c net.Conn, br *bufio.Reader) { hangUp(c, nil) }
		tlsOnly  = func(c net.Conn, br *bufio.Reader) { br.Peek(1); hangUp(c, tlsAlert) }
		http1Bad = func(c net.Conn, br *bufio.Reader) {
			br.Peek(1)
			hangUp(c, []byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
		}
		endless100 = func(c net.Conn, br *bufio.Reader) {
			readRequest(br)
			for range 1 << 18 { // 6.5 MB: the client gives up long before
				if _, err := io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
					return
				}
			}
		}
	)
	tests := []struct {
		name    string
		handle  func(c net.Conn, br *bufio.Reader)
		scheme  string
		clients []Options
		want    record.ErrorClass
		says    string // in the error's text
	}{
		{"TLS server, plain request", tlsOnly, "http", http1, record.TLS, "server speaks TLS"},
		{"TLS alert in the handshake", tlsOnly, "https", https, record.TLS, "protocol version"},
		{"plain server closes the handshake", silent, "https", https, record.TLS, "during the handshake"},
		{"endless 100 Continue", endless100, "http", http1, record.Protocol, ""},
		{"h2c, TLS server", tlsOnly, "http", h2c, record.TLS, "server speaks TLS"},
		{"h2c, HTTP/1.1 server", http1Bad, "http", h2c, record.Protocol, "does not speak HTTP/2"},
		{"h2c, server closes", silent, "http", h2c, record.Protocol, "does not speak HTTP/2"},
		{"http2, plain server closes", silent, "https", h2, record.TLS, "during the handshake"},
	}
	for _, tt := range tests {
		srv := newRawServer(t, tt.handle)
		for _, o := range tt.clients {
			name := "lean"
			switch {
			case o.NetHTTP:
				name = "nethttp"
			case o.H2C:
				name = "h2c"
			case o.HTTP2:
				name = "h2"
			}
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				o.Timeout = 5 * time.Second
				got := do(t, o, mustRequest(t, "GET", tt.scheme+"://"+srv.ln.Addr().String()+"/"))
				if got.Error != tt.want || !strings.Contains(fmt.Sprint(got.Err), tt.says) {
					t.Errorf("got %s (%v), want %s saying %q", got.Error, got.Err, tt.want, tt.says)
				}
			})
		}
	}
}

func TestRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			got := do(t, cl.opts, mustRequest(t, "GET", "http://"+addr+"/"))
			if got.Error != record.Refused {
				t.Errorf("error class = %s (%v), want refused", got.Error, got.Err)
			}
		})
	}
}

// TestHugeBody reads a 1 GB body and checks it was counted, not kept.
func TestHugeBody(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 1 GB; make test runs it")
	}
	const size = 1 << 30
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader) {
		readRequest(br)
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", size)
		chunk := make([]byte, 256<<10)
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			opts := cl.opts
			opts.Timeout = 60 * time.Second
			got := do(t, opts, mustRequest(t, "GET", srv.url()))
			runtime.ReadMemStats(&after)
			if got.Error != record.OK || got.Code != 200 {
				t.Fatalf("got code %d, error %s (%v); want 200", got.Code, got.Error, got.Err)
			}
			if got.BytesIn < size {
				t.Errorf("bytes in = %d, want at least %d", got.BytesIn, size)
			}
			if grew := int64(after.TotalAlloc - before.TotalAlloc); grew > 16<<20 {
				t.Errorf("allocated %d bytes to read a 1 GB body; want it streamed", grew)
			}
		})
	}
}

// TestKeepAlive checks that a session reuses its connection, that a
// "Connection: close" answer is honoured, and that a connection the server
// closed while idle is replaced without an error.
func TestKeepAlive(t *testing.T) {
	tests := []struct {
		name      string
		respond   string
		closeIdle bool // the server closes after each response, without saying so
		wantConns int64
	}{
		{"reused", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false, 1},
		{"connection close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", true, 5},
		{"closed while idle", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true, 5},
	}
	for _, cl := range append(slices.Clone(clients), loopClient) {
		for _, tt := range tests {
			t.Run(cl.name+"/"+tt.name, func(t *testing.T) {
				srv := newRawServer(t, func(c net.Conn, br *bufio.Reader) {
					for {
						if _, err := readRequest(br); err != nil {
							return
						}
						io.WriteString(c, tt.respond)
						if tt.closeIdle {
							return
						}
					}
				})
				tr, err := NewTransport(cl.opts)
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				req := mustRequest(t, "GET", srv.url())
				prepare(req, cl.opts)
				s := tr.Session()
				defer s.Close()
				for i := 0; i < 5; i++ {
					var out record.Sample
					s.Do(context.Background(), req, &out)
					if out.Error != record.OK || out.Code != 200 {
						t.Fatalf("request %d: code %d, error %s (%v)", i, out.Code, out.Error, out.Err)
					}
					time.Sleep(5 * time.Millisecond) // let the server's close land
				}
				if got := srv.conns.Load(); got != tt.wantConns {
					t.Errorf("server saw %d connections, want %d", got, tt.wantConns)
				}
			})
		}
	}
}
