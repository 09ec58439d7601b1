//go:build linux

package load

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// withProcs runs the test with n event loops whatever the rate, on n+1
// Ps.
func withProcs(t *testing.T, n int) {
	old, oldRate := runtime.GOMAXPROCS(n+1), loopRate
	loopRate = 1
	t.Cleanup(func() { runtime.GOMAXPROCS(old); loopRate = oldRate })
}

// TestEventLoopsKeepTheSchedule checks that the loops together send
// exactly the schedule asked, each request at its own intended time,
// however they split it.
func TestEventLoopsKeepTheSchedule(t *testing.T) {
	pacers := map[string]func() Pacer{
		"constant": func() Pacer { return Constant{Rate: 3000} },
		"poisson":  func() Pacer { return &Poisson{Of: Constant{Rate: 3000}, Seed: 11} },
		"stages": func() Pacer {
			return &Poisson{Of: Stages{Start: 500, Steps: []Stage{{100 * time.Millisecond, 4000}}}, Seed: 3}
		},
	}
	for _, procs := range []int{1, 2} {
		for name, mk := range pacers {
			t.Run(name, func(t *testing.T) {
				withProcs(t, procs)
				srv := newCountingServer(t, 0)
				const n = 200
				res := attack(t, context.Background(), Config{
					Source: staticTo(t, srv.URL), Model: Open{Pacer: mk()}, Count: n, KeepRaw: n,
				})
				var want, got []time.Duration
				p := mk()
				for i := range int64(n) {
					off, ok := p.Due(i)
					if !ok {
						break
					}
					want = append(want, off)
				}
				for _, r := range res.Raw {
					got = append(got, r.Intended)
					if r.Sent < r.Intended {
						t.Errorf("a request due at %s left at %s, before it was due", r.Intended, r.Sent)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%d procs: %d intended times, want the %d of the schedule, exactly", procs, len(got), len(want))
				}
				if res.Sent != int64(len(want)) || res.Codes[200] != res.Sent {
					t.Errorf("sent %d, 200s %d; want %d", res.Sent, res.Codes[200], len(want))
				}
			})
		}
	}
}

// TestEventLoopsCountUnsentAtDeadline stalls a loop across the end of the
// run: every request due before the end is sent or counted unsent, never
// lost.
func TestEventLoopsCountUnsentAtDeadline(t *testing.T) {
	for _, procs := range []int{1, 2} {
		withProcs(t, procs)
		srv := newCountingServer(t, 0)
		// 200/s for 300 ms: requests 0..59 are due. The loop building
		// request 50 (due at 250 ms) stalls until past the end.
		testHookBuild = func(seq int64, _ int) {
			if seq == 50 {
				time.Sleep(150 * time.Millisecond)
			}
		}
		res := attack(t, context.Background(), Config{
			Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 200}}, Duration: 300 * time.Millisecond,
		})
		testHookBuild = nil
		if res.Sent+res.Unsent != 60 || res.Unsent < 1 {
			t.Errorf("%d procs: sent %d and unsent %d, want 60 in all, some unsent", procs, res.Sent, res.Unsent)
		}
	}
}

// TestEventLoopsCapCountsUnsent holds every connection on a slow target:
// the requests past the cap wait, and those still waiting at the end count
// as unsent.
func TestEventLoopsCapCountsUnsent(t *testing.T) {
	withProcs(t, 2)
	srv := newCountingServer(t, 400*time.Millisecond)
	res := attack(t, context.Background(), Config{
		Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 200}, MaxInFlight: 3},
		Duration: 300 * time.Millisecond, Transport: Options{Timeout: 5 * time.Second},
	})
	// The cap holds three in flight for longer than the run; a machine
	// that stalls the loops at the start sends fewer, and counts the rest.
	if res.Sent > 3 || res.Sent+res.Unsent != 60 {
		t.Errorf("sent %d, unsent %d; want at most 3 sent (the cap) and 60 in all", res.Sent, res.Unsent)
	}
	if got := srv.peak.Load(); got > 3 {
		t.Errorf("server saw %d requests at once, want at most 3", got)
	}
}

