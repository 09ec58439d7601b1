package middleware

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"
)

const (
	filterDuration = "latlab_request_filter_duration_seconds"
	filterRejected = "latlab_request_filter_rejected_total"
)

// tracked is what Track recorded for one filter.
type tracked struct {
	Count    uint64  // observations of B−A
	Seconds  float64 // their sum
	Rejected float64
}

func trackedOf(t *testing.T, reg prometheus.Gatherer, name string) tracked {
	t.Helper()
	labels := map[string]string{"filter": name}
	n, sum := histogram(t, reg, filterDuration, labels)
	return tracked{Count: n, Seconds: sum, Rejected: value(t, reg, filterRejected, labels)}
}

// filterFunc makes a Filter from what it does around next.
func filterFunc(f func(w http.ResponseWriter, r *http.Request, next http.Handler)) Filter {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f(w, r, next) })
	}
}

// Time inside synctest bubbles is virtual, so the durations below are exact.
func TestTrack(t *testing.T) {
	tests := []struct {
		name   string
		filter Filter
		want   tracked
	}{
		{
			name: "sleeps before next",
			filter: filterFunc(func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				time.Sleep(2 * time.Millisecond)
				next.ServeHTTP(w, r)
				time.Sleep(5 * time.Millisecond) // after B: not counted
			}),
			want: tracked{Count: 1, Seconds: 0.002},
		},
		{name: "passthrough", filter: Passthrough(), want: tracked{Count: 1}},
		{name: "nil filter is passthrough", filter: nil, want: tracked{Count: 1}},
		{
			name: "answers itself",
			filter: filterFunc(func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				time.Sleep(time.Millisecond)
				http.Error(w, "no", http.StatusForbidden)
			}),
			want: tracked{Rejected: 1},
		},
		{
			name: "calls next twice",
			filter: filterFunc(func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				time.Sleep(3 * time.Millisecond)
				next.ServeHTTP(w, r)
				next.ServeHTTP(w, r)
			}),
			want: tracked{Count: 1, Seconds: 0.003},
		},
		{
			name: "calls next from another goroutine",
			filter: filterFunc(func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				var wg sync.WaitGroup
				wg.Go(func() {
					time.Sleep(4 * time.Millisecond)
					next.ServeHTTP(w, r)
				})
				wg.Wait()
			}),
			want: tracked{Count: 1, Seconds: 0.004},
		},
		{
			name: "drops the request context",
			filter: filterFunc(func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				next.ServeHTTP(w, r.WithContext(context.Background()))
			}),
			want: tracked{Rejected: 1},
		},
		{
			name: "derives the request context",
			filter: filterFunc(func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				ctx, cancel := context.WithTimeout(r.Context(), time.Second)
				defer cancel()
				time.Sleep(time.Millisecond)
				next.ServeHTTP(w, r.WithContext(ctx))
			}),
			want: tracked{Count: 1, Seconds: 0.001},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reg := prometheus.NewRegistry()
				h := Track("f", NewMetrics(reg), tc.filter)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
					time.Sleep(20 * time.Millisecond) // the handler's time is not the filter's
				}))
				serve(t.Context(), h, "")
				got := trackedOf(t, reg, "f")
				if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
					t.Errorf("recorded (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestTrackNested(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		m := NewMetrics(reg)
		sleep := func(d time.Duration) Filter {
			return filterFunc(func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				time.Sleep(d)
				next.ServeHTTP(w, r)
			})
		}
		h := Track("outer", m, Chain(sleep(time.Millisecond), Track("inner", m, sleep(2*time.Millisecond))))(ok)
		serve(t.Context(), h, "")
		got := map[string]tracked{"outer": trackedOf(t, reg, "outer"), "inner": trackedOf(t, reg, "inner")}
		want := map[string]tracked{"outer": {Count: 1, Seconds: 0.003}, "inner": {Count: 1, Seconds: 0.002}}
		if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("recorded (-want +got):\n%s", diff)
		}
	})
}

func TestTrackNilMetrics(t *testing.T) {
	called := false
	h := Track("f", nil, Passthrough())(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }))
	if rec := serve(t.Context(), h, ""); rec.Code != http.StatusOK || !called {
		t.Errorf("got code %d, handler called %v; want 200, true", rec.Code, called)
	}
}
