package load

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// countingServer is an httptest server that counts requests, connections
// and the peak of requests in progress, and may sleep before answering.
type countingServer struct {
	*httptest.Server
	requests atomic.Int64
	conns    atomic.Int64
	active   atomic.Int64
	peak     atomic.Int64
	sleep    time.Duration

	mu     sync.Mutex
	opened []time.Time // when each connection was accepted, in order
}

// openedAt returns when each connection was accepted, in order.
func (s *countingServer) openedAt() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.opened)
}

func newCountingServer(t *testing.T, sleep time.Duration) *countingServer {
	t.Helper()
	s := &countingServer{sleep: sleep}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.active.Add(1)
		defer s.active.Add(-1)
		for {
			p := s.peak.Load()
			if n <= p || s.peak.CompareAndSwap(p, n) {
				break
			}
		}
		s.requests.Add(1)
		if s.sleep > 0 {
			time.Sleep(s.sleep)
		}
		w.Write([]byte("ok\n"))
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
			s.mu.Lock()
			s.opened = append(s.opened, time.Now())
			s.mu.Unlock()
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func staticTo(t *testing.T, raw string) Static {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return Static{{Method: http.MethodGet, URL: u, Header: http.Header{}}}
}

func attack(t *testing.T, ctx context.Context, cfg Config) *record.Result {
	t.Helper()
	res, err := Attack(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent != res.Requests {
		t.Errorf("sent %d but completed %d: every sent request must be accounted for", res.Sent, res.Requests)
	}
	return res
}

func TestClosedCount(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			srv := newCountingServer(t, 0)
			res := attack(t, context.Background(), Config{
				Source:    staticTo(t, srv.URL),
				Model:     Closed{Workers: 4},
				Count:     500,
				Transport: cl.opts,
			})
			if res.Requests != 500 || res.Codes[200] != 500 {
				t.Errorf("requests %d, 200s %d; want 500 and 500", res.Requests, res.Codes[200])
			}
			if got := srv.requests.Load(); got != 500 {
				t.Errorf("server saw %d requests, want 500", got)
			}
			// net/http may dial a spare connection while another is being
			// returned; the lean client never does.
			max := int64(4)
			if cl.opts.NetHTTP {
				max = 8
			}
			if got := srv.conns.Load(); got > max {
				t.Errorf("server saw %d connections, want at most %d", got, max)
			}
			if res.Latency.TotalCount() != 500 || res.Service.TotalCount() != 500 {
				t.Errorf("histograms hold %d and %d samples, want 500", res.Latency.TotalCount(), res.Service.TotalCount())
			}
		})
	}
}

func TestOpenConstantRate(t *testing.T) {
	srv := newCountingServer(t, 0)
	res := attack(t, context.Background(), Config{
		Source:   staticTo(t, srv.URL),
		Model:    Open{Pacer: Constant{Rate: 400}},
		Duration: time.Second,
		Interval: 250 * time.Millisecond,
	})
	// Requests 0..399 are due in [0, 1s): exactly 400, every one sent or,
	// on a machine too busy to keep up, counted as unsent.
	if res.Sent+res.Unsent != 400 || res.Sent < 1 {
		t.Errorf("sent %d and unsent %d, want 400 in all", res.Sent, res.Unsent)
	}
	if res.TargetRate != 400 || res.Mode != "open" {
		t.Errorf("target rate %g, mode %q; want 400, open", res.TargetRate, res.Mode)
	}
	// The intervals tile the run, which lasts at least its second, and
	// count every request sent. How evenly a busy machine spreads them
	// over the intervals is a benchmark's question.
	if n := len(res.Intervals); n < 4 {
		t.Errorf("%d intervals of 250ms in a 1s run, want at least 4", n)
	}
	var sent int64
	for i, in := range res.Intervals {
		last := i == len(res.Intervals)-1
		if in.Start != time.Duration(i)*250*time.Millisecond || in.End > in.Start+250*time.Millisecond ||
			!last && in.End != in.Start+250*time.Millisecond {
			t.Errorf("interval %d spans %s to %s, want the %dth 250ms", i, in.Start, in.End, i+1)
		}
		sent += in.Sent
	}
	if sent != res.Sent {
		t.Errorf("intervals count %d sent, the run %d", sent, res.Sent)
	}
	// Latency counts from the intended time, so it is never below service time.
	if l, s := res.Latency.ValueAtQuantile(50), res.Service.ValueAtQuantile(50); l < s {
		t.Errorf("latency p50 %d < service time p50 %d", l, s)
	}
}