// accepted returns how many connections srv has accepted, once it has
// accepted want or 5 s have passed: a connection the client counted as
// open is accepted in the server's own time, later on a busy machine.
func accepted(srv *countingServer, want int64) int64 {
	for end := time.Now().Add(5 * time.Second); srv.conns.Load() < want && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
	return srv.conns.Load()
}

// TestEventLoopsGrowAhead: a pool sized for a faster target than the one
// it meets grows once responses tell the service time, with connections
// opened for no request yet, and counts them as opened during the load.
func TestEventLoopsGrowAhead(t *testing.T) {
	withProcs(t, 2)
	srv := newCountingServer(t, 5*time.Millisecond)
	const n = 200
	var ahead atomic.Int64
	testHookAhead = func() { ahead.Add(1) }
	t.Cleanup(func() { testHookAhead = nil })
	res := attack(t, context.Background(), Config{
		Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 1000}}, Count: n, Pool: 1,
	})
	if res.Requests != n {
		t.Fatalf("completed %d of %d", res.Requests, n)
	}
	if got, want := accepted(srv, res.Pool+res.Connect.TotalCount()), res.Pool+res.Connect.TotalCount(); got != want {
		t.Errorf("server saw %d connections; the result counts %d before the run and %d during it",
			got, res.Pool, res.Connect.TotalCount())
	}
	// Little's law: 5 in flight at 1,000/s and 5 ms; the pool grows to
	// twice that, and one more, ahead of need.
	if srv.conns.Load() < 11 || ahead.Load() < 1 {
		t.Errorf("%d connections in all, %d of them opened ahead of a request; want at least 11 and some ahead",
			srv.conns.Load(), ahead.Load())
	}
}

// TestEventLoopsPool opens the pool asked for before the load, and counts
// every connection opened after it.
func TestEventLoopsPool(t *testing.T) {
	withProcs(t, 2)
	srv := newCountingServer(t, 0)
	res := attack(t, context.Background(), Config{
		Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 500}}, Count: 50, Pool: 5,
	})
	if res.Pool != 5 {
		t.Errorf("pool %d, want 5", res.Pool)
	}
	if got, want := accepted(srv, res.Pool+res.Connect.TotalCount()), res.Pool+res.Connect.TotalCount(); got != want {
		t.Errorf("server saw %d connections; the result counts %d before the run and %d during it",
			got, res.Pool, res.Connect.TotalCount())
	}
	// Without a pool every connection is opened during the run, and counted.
	srv2 := newCountingServer(t, 0)
	res = attack(t, context.Background(), Config{
		Source: staticTo(t, srv2.URL), Model: Open{Pacer: Constant{Rate: 500}}, Count: 20, Pool: -1,
	})
	if res.Pool != 0 || res.Connect.TotalCount() != accepted(srv2, res.Connect.TotalCount()) || res.Connect.TotalCount() < 1 {
		t.Errorf("pool %d, %d connections counted, server saw %d; want 0 and the server's count",
			res.Pool, res.Connect.TotalCount(), srv2.conns.Load())
	}
}

// TestEventLoopsScenario runs ordered steps per iteration on the loops:
// each iteration's steps in order, none lost, every object deleted.
func TestEventLoopsScenario(t *testing.T) {
	withProcs(t, 2)
	var mu sync.Mutex
	steps := map[string][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		steps[r.URL.Path] = append(steps[r.URL.Path], r.Method)
		mu.Unlock()
	}))
	defer srv.Close()
	sc := crudScenario(t, srv.URL)
	if !eventLoops(&Config{Source: sc}, Open{}, Options{}) {
		t.Fatal("a scenario over http does not run on the event loops")
	}
	res := attack(t, context.Background(), Config{Source: sc, Model: Open{Pacer: Constant{Rate: 1000}}, Count: 40})
	mu.Lock()
	defer mu.Unlock()
	if res.Requests != 120 || len(steps) != 40 {
		t.Errorf("%d requests on %d objects, want 120 on 40", res.Requests, len(steps))
	}
	for path, got := range steps {
		if strings.Join(got, ",") != "POST,GET,DELETE" {
			t.Errorf("%s: steps %v, want POST, GET, DELETE in order", path, got)
		}
	}
}

