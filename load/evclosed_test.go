//go:build linux

package load

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestEventLoopsClosed runs a closed loop's scenario on the event loops:
// every iteration's steps in order, each worker numbered once and its
// iterations counted from 0, exactly the count asked, never more in
// flight than workers, on connections opened before the load.
func TestEventLoopsClosed(t *testing.T) {
	for _, threads := range []int{1, 2} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			var mu sync.Mutex
			steps := map[string][]string{}
			var active, peak atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := active.Add(1)
				defer active.Add(-1)
				mu.Lock()
				steps[r.URL.Path] = append(steps[r.URL.Path], r.Method)
				peak.Store(max(peak.Load(), n))
				mu.Unlock()
			}))
			defer srv.Close()
			sc := crudScenario(t, srv.URL)
			const workers, count = 4, 40
			res := attack(t, context.Background(), Config{Source: sc, Model: Closed{Workers: workers}, Count: count, Threads: threads})
			if res.Threads != threads || res.Pool != workers {
				t.Errorf("ran on %d threads with %d connections opened before, want %d and %d", res.Threads, res.Pool, threads, workers)
			}
			if res.Requests != 3*count || res.Codes[200] != 3*count {
				t.Errorf("%d requests, %d answered 200; want %d", res.Requests, res.Codes[200], 3*count)
			}
			if got := peak.Load(); got > workers {
				t.Errorf("server saw %d at once, want at most %d workers", got, workers)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(steps) != count {
				t.Errorf("%d objects, want %d", len(steps), count)
			}
			iters := map[int]int{} // per worker
			for path, got := range steps {
				if strings.Join(got, ",") != "POST,GET,DELETE" {
					t.Errorf("%s: steps %v, want POST, GET, DELETE in order", path, got)
				}
				var w, i int
				if _, err := fmt.Sscanf(path, "/o-%d-%d", &w, &i); err != nil || w < 0 || w >= workers {
					t.Errorf("%s: not a worker's object", path)
					continue
				}
				iters[w] = max(iters[w], i+1)
			}
			// Each worker's iterations are numbered 0, 1, ...: as many
			// numbers as objects.
			n := 0
			for _, k := range iters {
				n += k
			}
			if n != count {
				t.Errorf("iterations numbered up to %v per worker, %d in all; want %d", iters, n, count)
			}
		})
	}
}

// TestEventLoopsClosedFailing runs a closed loop against a port nobody
// listens on, and a host that does not resolve (its dial fails at once,
// inside the loop's turn): every failure is counted, the count is kept,
// and the run ends.
func TestEventLoopsClosedFailing(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	refused := srv.URL
	srv.Close()
	for _, url := range []string{refused, "http://nothing.invalid/"} {
		res := attack(t, context.Background(), Config{Source: staticTo(t, url), Model: Closed{Workers: 3}, Count: 200})
		if res.Threads == 0 {
			t.Errorf("%s: not on the event loops", url)
		}
		if res.Requests != 200 || res.ErrorsTotal != 200 {
			t.Errorf("%s: %d requests, %d failed; want 200 and 200 (%v)", url, res.Requests, res.ErrorsTotal, res.Errors)
		}
	}
	// A time limit ends it too.
	res := attack(t, context.Background(), Config{Source: staticTo(t, refused), Model: Closed{Workers: 3}, Duration: 50 * time.Millisecond})
	if res.Requests == 0 || res.ErrorsTotal != res.Requests {
		t.Errorf("%d requests, %d failed; want some, all failed", res.Requests, res.ErrorsTotal)
	}
}

// TestClosedLoops: a closed loop's threads leave a target on this machine
// its CPUs, take what a target elsewhere lets them, and never outnumber
// the workers.
func TestClosedLoops(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	for _, tt := range []struct {
		workers int
		local   bool
		threads int
		want    int
	}{
		{50, true, 0, 2},
		{50, false, 0, 7},
		{3, false, 0, 3},
		{50, true, 5, 5},
		{2, true, 5, 2},
		{1, false, 0, 1},
	} {
		if got := closedLoops(tt.workers, tt.local, tt.threads); got != tt.want {
			t.Errorf("closedLoops(%d, local %v, threads %d) = %d on 8 CPUs, want %d", tt.workers, tt.local, tt.threads, got, tt.want)
		}
	}
	runtime.GOMAXPROCS(2)
	if got := closedLoops(50, true, 0); got != 1 {
		t.Errorf("on 2 CPUs beside a local target: %d threads, want 1", got)
	}
}

// TestOnThisMachine tells the targets on this machine from the others.
func TestOnThisMachine(t *testing.T) {
	for _, tt := range []struct {
		keys []string
		o    Options
		want bool
	}{
		{[]string{"http://127.0.0.1:80"}, Options{}, true},
		{[]string{"http://localhost:8080", "http://[::1]:80"}, Options{}, true},
		{[]string{"http://127.0.0.1:80", "http://198.18.0.1:80"}, Options{}, false},
		{[]string{"http://example.com:80"}, Options{}, false},
		{[]string{"http://example.com:80"}, Options{UnixSocket: "/tmp/s"}, true},
		{nil, Options{}, false},
	} {
		if got := onThisMachine(tt.keys, tt.o); got != tt.want {
			t.Errorf("onThisMachine(%v, %+v) = %v, want %v", tt.keys, tt.o, got, tt.want)
		}
	}
}

// TestEventLoopsClosedTwoHosts runs a scenario whose steps go to two
// servers: each worker keeps a connection to each, and none is closed to
// make room for the other.
func TestEventLoopsClosedTwoHosts(t *testing.T) {
	a, b := newCountingServer(t, 0), newCountingServer(t, 0)
	yaml := `steps:
  - {name: a, url: "` + a.URL + `/a"}
  - {name: b, url: "` + b.URL + `/b"}
`
	sc, err := ParseScenario("two.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	const workers = 3
	res := attack(t, context.Background(), Config{Source: sc, Model: Closed{Workers: workers}, Count: 60})
	if res.Threads == 0 || res.Requests != 120 || res.ErrorsTotal != 0 {
		t.Errorf("%d threads, %d requests, %d failed; want event loops, 120 and none", res.Threads, res.Requests, res.ErrorsTotal)
	}
	if na, nb := a.conns.Load(), b.conns.Load(); na > workers || nb > workers {
		t.Errorf("servers saw %d and %d connections, want at most %d each", na, nb, workers)
	}
}