// TestOpenCapCountsLag makes the target slower than the schedule with a
// small cap on requests in flight: requests must wait, and the wait shows as
// lag and in latency, not vanish.
func TestOpenCapCountsLag(t *testing.T) {
	srv := newCountingServer(t, 50*time.Millisecond)
	res := attack(t, context.Background(), Config{
		Source:   staticTo(t, srv.URL),
		Model:    Open{Pacer: Constant{Rate: 200}, MaxInFlight: 2},
		Duration: time.Second,
	})
	if got := srv.peak.Load(); got > 2 {
		t.Errorf("server saw %d requests at once, want at most 2", got)
	}
	// Two in flight at 50 ms each: about 40 requests in a second.
	if res.Sent > 60 {
		t.Errorf("sent %d, want about 40 with 2 in flight of 50ms", res.Sent)
	}
	lag, _ := record.Quantile(res.Lag, 0.5)
	lat, _ := record.Quantile(res.Latency, 0.5)
	svc, _ := record.Quantile(res.Service, 0.5)
	if lag < 200*time.Millisecond {
		t.Errorf("lag p50 %s, want the queueing to show (hundreds of ms)", lag)
	}
	if lat < svc+lag*9/10 {
		t.Errorf("latency p50 %s does not include lag %s over service time %s", lat, lag, svc)
	}
	if res.Unsent < 100 {
		t.Errorf("unsent %d, want the requests due but never sent counted (about 160)", res.Unsent)
	}
}

func TestOpenStages(t *testing.T) {
	srv := newCountingServer(t, 0)
	res := attack(t, context.Background(), Config{
		Source: staticTo(t, srv.URL),
		// 0 → 200/s over 500ms (50 requests), then 200/s for 500ms (100).
		Model: Open{Pacer: Stages{Steps: []Stage{{500 * time.Millisecond, 200}, {500 * time.Millisecond, 200}}}},
	})
	if n := res.Sent + res.Unsent; n < 149 || n > 151 {
		t.Errorf("sent %d and unsent %d, want 150 in all", res.Sent, res.Unsent)
	}
}

func TestOpenPoisson(t *testing.T) {
	srv := newCountingServer(t, 0)
	res := attack(t, context.Background(), Config{
		Source:   staticTo(t, srv.URL),
		Model:    Open{Pacer: &Poisson{Of: Constant{Rate: 500}, Seed: 7}},
		Duration: time.Second,
	})
	// The seeded schedule fixes how many are due in the second.
	p := &Poisson{Of: Constant{Rate: 500}, Seed: 7}
	var due int64
	for ; ; due++ {
		if off, ok := p.Due(due); !ok || off >= time.Second {
			break
		}
	}
	if due < 400 || due > 600 {
		t.Fatalf("%d due in a second at 500/s", due)
	}
	if res.Sent+res.Unsent != due || res.Sent < 1 {
		t.Errorf("sent %d and unsent %d, want the %d due", res.Sent, res.Unsent, due)
	}
}

func TestRamp(t *testing.T) {
	srv := newCountingServer(t, 5*time.Millisecond)
	ramp := Ramp{Workers: 6, Burst: 2, Every: 300 * time.Millisecond}
	begin := time.Now()
	res := attack(t, context.Background(), Config{
		Source:   staticTo(t, srv.URL),
		Model:    ramp,
		Duration: 1200 * time.Millisecond,
		Interval: 100 * time.Millisecond,
	})
	// A burst starts no sooner than it is due, however late the machine
	// runs it: each worker opens its own connection, and the k-th opens
	// no sooner than its burst is due. (An interval's in-flight peak is no
	// test of this: a recorder running late closes an interval after its
	// nominal end.)
	checkBursts(t, srv, ramp, begin)
	if res.InFlightMax != 6 {
		t.Errorf("peak in flight %d, want all 6 workers", res.InFlightMax)
	}
	// Bursts at 0, 300 and 600 ms: the load holds from the last.
	if res.HoldFrom != 600*time.Millisecond {
		t.Errorf("HoldFrom %s, want 600ms", res.HoldFrom)
	}
	for _, tt := range []struct {
		r    Ramp
		want time.Duration
	}{{Ramp{Workers: 7, Burst: 2, Every: time.Second}, 3 * time.Second}, {Ramp{Workers: 2, Burst: 2, Every: time.Second}, 0},
		{Ramp{Workers: 3, Burst: 5, Every: time.Second}, 0}, {Ramp{Workers: 600, Burst: 100, Every: 10 * time.Second}, 50 * time.Second}} {
		if got := tt.r.Hold(); got != tt.want {
			t.Errorf("%+v.Hold() = %s, want %s", tt.r, got, tt.want)
		}
	}
}