// crudScenario returns a scenario that creates, reads and deletes an
// object per iteration at base, named /o-WORKER-ITER.
func crudScenario(t *testing.T, base string) *Scenario {
	t.Helper()
	yaml := `steps:
  - {name: create, method: POST, url: "` + base + `/o-{{.Worker}}-{{.Iter}}", body: "{}"}
  - {name: get, url: "` + base + `/o-{{.Worker}}-{{.Iter}}"}
  - {name: delete, method: DELETE, url: "` + base + `/o-{{.Worker}}-{{.Iter}}"}
`
	sc, err := ParseScenario("crud.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestEventLoopsOnlyPlainHTTP keeps every other protocol on the
// goroutines.
func TestEventLoopsOnlyPlainHTTP(t *testing.T) {
	open := Open{Pacer: Constant{Rate: 1}}
	for _, tt := range []struct {
		url  string
		opts Options
		want bool
	}{
		{"http://127.0.0.1:1/", Options{}, true},
		{"http://127.0.0.1:1/", Options{UnixSocket: "/tmp/x.sock"}, true},
		{"https://127.0.0.1:1/", Options{}, false},
		{"http://127.0.0.1:1/", Options{H2C: true}, false},
		{"http://127.0.0.1:1/", Options{NetHTTP: true}, false},
	} {
		cfg := Config{Source: staticTo(t, tt.url)}
		for _, m := range []Model{open, Closed{Workers: 1}, Ramp{Workers: 2, Burst: 1, Every: time.Second}} {
			if got := eventLoops(&cfg, m, tt.opts); got != tt.want {
				t.Errorf("%s %+v %T: event loops %v, want %v", tt.url, tt.opts, m, got, tt.want)
			}
		}
	}
}

// TestEventLoopAdapt checks when a loop batches its wake-ups: only once
// it falls behind at a rate where wake-ups cost, more while it still does,
// less once it keeps up, and never for a few late wake-ups at a low rate.
func TestEventLoopAdapt(t *testing.T) {
	many := int(batchWakes * adaptEvery.Seconds()) // wake-ups in a window at batchWakes a second
	for _, tt := range []struct {
		name        string
		batch       time.Duration
		wakes, late int
		want        time.Duration
	}{
		{"keeps up", 0, 10 * many, 0, 0},
		{"falls behind", 0, many, many / 10, batchLeast},
		{"still behind", batchLeast, many, many / 10, 2 * batchLeast},
		{"behind at the most", batchMax, many, many / 10, batchMax},
		{"between the marks", 4 * batchLeast, many, many / 100, 4 * batchLeast},
		{"keeps up again", 4 * batchLeast, many, 0, 2 * batchLeast},
		{"stops batching", batchLeast, many, 0, 0},
		{"late at a low rate", 0, many / 2, many / 4, 0},
		{"no wake-up", batchLeast, 0, 0, batchLeast},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &evloop{batch: tt.batch, wakes: tt.wakes, lateOnes: tt.late}
			l.adapt()
			if l.batch != tt.want || l.deaf != (tt.want > 0) {
				t.Errorf("batch %s, deaf %t; want %s, %t", l.batch, l.deaf, tt.want, tt.want > 0)
			}
			if l.wakes != 0 || l.lateOnes != 0 {
				t.Errorf("counts %d and %d left; want them reset", l.wakes, l.lateOnes)
			}
		})
	}
}

