package experiment

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
