package middleware

import (
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestFairQueueFairness measures fairness under contention. User "heavy"
// keeps 20 requests outstanding; user "light" sends one at a time. Two seats,
// a handler that takes 2 ms. With shuffle sharding light has a queue heavy
// cannot fill and waits a round or two of the round robin at most; with one
// queue for all it waits behind heavy's backlog. Virtual time (synctest) makes
// the numbers exact, whatever the machine's load.
func TestFairQueueFairness(t *testing.T) {
	const (
		service   = 2 * time.Millisecond
		heavyLoad = 20
		lightReqs = 20
	)
	tests := []struct {
		name   string
		queues int
		hand   int
		fair   bool
	}{
		{name: "shuffle sharded", queues: 8, hand: 2, fair: true},
		{name: "one queue", queues: 1, hand: 1, fair: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reg := prometheus.NewRegistry()
				q, err := NewFairQueue(FairQueueConfig{Concurrency: 2, Queues: tc.queues, HandSize: tc.hand, QueueLength: 50}, NewMetrics(reg))
				if err != nil {
					t.Fatal(err)
				}
				if tc.fair {
					// Shuffle sharding's promise: light holds a queue heavy cannot fill.
					heavy, light := q.Hand("heavy"), q.Hand("light")
					if !slices.ContainsFunc(light, func(i int) bool { return !slices.Contains(heavy, i) }) {
						t.Fatalf("light's hand %v is within heavy's %v: pick another deck", light, heavy)
					}
				}
				h := q.Filter()(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { time.Sleep(service) }))

				stop := make(chan struct{})
				var failed atomic.Int32
				var wg sync.WaitGroup
				for range heavyLoad {
					wg.Go(func() {
						for range 1000 { // bounded; stop ends it long before
							select {
							case <-stop:
								return
							default:
							}
							if serve(t.Context(), h, "heavy").Code != http.StatusOK {
								failed.Add(1)
							}
						}
					})
				}
				var lightWorst time.Duration
				for range lightReqs {
					time.Sleep(time.Millisecond)
					start := time.Now()
					if serve(t.Context(), h, "light").Code != http.StatusOK {
						failed.Add(1)
					}
					lightWorst = max(lightWorst, time.Since(start))
				}
				close(stop)
				wg.Wait()
				if n := failed.Load(); n > 0 {
					t.Fatalf("%d requests failed", n)
				}

				mean := func(flow string) time.Duration {
					n, sum := histogram(t, reg, waitDuration, map[string]string{"priority_level": "default", "flow": flow})
					if n == 0 {
						t.Fatalf("no waits recorded for %s", flow)
					}
					return time.Duration(sum / float64(n) * float64(time.Second))
				}
				heavyMean, lightMean := mean("heavy"), mean("light")
				t.Logf("mean queue wait: heavy %v, light %v; light's worst latency %v", heavyMean, lightMean, lightWorst)
				bound := 4 * service // two rounds of dispatch, then its own service
				if tc.fair {
					if lightMean*4 >= heavyMean {
						t.Errorf("light waits %v on average, heavy %v; want light < heavy/4", lightMean, heavyMean)
					}
					if lightWorst > bound {
						t.Errorf("light's worst latency %v; want ≤ %v", lightWorst, bound)
					}
				} else {
					if lightMean*2 <= heavyMean {
						t.Errorf("without fairness light waits %v on average, heavy %v; want light > heavy/2", lightMean, heavyMean)
					}
					if lightWorst <= bound {
						t.Errorf("without fairness light's worst latency %v; want > %v", lightWorst, bound)
					}
				}
			})
		})
	}
}