// TestBatchFor checks the batch a loop's rate calls for whether or not it
// falls behind: none below batchFrom, batchMax from batchFull.
func TestBatchFor(t *testing.T) {
	mid := (batchFrom + batchFull) / 2
	for _, tt := range []struct {
		rate float64
		want time.Duration
	}{{0, 0}, {20_000, 0}, {batchFrom, 0}, {mid, batchMax / 2}, {batchFull, batchMax}, {1e6, batchMax}} {
		if got := batchFor(tt.rate); got != tt.want {
			t.Errorf("batchFor(%g) = %s, want %s", tt.rate, got, tt.want)
		}
	}
	// A loop that keeps up again halves its batch down to what its rate
	// calls for, not below.
	l := &evloop{batch: batchMax, least: batchMax / 2, wakes: 1000}
	l.adapt()
	l.wakes = 1000
	l.adapt()
	if l.batch != batchMax/2 || !l.deaf {
		t.Errorf("batch %s, deaf %t; want %s and deaf", l.batch, l.deaf, batchMax/2)
	}
}

// TestEventLoopNeed checks what holds the pool back past its size: the
// connections the loop's rate needs at the target's service time, and a
// batching loop running behind its own schedule.
func TestEventLoopNeed(t *testing.T) {
	for _, tt := range []struct {
		name    string
		open    int
		service time.Duration
		behind  time.Duration
		batch   time.Duration
		want    bool
	}{
		{"no response yet", 1000, 0, 0, 0, true},
		{"within the need", 30, 2 * time.Millisecond, 0, 0, true}, // 5000/s × 2 ms × 2 + 16 = 36
		{"past the need", 40, 2 * time.Millisecond, 0, 0, false},
		{"batching, behind lately", 4, 0, time.Second - behindFor/2, batchMax, false},
		{"batching, behind long ago", 4, 0, time.Second - 2*behindFor, batchMax, true},
		{"behind lately, not batching", 4, 0, time.Second - behindFor/2, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &evloop{limit: 10_000, open: tt.open, rate: 5000, service: tt.service, now: time.Second, behind: tt.behind, batch: tt.batch}
			l.queue = make([]evjob, 100)
			if got := l.mayGrow(); got != tt.want {
				t.Errorf("mayGrow = %t, want %t (need %d)", got, tt.want, l.need())
			}
		})
	}
}

func TestLoopCount(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	for _, tt := range []struct {
		p     Pacer
		limit int
		want  int
	}{
		{Constant{Rate: 1000}, 100, 1},
		{Constant{Rate: loopRate + 1}, 100, 2},
		{Constant{Rate: 10 * loopRate}, 100, 3}, // a CPU left for the rest
		{Constant{Rate: 10 * loopRate}, 2, 2},
		{Stages{Steps: []Stage{{time.Second, 2 * loopRate}, {time.Second, 0}}}, 100, 2},
		{&Poisson{Of: Constant{Rate: 10 * loopRate}}, 100, 3},
	} {
		if got := loopCount(tt.p, tt.limit, 0); got != tt.want {
			t.Errorf("loopCount(%v, %d) = %d, want %d", tt.p, tt.limit, got, tt.want)
		}
	}
	// Two CPUs, or one: one loop, whatever the rate.
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		if got := loopCount(Constant{Rate: 10 * loopRate}, 100, 0); got != 1 {
			t.Errorf("with %d Ps: %d loops, want 1", procs, got)
		}
	}
}

