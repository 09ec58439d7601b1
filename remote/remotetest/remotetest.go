// Package remotetest starts agents and targets for the tests of packages
// that drive agents: the shard coordinator and the runner.
package remotetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/spec"
)

// Token is the token of the agents StartAgent starts without one.
const Token = "0123456789abcdef0123456789abcdef-test"

// StartAgent serves a on 127.0.0.1 until stop or the test's end, and
// returns its URL and wait, which returns what Serve returned, waiting at
// most two minutes for it. An agent without a token gets Token.
func StartAgent(t testing.TB, a *remote.Agent) (url string, stop func(), wait func() error) {
	t.Helper()
	if a.Token == "" {
		a.Token = Token
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	var serveErr error
	go func() {
		serveErr = a.Serve(ctx, ln)
		close(served)
	}()
	wait = func() error {
		select {
		case <-served:
			return serveErr
		case <-time.After(2 * time.Minute):
			return errors.New("the agent still serves after two minutes")
		}
	}
	t.Cleanup(func() {
		cancel()
		_ = wait() // what it returned is the test's to check
	})
	return "http://" + ln.Addr().String(), cancel, wait
}

// Target returns a server on 127.0.0.1 that answers every request 200,
// and a spec of one variant loading it with load, a YAML mapping.
func Target(t testing.TB, load string) *spec.Spec {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	return WriteSpec(t, t.TempDir(), fmt.Sprintf("version: 1\nname: agent\nvariants: [{name: v, target: %q}]\nload: %s\n", srv.URL+"/", load))
}

// WriteSpec writes text as spec.yaml in dir and reads it.
func WriteSpec(t testing.TB, dir, text string) *spec.Spec {
	t.Helper()
	path := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.ReadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