// checkBursts checks that no connection of ramp's workers, each opening
// its own, opened at srv before its burst was due, counting from begin.
func checkBursts(t *testing.T, srv *countingServer, ramp Ramp, begin time.Time) {
	t.Helper()
	opened := srv.openedAt()
	if len(opened) < ramp.Workers {
		t.Fatalf("%d connections, want one per worker, %d", len(opened), ramp.Workers)
	}
	for k, at := range opened[:ramp.Workers] {
		due := time.Duration(k/ramp.Burst) * ramp.Every
		if got := at.Sub(begin); got < due {
			t.Errorf("connection %d opened %s after the attack began, before its burst was due at %s", k, got, due)
		}
	}
}

func TestSequential(t *testing.T) {
	srv := newCountingServer(t, 0)
	res := attack(t, context.Background(), Config{
		Source: staticTo(t, srv.URL),
		Model:  Sequential{},
		Count:  100,
	})
	if res.Requests != 100 {
		t.Errorf("requests %d, want 100", res.Requests)
	}
	if got := srv.peak.Load(); got != 1 {
		t.Errorf("server saw %d at once, want 1", got)
	}
	if got := srv.conns.Load(); got != 1 {
		t.Errorf("server saw %d connections, want 1", got)
	}
}

func TestConnectionCap(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			srv := newCountingServer(t, time.Millisecond)
			opts := cl.opts
			opts.Connections = 2
			res := attack(t, context.Background(), Config{
				Source:    staticTo(t, srv.URL),
				Model:     Closed{Workers: 8},
				Count:     200,
				Transport: opts,
			})
			if res.Requests != 200 {
				t.Errorf("requests %d, want 200", res.Requests)
			}
			if got := srv.conns.Load(); got > 2 {
				t.Errorf("server saw %d connections, want at most 2", got)
			}
			if lag, _ := record.Quantile(res.Lag, 0.5); lag < 500*time.Microsecond {
				t.Errorf("lag p50 %s: 8 workers on 2 connections must wait", lag)
			}
		})
	}
}

// TestWarmupNotCounted runs an open loop after a warm-up of the same
// load, on event loops and on goroutines (net/http), at a constant rate
// and in Poisson arrivals: each phase runs the schedule from its start.
func TestWarmupNotCounted(t *testing.T) {
	for _, tt := range []struct {
		name  string
		pacer Pacer
		opts  Options
	}{
		{"constant", Constant{Rate: 200}, Options{}},
		{"constant nethttp", Constant{Rate: 200}, Options{NetHTTP: true}},
		{"poisson", &Poisson{Of: Constant{Rate: 200}, Seed: 1}, Options{}},
		{"poisson nethttp", &Poisson{Of: Constant{Rate: 200}, Seed: 1}, Options{NetHTTP: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newCountingServer(t, 0)
			res := attack(t, context.Background(), Config{
				Source:    staticTo(t, srv.URL),
				Model:     Open{Pacer: tt.pacer},
				Transport: tt.opts,
				Duration:  500 * time.Millisecond,
				Warmup:    500 * time.Millisecond,
			})
			// On a busy machine the schedule may fall behind: what was due
			// and not sent shows as unsent, so the measured phase always
			// accounts for the requests due in it (100 at a constant rate,
			// about as many in Poisson arrivals), and the warm-up for at
			// most its own.
			_, constant := tt.pacer.(Constant)
			if due := res.Sent + res.Unsent; due < 60 || due > 140 || constant && due != 100 {
				t.Errorf("measured %d (and %d unsent), want the 100 or so due after warm-up", res.Sent, res.Unsent)
			}
			if res.WarmupRequests < 1 || res.WarmupRequests > 140 {
				t.Errorf("warm-up requests %d, want 1 to the 100 or so due", res.WarmupRequests)
			}
			if got := srv.requests.Load(); got != res.WarmupRequests+res.Sent {
				t.Errorf("server saw %d, want the %d warm-up and %d measured requests", got, res.WarmupRequests, res.Sent)
			}
		})
	}
}

