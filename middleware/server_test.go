package middleware

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

// TestServer runs the whole chain behind a real server on 127.0.0.1:
// Delay and FairQueue, each tracked, one seat and one queue place.
func TestServer(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	q, err := NewFairQueue(FairQueueConfig{Concurrency: 1, Queues: 1, QueueLength: 1, Header: "X-User", RetryAfter: 3 * time.Second}, m)
	if err != nil {
		t.Fatal(err)
	}
	unblock := make(chan struct{})
	h := Chain(
		Track("delay", m, Delay("slow", "X-User", time.Millisecond)),
		Track("fairqueue", m, q.Filter()),
	)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-unblock
		io.WriteString(w, "hello "+r.Header.Get("X-User"))
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()

	type response struct {
		Code       int
		RetryAfter string
		Body       string
	}
	get := func(user string) response {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Error(err)
			return response{}
		}
		req.Header.Set("X-User", user)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Error(err)
			return response{}
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return response{resp.StatusCode, resp.Header.Get("Retry-After"), string(body)}
	}

	var wg sync.WaitGroup
	got := make([]response, 2)
	for i, user := range []string{"slow", "fast"} {
		wg.Go(func() { got[i] = get(user) })
		// Wait, bounded, until the request holds the seat, then the queue.
		for range 500 {
			if value(t, reg, executing, nil)+value(t, reg, inQueue, nil) == float64(i+1) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	full := get("late")
	close(unblock)
	wg.Wait()

	want := []response{{200, "", "hello slow"}, {200, "", "hello fast"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("admitted requests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(response{429, "3", "too many requests: queue-full\n"}, full); diff != "" {
		t.Errorf("request over the queue (-want +got):\n%s", diff)
	}
	counts := map[string]float64{}
	for _, f := range []string{"delay", "fairqueue"} {
		n, _ := histogram(t, reg, filterDuration, map[string]string{"filter": f})
		counts[f+" observed"] = float64(n)
		counts[f+" rejected"] = value(t, reg, filterRejected, map[string]string{"filter": f})
	}
	wantCounts := map[string]float64{"delay observed": 3, "delay rejected": 0, "fairqueue observed": 2, "fairqueue rejected": 1}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("tracked filters (-want +got):\n%s", diff)
	}
	if _, sum := histogram(t, reg, filterDuration, map[string]string{"filter": "delay"}); sum < 0.001 {
		t.Errorf("delay filter's B−A sums to %v s; want ≥ 1 ms (one delayed request)", sum)
	}
}
