package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latlab/latlab/record"
)

// protoKey describes a request by its major HTTP version.
func protoKey(r seenRequest) string {
	return map[int]string{1: "HTTP/1", 2: "HTTP/2"}[r.Proto]
}

func TestAttackTransports(t *testing.T) {
	tests := []struct {
		name   string
		mode   serverMode
		sleep  time.Duration
		args   func(t *testing.T, srv *testServer) []string
		protos map[string]int // requests by HTTP version, at the server
		conns  int64          // connections the server saw; 0 means any
		errors map[string]int64
	}{{
		name:   "keep-alive",
		args:   func(_ *testing.T, srv *testServer) []string { return []string{srv.URL, "-n", "10", "-c", "1"} },
		protos: map[string]int{"HTTP/1": 10},
		conns:  1,
	}, {
		name: "no-keepalive",
		args: func(_ *testing.T, srv *testServer) []string {
			return []string{srv.URL, "-n", "10", "-c", "2", "--no-keepalive"}
		},
		protos: map[string]int{"HTTP/1": 10},
		conns:  10,
	}, {
		name:  "one connection for 4 workers",
		sleep: time.Millisecond,
		args: func(_ *testing.T, srv *testServer) []string {
			return []string{srv.URL, "-n", "40", "-c", "4", "--connections", "1"}
		},
		protos: map[string]int{"HTTP/1": 40},
		conns:  1,
	}, {
		name: "no-keepalive nethttp",
		args: func(_ *testing.T, srv *testServer) []string {
			return []string{srv.URL, "-n", "10", "-c", "2", "--no-keepalive", "--client", "nethttp"}
		},
		protos: map[string]int{"HTTP/1": 10},
		conns:  10,
	}, {
		name:  "one connection for 4 nethttp workers",
		sleep: time.Millisecond,
		args: func(_ *testing.T, srv *testServer) []string {
			return []string{srv.URL, "-n", "40", "-c", "4", "--connections", "1", "--client", "nethttp"}
		},
		protos: map[string]int{"HTTP/1": 40},
		conns:  1,
	}, {
		name:  "one h2c connection for 4 workers",
		mode:  cleartextH2,
		sleep: time.Millisecond,
		args: func(_ *testing.T, srv *testServer) []string {
			return []string{srv.URL, "-n", "40", "-c", "4", "--connections", "1", "--h2c"}
		},
		protos: map[string]int{"HTTP/2": 40},
		conns:  1,
	}, {
		name: "nethttp",
		args: func(_ *testing.T, srv *testServer) []string {
			return []string{srv.URL, "-n", "20", "-c", "2", "--client", "nethttp"}
		},
		protos: map[string]int{"HTTP/1": 20},
	}, {
		name:   "h2c",
		mode:   cleartextH2,
		args:   func(_ *testing.T, srv *testServer) []string { return []string{srv.URL, "-n", "20", "-c", "2", "--h2c"} },
		protos: map[string]int{"HTTP/2": 20},
	}, {
		name: "http2 insecure",
		mode: tlsHTTP2,
		args: func(_ *testing.T, srv *testServer) []string {
			return []string{srv.URL, "-n", "20", "-c", "2", "--http2", "--insecure"}
		},
		protos: map[string]int{"HTTP/2": 20},
	}, {
		name: "http2 cacert",
		mode: tlsHTTP2,
		args: func(t *testing.T, srv *testServer) []string {
			return []string{srv.URL, "-n", "5", "-c", "1", "--http2", "--cacert", certFile(t, srv)}
		},
		protos: map[string]int{"HTTP/2": 5},
	}, {
		name: "https cacert",
		mode: tlsHTTP2,
		args: func(t *testing.T, srv *testServer) []string {
			return []string{srv.URL, "-n", "5", "-c", "1", "--cacert", certFile(t, srv)}
		},
		protos: map[string]int{"HTTP/1": 5},
		conns:  1,
	}, {
		name:   "https untrusted",
		mode:   tlsHTTP2,
		args:   func(_ *testing.T, srv *testServer) []string { return []string{srv.URL, "-n", "3", "-c", "1"} },
		protos: map[string]int{},
		errors: map[string]int64{"tls": 3},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, tt.mode, http.StatusOK, tt.sleep)
			sum := attackJSON(t, tt.args(t, srv)...)
			if diff := cmp.Diff(tt.protos, srv.count(protoKey)); diff != "" {
				t.Errorf("server saw (-want +got):\n%s", diff)
			}
			if tt.conns > 0 && srv.conns.Load() != tt.conns {
				t.Errorf("server saw %d connections, want %d", srv.conns.Load(), tt.conns)
			}
			checkOutcome(t, sum, int64(len(srv.requests()))+tt.errors["tls"], tt.errors)
		})
	}
}

func TestAttackUnixSocket(t *testing.T) {
	for _, client := range []string{"lean", "nethttp"} {
		t.Run(client, func(t *testing.T) {
			srv := newUnixServer(t)
			sum := attackJSON(t, srv.URL+"/sock", "--unix-socket", srv.sock, "--client", client, "-n", "10", "-c", "2")
			if diff := cmp.Diff(map[string]int{"GET /sock  ": 10}, srv.count(requestKey)); diff != "" {
				t.Errorf("server saw (-want +got):\n%s", diff)
			}
			checkOutcome(t, sum, 10, nil)
		})
	}
}

// checkOutcome checks that sum reports requests, all answered 200 but for
// the errors.
func checkOutcome(t *testing.T, sum record.Summary, requests int64, errors map[string]int64) {
	t.Helper()
	var failed int64
	for _, n := range errors {
		failed += n
	}
	type outcome struct {
		Requests int64
		Codes    map[string]int64
		Errors   map[string]int64
	}
	want := outcome{requests, map[string]int64{"200": requests - failed}, errors}
	if requests == failed {
		want.Codes = nil
	}
	got := outcome{sum.Requests, sum.StatusCodes, sum.Errors}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
}
