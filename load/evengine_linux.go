//go:build linux

package load

import (
	"runtime"
	"slices"
	"sync"
	"time"
)

// loopsSupported: Linux has epoll.
const loopsSupported = true

// engine runs the load of the lean HTTP/1.1 client on event loops. Each
// loop is one thread that owns its connections and a share of the load.
// In an open loop, the share is every stride-th request of the schedule:
// the loop waits on epoll with a nanosecond timeout until its next request
// is due or a response arrives, sends every request due at a wake-up in
// one pass, and reads each response with one system call where it fits. A
// busy loop sleeps through arrivals until its next batch, and takes each
// response's end from the kernel's stamp of it. In a closed loop or a
// ramp, the share is some of the workers: a worker's next iteration
// begins on the connection its last one freed, within the same turn, and
// one wake-up serves every connection that became ready. Nothing is
// handed from goroutine to goroutine, and no wake-up is spent per request.
// The connections stay open from the warm-up through the measured phase.
type engine struct {
	procs   int // GOMAXPROCS before the engine raised it
	o       Options
	timeout time.Duration
	loops   []*evloop
	pool    int64 // connections opened before the load started
	closed  bool  // made for a closed loop or a ramp
	// realtime says when the loops' threads run SCHED_FIFO (Config.Realtime).
	realtime Realtime
}

// newEngine readies the event loops for model, cfg's load, and opens its
// pool of connections: for an open loop as its rate needs, for a closed
// loop one per worker.
func newEngine(cfg *Config, model Model, o Options) (*engine, error) {
	e := &engine{o: o, timeout: o.timeout(), procs: runtime.GOMAXPROCS(0), realtime: cfg.Realtime}
	var n, limit, pool int
	switch m := model.(type) {
	case Open:
		limit = m.MaxInFlight
		if limit <= 0 {
			limit = DefaultMaxInFlight
		}
		if o.Connections > 0 {
			limit = min(limit, o.Connections)
		}
		n = loopCount(m.Pacer, limit, cfg.Threads)
		pool = poolSize(cfg.Pool, m.Pacer, n, limit)
	default:
		e.closed = true
		workers := int(cfg.Shard.Share(int64(rampOf(model).Workers)))
		keys := firstKeys(cfg.Source)
		// A worker holds one connection per address its iterations go
		// to (a scenario's steps may each go to another): its first is
		// opened before the load, the others as it needs them.
		limit = workers * max(1, len(keys), len(cfg.Source.Steps()))
		if o.Connections > 0 {
			limit = min(limit, o.Connections)
		}
		n = closedLoops(min(workers, limit), onThisMachine(keys, o), cfg.Threads)
		if _, ramp := model.(Ramp); !ramp {
			// A ramp's workers open theirs as their bursts fall due.
			pool = min(workers, limit)
		}
	}
	// Each loop blocks in epoll holding its P until the runtime takes it
	// back. One P more than loops keeps one free for the rest of the
	// program (the recorder, progress, signals, the collector), so that
	// the runtime never needs to take a loop's: a loop's wake-up then
	// costs no hand-off between threads.
	if e.procs < n+1 {
		runtime.GOMAXPROCS(n + 1)
	}
	for i := range n {
		l, err := newLoop(e, i, limit/n+btoi(i < limit%n))
		if err != nil {
			e.close()
			return nil, err
		}
		e.loops = append(e.loops, l)
	}
	e.preopen(cfg.Source, pool, cfg.Pool >= 0)
	if e.closed {
		// A worker opens what it lacks at once: the cap on connections
		// is the only bound.
		for _, l := range e.loops {
			l.target = l.limit
		}
	}
	return e, nil
}

// threads returns how many event loops the engine runs.
func (e *engine) threads() int { return len(e.loops) }

