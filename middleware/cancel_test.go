package middleware

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

func TestFairQueueCancelQueued(t *testing.T) {
	tests := []struct {
		name           string
		queued, cancel int // requests queued; which of them is cancelled
	}{
		{"only one", 1, 0},
		{"first of three", 3, 0},
		{"middle of three", 3, 1},
		{"last of three", 3, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reg := prometheus.NewRegistry()
				q, err := NewFairQueue(FairQueueConfig{Concurrency: 1, Queues: 1, QueueLength: 10}, NewMetrics(reg))
				if err != nil {
					t.Fatal(err)
				}
				level := map[string]string{"priority_level": "default"}
				gauges := func() [2]float64 {
					return [2]float64{value(t, reg, inQueue, level), value(t, reg, executing, level)}
				}
				unblock := make(chan struct{})
				var served []string
				h := q.Filter()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					<-unblock
					served = append(served, r.Header.Get(DefaultUserHeader)) // one seat: no race
				}))
				var wg sync.WaitGroup
				wg.Go(func() { serve(t.Context(), h, "holder") })
				synctest.Wait()
				ctx, cancel := context.WithCancel(t.Context())
				codes := make([]int, tc.queued)
				for i := range tc.queued {
					c := t.Context()
					if i == tc.cancel {
						c = ctx
					}
					user := string(rune('a' + i))
					wg.Go(func() { codes[i] = serve(c, h, user).Code })
					synctest.Wait() // queue them in order
				}
				if diff := cmp.Diff([2]float64{float64(tc.queued), 1}, gauges()); diff != "" {
					t.Errorf("[in queue, executing] before cancel (-want +got):\n%s", diff)
				}
				cancel()
				synctest.Wait()
				if diff := cmp.Diff([2]float64{float64(tc.queued - 1), 1}, gauges()); diff != "" {
					t.Errorf("[in queue, executing] after cancel (-want +got):\n%s", diff)
				}
				close(unblock)
				wg.Wait()

				want := []string{"holder"}
				wantCodes := make([]int, tc.queued)
				for i := range tc.queued {
					wantCodes[i] = http.StatusOK
					if i == tc.cancel {
						wantCodes[i] = http.StatusTooManyRequests
						continue
					}
					want = append(want, string(rune('a'+i)))
				}
				if diff := cmp.Diff(want, served); diff != "" {
					t.Errorf("served, in order (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(wantCodes, codes); diff != "" {
					t.Errorf("codes of queued requests (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([2]float64{0, 0}, gauges()); diff != "" {
					t.Errorf("[in queue, executing] at the end (-want +got):\n%s", diff)
				}
				if got := value(t, reg, rejected, map[string]string{"reason": "cancelled"}); got != 1 {
					t.Errorf("rejected{cancelled} = %v; want 1", got)
				}
				l := q.levels[0]
				if l.waiting != 0 || l.executing != 0 || len(l.queues[0]) != 0 {
					t.Errorf("level left with %d waiting, %d executing, queue %v", l.waiting, l.executing, l.queues[0])
				}
			})
		})
	}
}

// A queued request may be given a seat just as its context ends; whichever
// way acquire's select goes, the seat must come back.
func TestFairQueueCancelRacesDispatch(t *testing.T) {
	for range 50 {
		synctest.Test(t, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			q, err := NewFairQueue(FairQueueConfig{Concurrency: 1, Queues: 1}, NewMetrics(reg))
			if err != nil {
				t.Fatal(err)
			}
			l := q.levels[0]
			if l.acquire(t.Context(), "holder") != "" {
				t.Fatal("first acquire rejected")
			}
			ctx, cancel := context.WithCancel(t.Context())
			reason := make(chan string, 1)
			go func() {
				r := l.acquire(ctx, "racer")
				if r == "" {
					l.release()
				}
				reason <- r
			}()
			synctest.Wait()
			// Both before the racer runs again: its select sees both ready.
			cancel()
			l.release()
			if r := <-reason; r != "" && r != reasonCancelled {
				t.Fatalf("reason %q", r)
			}
			if l.executing != 0 || l.waiting != 0 {
				t.Fatalf("level left with %d executing, %d waiting", l.executing, l.waiting)
			}
			if got := value(t, reg, executing, nil); got != 0 {
				t.Fatalf("executing gauge %v; want 0", got)
			}
		})
	}
}
