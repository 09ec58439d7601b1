package load

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/latlab/latlab/record"
)

// BenchmarkH2RoundTrip measures one HTTP/2 request and its 1 KiB response
// over TLS, on a connection the pool keeps open.
func BenchmarkH2RoundTrip(b *testing.B) {
	body := make([]byte, 1<<10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	tr, err := newNetHTTP(Options{HTTP2: true, TLS: nhTrust(srv)})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	u, err := url.Parse(srv.URL + "/")
	if err != nil {
		b.Fatal(err)
	}
	req := &Request{Method: "GET", URL: u, Header: http.Header{"Accept": {"*/*"}}}
	prepare(req, Options{})
	sess := tr.Session()
	defer sess.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var s record.Sample
		sess.Do(ctx, req, &s)
		if s.Error != record.OK {
			b.Fatalf("request failed: %v: %v", s.Error, s.Err)
		}
	}
}
