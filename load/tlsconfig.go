package load

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// TLSFiles names the files and choices behind a TLS client configuration.
// The zero value verifies servers against the system roots.
type TLSFiles struct {
	Insecure bool   // skip server verification
	CACert   string // PEM file of roots to trust instead of the system's
	Cert     string // PEM client certificate, for mutual TLS
	Key      string // PEM key of Cert
}

// Config builds the TLS client configuration, or nil when f is the zero
// value.
func (f TLSFiles) Config() (*tls.Config, error) {
	if f == (TLSFiles{}) {
		return nil, nil
	}
	cfg := &tls.Config{InsecureSkipVerify: f.Insecure} //nolint:gosec // asked for by --insecure
	if f.CACert != "" {
		pem, err := os.ReadFile(f.CACert)
		if err != nil {
			return nil, fmt.Errorf("reading CA certificates: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate found", f.CACert)
		}
		cfg.RootCAs = pool
	}
	if (f.Cert == "") != (f.Key == "") {
		return nil, errors.New("a client certificate needs both --cert and --key")
	}
	if f.Cert != "" {
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("loading client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
