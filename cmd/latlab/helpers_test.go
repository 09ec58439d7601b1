package main

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// seenRequest is what the test server saw of one request.
type seenRequest struct {
	Method string
	Path   string
	Body   string
	Header string // the value of X-Test
	Proto  int    // major HTTP version
	Host   string
}

// testServer answers every request with status after sleeping, and
// remembers the requests and connections it saw.
type testServer struct {
	URL  string
	srv  *httptest.Server // nil for a unix-socket server
	sock string           // the unix socket, if any

	status int
	sleep  time.Duration
	conns  atomic.Int64

	mu   sync.Mutex
	seen []seenRequest
}

func (s *testServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, seenRequest{r.Method, r.URL.Path, string(body), r.Header.Get("X-Test"), r.ProtoMajor, r.Host})
	s.mu.Unlock()
	if s.sleep > 0 {
		time.Sleep(s.sleep)
	}
	if s.status == http.StatusFound {
		w.Header().Set("Location", "/elsewhere")
	}
	w.WriteHeader(s.status)
	io.WriteString(w, "ok\n")
}

func (s *testServer) connState(_ net.Conn, st http.ConnState) {
	if st == http.StateNew {
		s.conns.Add(1)
	}
}

// requests returns a copy of the requests seen so far.
func (s *testServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.seen...)
}

// count returns how many requests have a key, by key.
func (s *testServer) count(key func(seenRequest) string) map[string]int {
	out := map[string]int{}
	for _, r := range s.requests() {
		out[key(r)]++
	}
	return out
}

// serverMode says how a test server listens.
type serverMode int

const (
	plainHTTP   serverMode = iota // HTTP/1.1 on TCP
	tlsHTTP2                      // TLS, offering h2 and http/1.1
	cleartextH2                   // HTTP/1.1 and h2c with prior knowledge
)

// newServer starts a test server on 127.0.0.1 answering status after
// sleep.
func newServer(t *testing.T, mode serverMode, status int, sleep time.Duration) *testServer {
	t.Helper()
	s := &testServer{status: status, sleep: sleep}
	hs := httptest.NewUnstartedServer(s)
	hs.Config.ConnState = s.connState
	hs.Config.ErrorLog = log.New(io.Discard, "", 0) // failed handshakes are expected
	switch mode {
	case plainHTTP:
		hs.Start()
	case tlsHTTP2:
		hs.EnableHTTP2 = true
		hs.StartTLS()
	case cleartextH2:
		// net/http's own h2c: golang.org/x/net/http2/h2c is deprecated.
		hs.Config.Protocols = new(http.Protocols)
		hs.Config.Protocols.SetHTTP1(true)
		hs.Config.Protocols.SetUnencryptedHTTP2(true)
		hs.Start()
	}
	t.Cleanup(hs.Close)
	s.srv, s.URL = hs, hs.URL
	return s
}

// newUnixServer starts a test server on a unix socket in a temporary
// folder.
func newUnixServer(t *testing.T) *testServer {
	t.Helper()
	s := &testServer{status: http.StatusOK}
	// Socket paths are short (108 bytes); t.TempDir's can be longer.
	dir, err := os.MkdirTemp("", "latlab")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s.sock = filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s, ConnState: s.connState, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		hs.Serve(ln)
	}()
	t.Cleanup(func() {
		hs.Close()
		<-done
	})
	s.URL = "http://127.0.0.1"
	return s
}

// certFile writes the certificate of the TLS server s to a PEM file and
// returns its path.
func certFile(t *testing.T, s *testServer) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeFile writes data to name in a temporary folder and returns its path.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	return writeIn(t, t.TempDir(), name, data)
}

// writeIn writes data to name in dir and returns its path.
func writeIn(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runCLI runs latlab with args and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// attackJSON runs latlab attack args --format json, which must succeed,
// and decodes its output.
func attackJSON(t *testing.T, args ...string) record.Summary {
	t.Helper()
	code, stdout, stderr := runCLI(t, append(append([]string{"attack"}, args...), "--format", "json")...)
	if code != exitOK || stderr != "" {
		t.Fatalf("latlab attack %s: exit %d, stderr %q; want 0 and nothing", strings.Join(args, " "), code, stderr)
	}
	return decodeSummary(t, []byte(stdout))
}

// decodeSummary decodes one JSON summary, which must be all of data.
func decodeSummary(t *testing.T, data []byte) record.Summary {
	t.Helper()
	var sum record.Summary
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&sum); err != nil {
		t.Fatalf("decoding %q: %v", data, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %q", data)
	}
	return sum
}
