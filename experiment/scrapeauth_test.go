package experiment

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/spec"
)

// TestScrapeClient scrapes an HTTPS server of its own CA that answers only
// the right bearer token, as an API server's /metrics does.
func TestScrapeClient(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte("# metrics\n"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, wrong := write("token", "s3cret\n"), write("wrong", "nope\n")
	get := func(token, ca string) (int, error) {
		c, err := scrapeClient(token, ca)
		if err != nil {
			return 0, err
		}
		resp, err := c.Get(srv.URL + "/metrics")
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := get(good, ca); err != nil || code != http.StatusOK {
		t.Errorf("with the token and the CA: %d, %v; want 200", code, err)
	}
	if code, err := get(wrong, ca); err != nil || code != http.StatusForbidden {
		t.Errorf("with a wrong token: %d, %v; want 403", code, err)
	}
	if _, err := get(good, ""); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: %v; want the certificate refused", err)
	}
	for _, c := range []struct{ token, ca, want string }{
		{filepath.Join(dir, "missing"), ca, "probes.metrics.token_file"},
		{write("empty", "\n"), ca, "holds no one-line token"},
		{good, good, "probes.metrics.cacert"},
	} {
		if _, err := scrapeClient(c.token, c.ca); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("token %s, CA %s: %v; want an error naming %q", filepath.Base(c.token), filepath.Base(c.ca), err, c.want)
		}
	}
}

// TestWaitReadyTLS waits for an HTTPS ready URL whose CA file appears only
// once the server has started, as one that makes its own certificate
// writes it; without the CA the server is never ready.
func TestWaitReadyTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.crt")
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	}()
	if err := waitReady(context.Background(), srv.URL, time.Minute, false, nil, load.TLSFiles{CACert: ca}); err != nil {
		t.Errorf("with the CA: %v", err)
	}
	// Its last look may be cut short by the limit on a busy machine: only
	// the verdict is certain.
	if err := waitReady(context.Background(), srv.URL, 500*time.Millisecond, false, nil, load.TLSFiles{}); err == nil {
		t.Error("with the system's roots: ready; want the certificate refused")
	}
}

// TestParseLoadCACert keeps load.cacert resolved against the spec's folder,
// unread until a trial starts.
func TestParseLoadCACert(t *testing.T) {
	dir := t.TempDir()
	text := "version: 1\nname: x\nvariants:\n  - {name: a, target: 'https://127.0.0.1:6443/'}\nload: {mode: closed, concurrency: [1], duration: 1s, cacert: kube/ca.crt}\n"
	s, err := spec.ParseSpec("spec.yaml", []byte(text), dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Variants[0].Load.CACert, filepath.Join(dir, "kube", "ca.crt"); got != want {
		t.Errorf("cacert %q, want %q", got, want)
	}
}
