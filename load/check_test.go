package load

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestAttackRefusesMismatchedOptions holds that Attack itself, which
// experiments call without the command line's checks, refuses options that
// would fail every request, before opening a connection.
func TestAttackRefusesMismatchedOptions(t *testing.T) {
	srv := newCountingServer(t, 0)
	tests := []struct {
		name   string
		o      Options
		option string
	}{
		{"http2 to http", Options{HTTP2: true}, "http2"},
		{"h2c to https", Options{H2C: true}, ""},
		{"missing unix socket", Options{UnixSocket: filepath.Join(t.TempDir(), "nope.sock")}, "unix-socket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := staticTo(t, srv.URL)
			if tt.option == "" { // the https case
				src = staticTo(t, "https://"+srv.Listener.Addr().String()+"/")
				tt.option = "h2c"
			}
			_, err := Attack(t.Context(), Config{Source: src, Model: Closed{Workers: 2}, Transport: tt.o, Duration: time.Second})
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option != tt.option {
				t.Fatalf("error %v, want an OptionError naming %s", err, tt.option)
			}
		})
	}
	if n := srv.conns.Load(); n != 0 {
		t.Errorf("server accepted %d connections, want 0", n)
	}
}

// TestCheckTLSFiles holds that TLS settings for requests that are all http
// are refused, and accepted when one request is https.
func TestCheckTLSFiles(t *testing.T) {
	plain := append(staticTo(t, "http://127.0.0.1:1/"), staticTo(t, "http://127.0.0.1:2/")...)
	var oe *OptionError
	if err := Check(plain, Options{}, TLSFiles{CACert: "ca.pem"}); !errors.As(err, &oe) || oe.Option != "cacert" {
		t.Errorf("cacert with http URLs: %v, want an OptionError naming cacert", err)
	}
	mixed := append(plain, staticTo(t, "https://127.0.0.1:3/")...)
	if err := Check(mixed, Options{}, TLSFiles{Insecure: true}); err != nil {
		t.Errorf("insecure with an https URL among them: %v, want nil", err)
	}
}