// TestEventLoopDialsTheNextAddress: a connection whose first address
// refuses it goes on to the next, and the next dial starts there.
func TestEventLoopDialsTheNextAddress(t *testing.T) {
	srv := newCountingServer(t, 0)
	good := srv.Listener.Addr().(*net.TCPAddr)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().(*net.TCPAddr)
	ln.Close() // nothing listens there now
	e := &engine{timeout: 5 * time.Second}
	l, err := newLoop(e, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	l.target = 4
	inet := func(a *net.TCPAddr) sockAddr {
		sa := &unix.SockaddrInet4{Port: a.Port}
		copy(sa.Addr[:], a.IP.To4())
		return sockAddr{unix.AF_INET, sa, a}
	}
	l.addrs["k"] = &dialAddrs{list: []sockAddr{inet(refused), inet(good)}}
	l.open++
	c := l.dial("k")
	for end := time.Now().Add(5 * time.Second); c.state == connDialing && time.Now().Before(end); {
		l.dispatch(l.wait(10 * time.Millisecond))
	}
	if c.state != connIdle || l.addrs["k"].pref != 1 || c.addr.String() != good.String() {
		t.Fatalf("state %d, preferred address %d, connected to %v; want idle, 1, %v", c.state, l.addrs["k"].pref, c.addr, good)
	}
	for end := time.Now().Add(5 * time.Second); srv.conns.Load() == 0 && time.Now().Before(end); {
		time.Sleep(time.Millisecond) // the server accepts in its own time
	}
	if srv.conns.Load() != 1 {
		t.Errorf("server saw %d connections, want 1", srv.conns.Load())
	}
}

// TestEventLoopsInterrupt stops sending at the interrupt, lets the
// requests in flight finish and counts nothing unsent: the user chose to
// stop.
func TestEventLoopsInterrupt(t *testing.T) {
	withProcs(t, 2)
	srv := newCountingServer(t, 100*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.requests.Load() < 5 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	res := attack(t, ctx, Config{Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 200}}, Duration: time.Minute})
	if !res.Interrupted || res.Unsent != 0 {
		t.Errorf("interrupted %v, unsent %d; want true and 0", res.Interrupted, res.Unsent)
	}
	if res.ErrorsTotal != 0 || res.Requests < 5 || res.Requests != srv.requests.Load() {
		t.Errorf("requests %d, errors %d, server saw %d; want every request the server saw finished, none cut",
			res.Requests, res.ErrorsTotal, srv.requests.Load())
	}
}

// TestEventLoopsNoKeepAlive opens a connection per request and counts
// each.
func TestEventLoopsNoKeepAlive(t *testing.T) {
	withProcs(t, 2)
	srv := newCountingServer(t, 0)
	res := attack(t, context.Background(), Config{Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 500}},
		Count: 30, Pool: -1, Transport: Options{NoKeepAlive: true}})
	if res.Codes[200] != 30 || srv.conns.Load() != 30 || res.Connect.TotalCount() != 30 {
		t.Errorf("200s %d, server saw %d connections, %d counted; want 30 of each", res.Codes[200], srv.conns.Load(), res.Connect.TotalCount())
	}
}

// TestEventLoopsSleepThroughArrivals makes a loop sleep through the
// arrival of every response until its next request is due, 100 ms later:
// the kernel's stamp of the arrival, not the late read, ends each response,
// so the service time is the target's (well under a millisecond here), not
// the loop's sleep.
func TestEventLoopsSleepThroughArrivals(t *testing.T) {
	withProcs(t, 1)
	oldMax := deafMax
	deafAlways, deafMax = true, time.Second
	t.Cleanup(func() { deafAlways, deafMax = false, oldMax })
	var naps atomic.Int64
	testHookNap = func() { naps.Add(1) }
	t.Cleanup(func() { testHookNap = nil })
	srv := newCountingServer(t, 0)
	const n = 12
	res := attack(t, context.Background(), Config{
		Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 10}}, Count: n, KeepRaw: n,
	})
	// Between each two requests but the first few, which may come before
	// the kernel stamps: a loop without stamps wakes for arrivals.
	if got := naps.Load(); got < n/2 {
		t.Errorf("the loop slept through arrivals %d times, want at least %d", got, n/2)
	}
	if res.Requests != n || res.Codes[200] != n {
		t.Fatalf("%d requests, %d answered 200; want %d", res.Requests, res.Codes[200], n)
	}
	var service []time.Duration
	for _, r := range res.Raw {
		service = append(service, r.Done-r.Sent)
	}
	// A stamp can precede the write's return: the breakdown still counts.
	if got := res.Wait.TotalCount(); got != n {
		t.Errorf("%d requests have a wait and read breakdown, want all %d", got, n)
	}
	slices.Sort(service)
	// Read when the loop wakes, the median would be some 100 ms; the
	// target, in this process, answers in far less however busy the
	// machine.
	if med := service[len(service)/2]; med >= 50*time.Millisecond {
		t.Errorf("median service time %s; want the target's, not the loop's 100 ms sleep", med)
	}
}

