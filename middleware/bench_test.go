package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// benchServe serves one request from user through f to a trivial handler per
// iteration, reusing the request and the recorder.
func benchServe(b *testing.B, f Filter, user string) {
	b.Helper()
	h := f(ok)
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	req.Header.Set(DefaultUserHeader, user)
	rec := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(rec, req)
	}
	if rec.Code != http.StatusOK {
		b.Fatalf("code %d; want 200", rec.Code)
	}
}

func BenchmarkPassthrough(b *testing.B) {
	benchServe(b, Passthrough(), "alice")
}

func BenchmarkTrack(b *testing.B) {
	benchServe(b, Track("passthrough", NewMetrics(prometheus.NewRegistry()), Passthrough()), "alice")
}

func BenchmarkDelayOtherUser(b *testing.B) {
	benchServe(b, Delay("slow", "", time.Second), "alice")
}

func BenchmarkFairQueueUncontended(b *testing.B) {
	q, err := NewFairQueue(FairQueueConfig{}, NewMetrics(prometheus.NewRegistry()))
	if err != nil {
		b.Fatal(err)
	}
	benchServe(b, q.Filter(), "alice")
}

// The fair queue with nothing recorded: what the metrics cost.
func BenchmarkFairQueueUncontendedNoMetrics(b *testing.B) {
	q, err := NewFairQueue(FairQueueConfig{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	benchServe(b, q.Filter(), "alice")
}

// The fair queue behind Track, as latlab's nodes run it.
func BenchmarkTrackFairQueue(b *testing.B) {
	m := NewMetrics(prometheus.NewRegistry())
	q, err := NewFairQueue(FairQueueConfig{}, m)
	if err != nil {
		b.Fatal(err)
	}
	benchServe(b, Track("fairqueue", m, q.Filter()), "alice")
}