// TestOpenJobAfterStop hands an open-loop worker a job just as its phase
// stops: the job was due before the end and never sent, so it counts as
// unsent rather than vanishing from the schedule.
func TestOpenJobAfterStop(t *testing.T) {
	srv := newCountingServer(t, 0)
	cfg := Config{Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 10}}}
	tr, err := NewTransport(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	r := newRunner(context.Background(), &cfg, tr, nil, time.Minute, 0)
	r.begin(0, nil)
	jobs := make(chan job)
	r.wg.Add(1)
	go r.openWorker(0, jobs, job{seq: 0, due: r.start})
	jobs <- job{seq: 1, due: r.start} // taken once the first is done
	for srv.requests.Load() < 2 {     // the worker is past its check of the stop
		time.Sleep(time.Millisecond)
	}
	r.halt()
	jobs <- job{seq: 2, due: r.start} // taken after the stop
	close(jobs)
	r.wg.Wait()
	res := r.result()
	if res.Sent != 2 || res.Unsent != 1 {
		t.Errorf("sent %d, unsent %d; want 2 and 1", res.Sent, res.Unsent)
	}
}

func TestInterruptDrains(t *testing.T) {
	srv := newCountingServer(t, 100*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	go func() {
		// Interrupt once every worker has a request in flight, however
		// slowly the attack started.
		for srv.requests.Load() < 5 {
			time.Sleep(time.Millisecond)
		}
		cancelled = time.Now()
		cancel()
	}()
	res := attack(t, ctx, Config{
		Source:   staticTo(t, srv.URL),
		Model:    Closed{Workers: 5},
		Duration: time.Minute,
	})
	// Far less than the minute the attack would run; the requests in
	// flight take 100 ms.
	if el := time.Since(cancelled); el > 10*time.Second {
		t.Errorf("took %s after the interrupt", el)
	}
	if !res.Interrupted {
		t.Error("result not marked interrupted")
	}
	// Requests in flight at the interrupt were let finish, with responses.
	if res.ErrorsTotal != 0 || res.Requests < 5 || res.Requests != srv.requests.Load() {
		t.Errorf("requests %d, errors %d, server saw %d; want every request the server saw finished, none cut",
			res.Requests, res.ErrorsTotal, srv.requests.Load())
	}
}

func TestScenarioSteps(t *testing.T) {
	var mu sync.Mutex
	objects := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.Method {
		case http.MethodPost:
			objects[r.URL.Path] = true
			w.WriteHeader(http.StatusCreated)
		case http.MethodGet, http.MethodPut:
			if !objects[r.URL.Path] {
				w.WriteHeader(http.StatusNotFound)
			}
		case http.MethodDelete:
			if !objects[r.URL.Path] {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			delete(objects, r.URL.Path)
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	yaml := `steps:
  - {name: create, method: POST, url: "` + srv.URL + `/objects/o-{{.Worker}}-{{.Iter}}", body: "{}"}
  - {name: update, method: PUT, url: "` + srv.URL + `/objects/o-{{.Worker}}-{{.Iter}}", body: "{}"}
  - {name: get, url: "` + srv.URL + `/objects/o-{{.Worker}}-{{.Iter}}"}
  - {name: delete, method: DELETE, url: "` + srv.URL + `/objects/o-{{.Worker}}-{{.Iter}}"}
`
	sc, err := ParseScenario("crud.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	res := attack(t, context.Background(), Config{Source: sc, Model: Closed{Workers: 3}, Count: 30})
	if res.Requests != 120 {
		t.Errorf("requests %d, want 30 iterations × 4 steps", res.Requests)
	}
	want := map[string]int{"create": 201, "update": 200, "get": 200, "delete": 204}
	if len(res.StepStats) != 4 {
		t.Fatalf("%d steps in the result, want 4", len(res.StepStats))
	}
	for _, st := range res.StepStats {
		if st.Requests != 30 || st.Codes[want[st.Name]] != 30 {
			t.Errorf("step %s: %d requests, codes %v; want 30 × %d", st.Name, st.Requests, st.Codes, want[st.Name])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(objects) != 0 {
		t.Errorf("%d objects left: steps ran out of order", len(objects))
	}
}

// TestOpenSecondP runs an open loop on goroutines with one P: the
// schedule's thread gets a second one for the phase, so that it sleeps on
// a thread of its own rather than on the runtime's millisecond timers, and
// the first P count is back once the attack ends.
func TestOpenSecondP(t *testing.T) {
	srv := newCountingServer(t, 0)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var during atomic.Int64
	res := attack(t, context.Background(), Config{
		Source:    staticTo(t, srv.URL),
		Model:     Open{Pacer: Constant{Rate: 200}},
		Count:     20,
		Transport: Options{NetHTTP: true},
		Started:   func(*record.Recorder) { during.Store(int64(runtime.GOMAXPROCS(0))) },
	})
	if res.Requests != 20 {
		t.Errorf("requests %d, want 20", res.Requests)
	}
	if got := during.Load(); got != 2 {
		t.Errorf("GOMAXPROCS %d during the open loop, want 2", got)
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS %d after the attack, want the 1 it found", got)
	}
}
