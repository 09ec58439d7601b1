package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
)

// TestAttackRefusedBeforeLoad holds that options which cannot work with the
// requests, or flags that others make meaningless, exit 2 with one line
// naming the flag before a single connection is opened.
func TestAttackRefusedBeforeLoad(t *testing.T) {
	plain := newServer(t, plainHTTP, http.StatusOK, 0)
	secure := newServer(t, tlsHTTP2, http.StatusOK, 0)
	dir := t.TempDir()
	ca := certFile(t, secure)
	targets := writeIn(t, dir, "targets.txt", fmt.Sprintf("GET %s/a\nGET %s/b\n", plain.URL, plain.URL))
	scenario := writeIn(t, dir, "s.yaml", fmt.Sprintf("steps:\n  - name: get\n    url: %s/x/{{.Iter}}\n", plain.URL))
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"http2 to http", []string{plain.URL, "--http2"}, []string{"--http2", "https URL", plain.URL}},
		{"h2c to https", []string{secure.URL, "--h2c", "-k"}, []string{"--h2c", "http URL", secure.URL}},
		{"http2 targets", []string{"--targets", targets, "--http2"}, []string{"--http2", "https URL"}},
		{"http2 scenario", []string{"--scenario", scenario, "--http2"}, []string{"--http2", "https URL", "/x/0"}},
		{"insecure to http", []string{plain.URL, "-k"}, []string{"--insecure", "https"}},
		{"cacert to http", []string{plain.URL, "--cacert", ca}, []string{"--cacert", "https"}},
		{"insecure to http targets", []string{"--targets", targets, "--insecure"}, []string{"--insecure"}},
		{"missing unix socket", []string{plain.URL, "--unix-socket", filepath.Join(dir, "nope.sock")}, []string{"--unix-socket", "nope.sock"}},
		{"unix socket is a file", []string{plain.URL, "--unix-socket", targets}, []string{"--unix-socket", "not a unix socket"}},
		{"header with targets", []string{"--targets", targets, "-H", "X-Test: 1"}, []string{"-H", "--targets file"}},
		{"method with scenario", []string{"--scenario", scenario, "-m", "POST"}, []string{"-m", "--scenario file"}},
		{"body with targets", []string{"--targets", targets, "-b", "x"}, []string{"-b", "--targets file"}},
		{"body file with scenario", []string{"--scenario", scenario, "--body-file", targets}, []string{"--body-file", "--scenario file"}},
		{"streams without HTTP/2", []string{plain.URL, "--streams", "10"}, []string{"--streams", "--http2"}},
		{"client with h2c", []string{plain.URL, "--h2c", "--client", "nethttp"}, []string{"--client", "HTTP/1.1"}},
		{"no keep-alive with http2", []string{secure.URL, "--http2", "-k", "--no-keepalive"}, []string{"--no-keepalive"}},
		{"connections with sequential", []string{plain.URL, "--sequential", "--connections", "4"}, []string{"--connections", "--sequential"}},
		{"seed without poisson", []string{plain.URL, "-r", "10", "--seed", "7"}, []string{"--seed", "--arrivals poisson"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// -n 1: an attack wrongly let through opens a connection.
			code, stdout, stderr := runCLI(t, append([]string{"attack", "-n", "1"}, tt.args...)...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
	for _, s := range []*testServer{plain, secure} {
		if n := s.conns.Load(); n != 0 {
			t.Errorf("%s accepted %d connections: a refused attack must send nothing", s.URL, n)
		}
	}
}