// TestArrivalStamp reads, 20 ms late, bytes a server wrote: their stamp
// is when the server's write put them on the socket, not the read. The
// kernel turns stamping on in the background when a machine's first
// socket asks for it, so the first reads may come unstamped.
func TestArrivalStamp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	stamp(fd)
	port := ln.Addr().(*net.TCPAddr).Port
	if err := unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	l := &evloop{}
	l.tick()
	buf := make([]byte, 16)
	for range 50 {
		before := Now()
		if _, err := c.Write([]byte("ok")); err != nil {
			t.Fatal(err)
		}
		after := Now()
		time.Sleep(20 * time.Millisecond)
		n, at, err := l.recv(fd, buf)
		read := Now()
		if err != nil || n != 2 {
			t.Fatalf("read %d bytes, %v; want 2", n, err)
		}
		got := l.stamped(at, before, read)
		if !l.stamps {
			if got != read {
				t.Fatalf("an unstamped read ended at %s, want when it was read, %s", got, read)
			}
			continue
		}
		if got < before || got > after+time.Microsecond {
			t.Errorf("stamped %s; want within the write, %s to %s (read at %s)", got, before, after, read)
		}
		// A stamp from before the request left is not believed.
		if l.stamped(at, after+time.Millisecond, read); l.stamps {
			t.Errorf("a stamp before the request's send was believed")
		}
		return
	}
	t.Fatal("50 reads, none stamped")
}

// TestEventLoopPatience checks when a request that found every kept
// connection busy gets one opened for it: past the pool, after waiting as
// long as the loop's dials lately took (none before one was timed), at
// most GrowAfter, and never held back by how late the loop itself runs.
func TestEventLoopPatience(t *testing.T) {
	for _, tt := range []struct {
		name     string
		open     int
		dialCost time.Duration
		waited   time.Duration
		want     bool
	}{
		{"within the pool", 1, time.Millisecond, 0, true},
		{"no dial timed yet", 4, 0, 0, true},
		{"waited less than a dial", 4, 80 * time.Microsecond, 79 * time.Microsecond, false},
		{"waited a dial", 4, 80 * time.Microsecond, 80 * time.Microsecond, true},
		{"slow dials wait GrowAfter at most", 4, time.Second, GrowAfter, true},
		{"slow dials, not yet", 4, time.Second, GrowAfter - 1, false},
		{"at the cap", 10, 0, time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &evloop{limit: 10, target: 4, open: tt.open, dialCost: tt.dialCost}
			// The loop runs a second behind its schedule: the request was
			// due long before it queued, which must not count as waiting.
			const queued = 5 * time.Second
			j := evjob{due: queued - time.Second, queued: queued}
			l.queue = []evjob{j}
			if got := l.mayDial(j, queued+tt.waited); got != tt.want {
				t.Errorf("mayDial after waiting %s = %t, want %t", tt.waited, got, tt.want)
			}
		})
	}
}

// TestEventLoopDialLearns checks the average of dial times the patience
// reads: the first dial sets it, later ones move it an eighth of the way.
func TestEventLoopDialLearns(t *testing.T) {
	l := &evloop{}
	l.dialed(80 * time.Microsecond)
	l.dialed(160 * time.Microsecond)
	if want := 90 * time.Microsecond; l.dialCost != want {
		t.Errorf("dial cost %s, want %s", l.dialCost, want)
	}
}