// runs reports whether the engine can run m: an open loop on an engine
// made for one, or on a single loop; a closed loop or a ramp on any.
func (e *engine) runs(m Model) bool {
	switch m := m.(type) {
	case Open:
		_, ok := fork(m.Pacer)
		return len(e.loops) == 1 || ok
	case Closed, Ramp:
		return true
	}
	return false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// preopened returns how many connections were opened before the load.
func (e *engine) preopened() int64 { return e.pool }

// close closes every connection and loop.
func (e *engine) close() {
	for _, l := range e.loops {
		l.close()
	}
	runtime.GOMAXPROCS(e.procs)
}

// run runs one phase of m on every loop and returns when all are done.
// Once every loop is on its thread and waiting, ready fixes the phase's
// start (runner.begin), a little ahead, and the loops go: each is on the
// mark before its first request is due.
func (e *engine) run(r *runner, m Model, ready func()) {
	var wg, set sync.WaitGroup
	gate := make(chan struct{})
	set.Add(len(e.loops))
	for i, l := range e.loops {
		rt := e.realtime
		var p Pacer
		if o, open := m.(Open); open {
			var ok bool
			if p, ok = fork(o.Pacer); !ok {
				p = o.Pacer // one loop: it reads the schedule alone
			}
			l.rate = peakRate(o.Pacer) / float64(len(e.loops))
			l.least = batchFor(l.rate)
			l.batch, l.deaf = l.least, l.least > 0 || deafAlways // more if the loop falls behind (adapt)
			l.closed = nil
		} else {
			// A closed loop never waits for a schedule: it has no lag of
			// its own for a real-time thread to cure, nor batches.
			rt = RealtimeOff
			l.rate, l.least, l.batch, l.deaf = 0, 0, 0, false
			l.closed = newClosedShare(rampOf(m), r.cfg.Shard, i, len(e.loops))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer precise()()
			// CheckRealtime ran when the attacker was made: a failure
			// here leaves the thread as it was.
			l.sched, _ = prompt(rt, l.lastSched)
			defer func() { l.lastSched = l.sched.undo() }()
			set.Done()
			<-gate
			l.run(r, p, int64(i), int64(len(e.loops)))
		}()
	}
	set.Wait()
	ready()
	close(gate)
	wg.Wait()
}

// preopen sizes the pool at n connections, spread over the loops, and
// when open is set opens them, to the addresses of the source's first
// requests, waiting until they are open or failed (at most the request
// timeout). A failure here is not reported: the run opens what it lacks
// and counts it.
func (e *engine) preopen(src Source, n int, open bool) {
	for i, l := range e.loops {
		l.target = min(n/len(e.loops)+btoi(i < n%len(e.loops)), l.limit)
	}
	keys := firstKeys(src)
	if !open || n <= 0 || len(keys) == 0 {
		return
	}
	var wg sync.WaitGroup
	for i, l := range e.loops {
		k := n/len(e.loops) + btoi(i < n%len(e.loops))
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.preopen(keys, k)
		}()
	}
	wg.Wait()
	for _, l := range e.loops {
		e.pool += int64(l.nidle)
	}
}

// settle readies the pool for the measured phase after a warm-up ran on
// it: each loop keeps what the warm-up opened and opens more, to hold
// twice the warm-up's peak of requests in flight and what it would
// otherwise open ahead of need during the load (growAhead), so that the
// measured load, longer than its warm-up and so likely to see a higher
// peak, opens none where the warm-up needed none. An idle connection costs
// the target a few kilobytes; one opened during the load costs a request
// its connect. The pool is then every connection open.
func (e *engine) settle(src Source) {
	keys := firstKeys(src)
	var wg sync.WaitGroup
	for _, l := range e.loops {
		if l.peak == 0 || e.closed {
			// No warm-up ran here, or a closed loop's, whose workers
			// hold the connections they need: the pool is as it is.
			continue
		}
		need := min(max(2*l.peak+1, l.aheadOf()), l.limit)
		l.target, l.peak = max(l.target, need), 0
		if more := need - l.open; more > 0 && len(keys) > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l.preopen(keys, more)
			}()
		}
	}
	wg.Wait()
	e.pool = 0
	for _, l := range e.loops {
		e.pool += int64(l.open)
	}
}

// firstKeys returns the dial keys of the requests a source starts its
// iterations with, each once.
func firstKeys(src Source) []string {
	var out []string
	add := func(r *Request) {
		if k := keyOf(r); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	switch s := src.(type) {
	case Static:
		for _, r := range s {
			add(r)
		}
	case *Scenario:
		if r, err := s.Build(0, Vars{}); err == nil {
			add(r)
		}
	}
	return out
}

// preopen opens n connections to keys, in turn, and waits until each is
// open or failed.
func (l *evloop) preopen(keys []string, n int) {
	defer precise()()
	n = min(n, l.limit-l.open)
	for i := range n {
		l.open++
		if c := l.dial(keys[i%len(keys)]); c.err != nil {
			l.drop(c)
		}
	}
	end := Now() + l.e.timeout
	for l.dials > 0 {
		now := Now()
		if now >= end {
			l.expire(now + l.e.timeout)
			break
		}
		l.dispatch(l.wait(min(end-now, 10*time.Millisecond)))
	}
	// Idle connections are taken last in, first out, which keeps the
	// busy ones few and warm. The server accepts the pool's first in,
	// first out: the first requests go to those it accepted first.
	for _, cs := range l.idle {
		slices.Reverse(cs)
	}
}
