package middleware

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

const (
	waitDuration = "latlab_flowcontrol_request_wait_duration_seconds"
	inQueue      = "latlab_flowcontrol_current_inqueue_requests"
	executing    = "latlab_flowcontrol_current_executing_requests"
	rejected     = "latlab_flowcontrol_rejected_requests_total"
)

func TestFairQueueRoutes(t *testing.T) {
	reg := prometheus.NewRegistry()
	q, err := NewFairQueue(FairQueueConfig{Levels: []Level{
		{Name: "system", Users: []string{"admin"}},
		{Name: "workload", Users: []string{"alice", "bob"}},
		{Name: "catch-all"},
	}}, NewMetrics(reg))
	if err != nil {
		t.Fatal(err)
	}
	h := q.Filter()(ok)
	tests := []struct{ user, want string }{
		{"admin", "system"},
		{"alice", "workload"},
		{"bob", "workload"},
		{"carol", "catch-all"},
		{"", "catch-all"},
	}
	for _, tc := range tests {
		t.Run(tc.user, func(t *testing.T) {
			if rec := serve(t.Context(), h, tc.user); rec.Code != http.StatusOK {
				t.Fatalf("code %d; want 200", rec.Code)
			}
			got := map[string]uint64{}
			for _, level := range []string{"system", "workload", "catch-all"} {
				got[level], _ = histogram(t, reg, waitDuration, map[string]string{"priority_level": level, "flow": tc.user})
			}
			want := map[string]uint64{"system": 0, "workload": 0, "catch-all": 0}
			want[tc.want] = 1
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("requests by level (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFairQueueConcurrencyLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		q, err := NewFairQueue(FairQueueConfig{Concurrency: 4, Levels: []Level{
			{Name: "small", Shares: 1, Users: []string{"s"}},
			{Name: "big", Shares: 3},
		}}, NewMetrics(reg))
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		current, peak := map[string]int{}, map[string]int{}
		h := q.Filter()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user := r.Header.Get(DefaultUserHeader)
			mu.Lock()
			current[user]++
			peak[user] = max(peak[user], current[user])
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			current[user]--
			mu.Unlock()
		}))
		var wg sync.WaitGroup
		var failed atomic.Int32
		for range 10 {
			for _, user := range []string{"s", "b"} {
				wg.Go(func() {
					if serve(t.Context(), h, user).Code != http.StatusOK {
						failed.Add(1)
					}
				})
			}
		}
		wg.Wait()
		if n := failed.Load(); n > 0 {
			t.Errorf("%d requests failed", n)
		}
		if diff := cmp.Diff(map[string]int{"s": 1, "b": 3}, peak); diff != "" {
			t.Errorf("most requests in the handler at once (-want +got):\n%s", diff)
		}
		gauges := map[string]float64{}
		for _, level := range []string{"small", "big"} {
			labels := map[string]string{"priority_level": level}
			gauges[level+" in queue"] = value(t, reg, inQueue, labels)
			gauges[level+" executing"] = value(t, reg, executing, labels)
		}
		want := map[string]float64{"small in queue": 0, "small executing": 0, "big in queue": 0, "big executing": 0}
		if diff := cmp.Diff(want, gauges); diff != "" {
			t.Errorf("gauges after the run (-want +got):\n%s", diff)
		}
	})
}

func TestFairQueueFull(t *testing.T) {
	tests := []struct {
		retryAfter time.Duration
		want       string
	}{
		{0, "1"},
		{10 * time.Millisecond, "1"},
		{time.Second, "1"},
		{1500 * time.Millisecond, "2"},
		{time.Minute, "60"},
	}
	for _, tc := range tests {
		t.Run(tc.retryAfter.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reg := prometheus.NewRegistry()
				q, err := NewFairQueue(FairQueueConfig{Concurrency: 1, Queues: 1, QueueLength: 2, RetryAfter: tc.retryAfter}, NewMetrics(reg))
				if err != nil {
					t.Fatal(err)
				}
				unblock := make(chan struct{})
				h := q.Filter()(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-unblock }))
				codes := make(chan int, 3)
				for range 3 { // one executing, two queued
					go func() { codes <- serve(t.Context(), h, "u").Code }()
				}
				synctest.Wait()
				rec := serve(t.Context(), h, "u")
				got := []string{http.StatusText(rec.Code), rec.Header().Get("Retry-After")}
				if diff := cmp.Diff([]string{http.StatusText(http.StatusTooManyRequests), tc.want}, got); diff != "" {
					t.Errorf("fourth request (-want +got):\n%s", diff)
				}
				labels := map[string]string{"priority_level": "default", "reason": "queue-full"}
				if got := value(t, reg, rejected, labels); got != 1 {
					t.Errorf("rejected{queue-full} = %v; want 1", got)
				}
				close(unblock)
				for range 3 {
					if code := <-codes; code != http.StatusOK {
						t.Errorf("admitted request: code %d; want 200", code)
					}
				}
			})
		})
	}
}

func TestFairQueueReleasesOnPanic(t *testing.T) {
	q, err := NewFairQueue(FairQueueConfig{Concurrency: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := q.Filter()(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	func() {
		defer func() { _ = recover() }()
		serve(t.Context(), h, "u")
	}()
	if got := q.levels[0].executing; got != 0 {
		t.Errorf("seats taken after a panic: %d; want 0", got)
	}
}