// TestEventLoopsWarmupHandsOver checks that a warm-up's connections carry
// the measured load: every connection the server saw was either open when
// the measured load started (the result's pool, which holds at least
// twice the warm-up's peak in flight) or opened during it and counted,
// none opened twice for one pool. Two attacks one after the other, as a
// shard's warm-up and measure once were, open the pool again.
func TestEventLoopsWarmupHandsOver(t *testing.T) {
	srv := newCountingServer(t, 2*time.Millisecond)
	a, err := NewAttacker(Config{Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 500}}, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	warm, err := a.Warm(context.Background(), Open{Pacer: Constant{Rate: 1000}}, 300*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	opened := srv.conns.Load()
	res := a.Run(context.Background(), time.Time{}, nil)
	if warm.Requests < 1 || res.Requests < 1 {
		t.Fatalf("warm-up sent %d, measured load %d; want both some", warm.Requests, res.Requests)
	}
	if got, want := accepted(srv, res.Pool+res.Connect.TotalCount()), res.Pool+res.Connect.TotalCount(); got != want {
		t.Errorf("server saw %d connections; the measured load had %d at its start and opened %d", got, res.Pool, res.Connect.TotalCount())
	}
	if res.Pool < opened {
		t.Errorf("measured load started on %d connections; the warm-up had opened %d", res.Pool, opened)
	}
	if srv.requests.Load() != warm.Requests+res.Requests {
		t.Errorf("server answered %d; warm-up %d and measured %d", srv.requests.Load(), warm.Requests, res.Requests)
	}
}

// TestAttackerRunAt checks that a measured load asked to start at an
// instant starts on it, as shards that agreed on one do, however early it
// was readied.
func TestAttackerRunAt(t *testing.T) {
	var mu sync.Mutex
	var first time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if first.IsZero() {
			first = time.Now()
		}
		mu.Unlock()
		w.Write([]byte("ok\n"))
	}))
	defer srv.Close()
	a, err := NewAttacker(Config{Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 100}}, Count: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	at := time.Now().Add(50 * time.Millisecond)
	res := a.Run(context.Background(), at, nil)
	if !res.Start.Equal(at) {
		t.Errorf("started at %s, want %s", res.Start, at)
	}
	if res.Requests != 5 {
		t.Errorf("sent %d, want 5", res.Requests)
	}
	mu.Lock()
	defer mu.Unlock()
	if first.Before(at) {
		t.Errorf("the first request arrived %s before the start", at.Sub(first))
	}
}

// TestGCPercent gives event loops, which allocate next to nothing per
// request, a tight heap goal, and goroutine loads, whose client libraries
// allocate per request, a loose one.
func TestGCPercent(t *testing.T) {
	h, _ := url.Parse("http://127.0.0.1:8080/")
	g, _ := url.Parse("grpc://127.0.0.1:50051/grpc.health.v1.Health/Check")
	for _, tc := range []struct {
		name string
		cfg  Config
		want int
	}{
		{"grpc", Config{Source: Static{{URL: g}}, Model: Closed{Workers: 50}}, 400},
		{"net/http", Config{Source: Static{{URL: h}}, Model: Closed{Workers: 50}, Transport: Options{NetHTTP: true}}, 400},
		{"no source", Config{Model: Closed{Workers: 1}}, 400},
	} {
		if got := GCPercent(tc.cfg); got != tc.want {
			t.Errorf("%s: GCPercent %d, want %d", tc.name, got, tc.want)
		}
	}
	lean := Config{Source: Static{{URL: h}}, Model: Sequential{}}
	if want := map[bool]int{true: 25, false: 400}[loopsSupported]; GCPercent(lean) != want {
		t.Errorf("lean HTTP/1.1: GCPercent %d, want %d (event loops here: %v)", GCPercent(lean), want, loopsSupported)
	}
}
