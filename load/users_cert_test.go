package load

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testPKI is a CA and what it signed, as PEM.
type testPKI struct {
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	caPEM  []byte
	serial int64
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	return &testPKI{ca: ca, caKey: key, caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), serial: 1}
}

// issue returns a certificate for cn and its key, as PEM.
func (p *testPKI) issue(t *testing.T, cn string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p.serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// Each scenario user presents its own client certificate, on connections
// of its own: a server that names the client by its certificate sees the
// user the iteration's template names, request after request.
func TestUserClientCerts(t *testing.T) {
	pki := newTestPKI(t)
	dir := t.TempDir()
	for _, name := range []string{"alice", "bob"} {
		c, k := pki.issue(t, name, x509.ExtKeyUsageClientAuth)
		if err := os.WriteFile(filepath.Join(dir, name+".crt"), c, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".key"), k, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srvCert, srvKey := pki.issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	pair, err := tls.X509KeyPair(srvCert, srvKey)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(pki.ca)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A step without X-User is static: built once, yet sent as its
		// iteration's user, whose certificate the handshake required.
		if cn := r.TLS.PeerCertificates[0].Subject.CommonName; r.Header.Get("X-User") != "" && cn != r.Header.Get("X-User") {
			http.Error(w, "certificate of "+cn+", request of "+r.Header.Get("X-User"), http.StatusForbidden)
		}
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: roots}
	srv.StartTLS()
	defer srv.Close()

	spec := "users:\n  - {name: alice, cert: alice.crt, key: alice.key}\n  - {name: bob, cert: bob.crt, key: bob.key, weight: 2}\n" +
		"steps:\n  - url: " + srv.URL + "/who\n    headers: {X-User: '{{.User.Name}}'}\n" +
		"  - url: " + srv.URL + "/static\n"
	sc, err := ParseScenario(filepath.Join(dir, "s.yaml"), []byte(spec), readRelative(filepath.Join(dir, "s.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	res := attack(t, context.Background(), Config{
		Source:    sc,
		Model:     Closed{Workers: 3},
		Count:     60,
		Transport: Options{TLS: &tls.Config{RootCAs: roots}},
	})
	if res.Requests != 120 || res.Codes[200] != 120 {
		t.Errorf("%d requests, codes %v, errors %v %v; want 120, each 200: every request presented its own user's certificate",
			res.Requests, res.Codes, res.Errors, res.ErrorExample)
	}
	if err := Check(sc, Options{NetHTTP: true}, TLSFiles{}); err == nil || !strings.Contains(err.Error(), "lean HTTP/1.1 client") {
		t.Errorf("Check with net/http: %v; want a refusal naming the lean client", err)
	}
}

func TestUserClientCertErrors(t *testing.T) {
	pki := newTestPKI(t)
	c, k := pki.issue(t, "alice", x509.ExtKeyUsageClientAuth)
	files := map[string][]byte{"a.crt": c, "a.key": k, "junk": []byte("not PEM")}
	read := func(name string) ([]byte, error) {
		if b, ok := files[name]; ok {
			return b, nil
		}
		return nil, os.ErrNotExist
	}
	step := "steps:\n  - url: https://127.0.0.1:1/\n"
	for _, tt := range []struct{ name, users, want string }{
		{"cert without key", "  - {name: a, cert: a.crt}\n", "s.yaml:2: users[0].key: missing: cert needs its private key"},
		{"key without cert", "  - {name: a, key: a.key}\n", "s.yaml:2: users[0].cert: missing: key needs the certificate it belongs to"},
		{"no such file", "  - {name: a, cert: nope.crt, key: a.key}\n", "s.yaml:2: users[0].cert: file does not exist"},
		{"not a pair", "  - {name: a, cert: junk, key: a.key}\n", "s.yaml:2: users[0].cert: with its key: tls: failed to find any PEM data in certificate input"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario("s.yaml", []byte("users:\n"+tt.users+step), read)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v; want %s", err, tt.want)
			}
		})
	}
}
