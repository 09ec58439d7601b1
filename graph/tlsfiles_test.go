package graph

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
)

// TestTLSDir makes a CA and a serving certificate once, keeps them, and
// verifies the certificate for its hosts against the CA.
func TestTLSDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	if _, err := TLSDir(dir, nil); err == nil {
		t.Error("no hosts: no error")
	}
	cfg, err := TLSDir(dir, []string{"127.0.0.1", "webhook.local"})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, CertFile))
	again, err := TLSDir(dir, []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(filepath.Join(dir, CertFile)); string(second) != string(first) {
		t.Error("a second call made a new certificate, want the one kept")
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, CAFile))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.crt holds no certificate")
	}
	for _, c := range []*tls.Config{cfg, again} {
		leaf, err := x509.ParseCertificate(c.Certificates[0].Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, host := range []string{"127.0.0.1", "webhook.local"} {
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
				t.Errorf("%s: %v", host, err)
			}
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, %v; want 0700", fi.Mode().Perm(), err)
	}
}
