//go:build linux

package load

import (
	"net"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/record"
)

// loopsSupported: Linux has epoll.
const loopsSupported = true

// engine runs the open loop of the lean HTTP/1.1 client on event loops.
// Each loop is one thread that owns its connections and every stride-th
// request of the schedule: it waits on epoll with a nanosecond timeout
// until its next request is due or a response arrives, sends every request
// due at a wake-up in one pass, and reads each response with one system
// call where it fits. Nothing is handed from goroutine to goroutine, and no
// wake-up is spent per request. The connections stay open from the warm-up
// through the measured phase.
type engine struct {
	procs   int // GOMAXPROCS before the engine raised it
	o       Options
	timeout time.Duration
	loops   []*evloop
	pool    int64 // connections opened before the load started
}

// newEngine readies the event loops for cfg's open loop and opens its pool
// of connections.
func newEngine(cfg *Config, o Options) (*engine, error) {
	m := cfg.Model.(Open)
	limit := m.MaxInFlight
	if limit <= 0 {
		limit = DefaultMaxInFlight
	}
	if o.Connections > 0 {
		limit = min(limit, o.Connections)
	}
	n := loopCount(m.Pacer, limit)
	// Each loop blocks in epoll holding its P until the runtime takes it
	// back. One P more than loops keeps one free for the rest of the
	// program (the recorder, progress, signals, the collector), so that
	// the runtime never needs to take a loop's: a loop's wake-up then
	// costs no hand-off between threads.
	e := &engine{o: o, timeout: o.timeout(), procs: runtime.GOMAXPROCS(0)}
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
	e.preopen(cfg.Source, poolSize(cfg.Pool, m.Pacer, n, limit), cfg.Pool >= 0)
	return e, nil
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
func (e *engine) run(r *runner, m Open) {
	var wg sync.WaitGroup
	for i, l := range e.loops {
		p, ok := fork(m.Pacer)
		if !ok {
			p = m.Pacer // one loop: it reads the schedule alone
		}
		l.batch = batchFor(peakRate(m.Pacer) / float64(len(e.loops)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.run(r, p, int64(i), int64(len(e.loops)))
		}()
	}
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

// firstKeys returns the dial keys of the requests a source starts its
// iterations with, and their requests.
func firstKeys(src Source) []*Request {
	var out []*Request
	seen := map[string]bool{}
	add := func(r *Request) {
		k := r.key
		if k == "" {
			k = dialKey(r)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
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

// evjob is one iteration of the schedule: due at due, at its step.
type evjob struct {
	seq, iter int64
	step      int
	due       time.Duration
	req       *Request // built when the step began
	key       string
}

// evloop is one event loop: a thread, an epoll instance, its connections
// and its share of the schedule.
type evloop struct {
	e      *engine
	id     int
	epfd   int
	events []unix.EpollEvent
	conns  []*evconn // by slot
	gens   []int32   // generation of each slot, against stale events
	free   []int32   // free slots
	idle   map[string][]*evconn
	nidle  int
	open   int // connections open or being dialed
	dials  int // connections being dialed
	// untried counts the connections opened for a request that have not
	// carried a response yet.
	untried int
	limit   int // cap on connections, so on requests in flight
	target  int // the pool's size: connections opened without waiting
	busy    int // connections carrying a request
	queue   []evjob
	qhead   int
	addrs   map[string]*dialAddrs
	pwait2  bool // epoll_pwait2 works: waits in nanoseconds
	ts      unix.Timespec

	// The phase.
	r        *runner
	pacer    Pacer
	next     int64 // the next request of this loop's share
	stride   int64
	nextDue  time.Duration
	more     bool // next is due before the end
	sending  bool
	iters    int64 // iterations begun, for Vars.Iter
	scanAt   time.Duration
	released time.Duration // when requests were last released
	batch    time.Duration // least time between wake-ups for the schedule
	behind   time.Duration // when the loop last found itself behind the schedule
	now      time.Duration // the time at the top of the loop's last turn
	late     time.Duration // how late timed wake-ups came lately
}

// maxEarly bounds how much earlier than a request is due a loop wakes, to
// look for the rest without sleeping.
const maxEarly = 50 * time.Microsecond

func newLoop(e *engine, id, limit int) (*evloop, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &evloop{
		e: e, id: id, epfd: fd, limit: max(limit, 1), pwait2: true,
		events: make([]unix.EpollEvent, 256),
		idle:   map[string][]*evconn{},
		addrs:  map[string]*dialAddrs{},
	}, nil
}

func (l *evloop) close() {
	for _, c := range l.conns {
		if c != nil {
			unix.Close(c.fd)
		}
	}
	l.conns, l.idle, l.nidle = nil, map[string][]*evconn{}, 0
	unix.Close(l.epfd)
}

// testHookBuild, when set, is called before a loop builds a request.
var testHookBuild func(seq int64, step int)

// behindFor is how long after a loop was last behind its schedule its
// pool may not grow.
const behindFor = 100 * time.Millisecond

// maxDials caps the connections a loop opens at once during a run.
const maxDials = 16

// scanEvery is how often a loop looks for requests past their timeout.
func (l *evloop) scanEvery() time.Duration {
	return min(max(l.e.timeout/20, time.Millisecond), 10*time.Millisecond)
}

// run runs one phase: the requests first, first+stride, ... of p.
func (l *evloop) run(r *runner, p Pacer, first, stride int64) {
	defer precise()()
	l.r, l.pacer, l.next, l.stride, l.iters = r, p, first-stride, stride, 0
	l.sending = true
	l.advance()
	l.scanAt = Now() + l.scanEvery()
	for {
		now := Now()
		l.now = now
		if l.sending {
			if r.stopped.Load() || (r.end > 0 && now >= r.end) {
				l.stop()
			} else {
				l.release(now)
			}
		}
		if l.queued() > 0 {
			l.pump()
		}
		if l.busy == 0 && l.queued() == 0 && (!l.sending || !l.more) {
			return
		}
		if now >= l.scanAt {
			l.expire(now)
			l.scanAt = now + l.scanEvery()
		}
		wait := min(l.scanAt-now, 10*time.Millisecond)
		timed := false // the wait ends at the next request due
		if l.sending && l.more {
			due := max(l.nextDue, l.released+l.batch)
			if l.batch == 0 {
				// Wake as early as wake-ups have lately been late,
				// and look without sleeping for the rest.
				due -= l.late
			}
			if due-now < wait {
				wait, timed = due-now, true
			}
		}
		if l.sending && r.end > 0 {
			wait = min(wait, r.end-now)
		}
		if t := l.growAt(); t > 0 {
			wait = min(wait, t-now)
		}
		if wait < 2*time.Microsecond {
			wait = 0
		}
		n := l.wait(wait)
		if n > 0 {
			l.dispatch(n)
		} else if timed && wait > 0 {
			// How late the thread woke, averaged over the last few
			// wake-ups: on a busy machine tens of microseconds.
			over := max(0, min(Now()-now-wait, maxEarly))
			l.late += (over - l.late) / 8
		}
	}
}

// dispatch hands the first n events of the last wait to their connections.
func (l *evloop) dispatch(n int) {
	for i := range n {
		ev := &l.events[i]
		if c := l.conns[ev.Fd]; c != nil && l.gens[ev.Fd] == ev.Pad {
			c.ready(l, ev.Events)
		}
	}
}

// wait waits for events on the loop's connections for at most d.
func (l *evloop) wait(d time.Duration) int {
	for {
		var n uintptr
		var errno unix.Errno
		if d == 0 {
			// A look that cannot block needs none of the scheduler's
			// bookkeeping of a system call that might.
			n, _, errno = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd),
				uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
		} else if l.pwait2 {
			l.ts = unix.NsecToTimespec(int64(d)) // a field: a local would escape, an allocation per wait
			n, _, errno = unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd),
				uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(unsafe.Pointer(&l.ts)), 0, 0)
			if errno == unix.ENOSYS {
				l.pwait2 = false
				continue
			}
		} else {
			ms := int(d / time.Millisecond)
			n1, err := unix.EpollWait(l.epfd, l.events, ms)
			n = uintptr(max(n1, 0))
			if e, ok := err.(unix.Errno); ok {
				errno = e
			}
			if ms == 0 && d > 0 && n1 == 0 {
				nap(int64(d)) // under a millisecond: the thread sleeps it
			}
		}
		if errno == unix.EINTR {
			return 0
		}
		return int(n)
	}
}

// advance moves to the next request of the loop's share.
func (l *evloop) advance() {
	r := l.r
	l.next += l.stride
	l.more = false
	if r.limit > 0 && l.next >= r.limit {
		return
	}
	off, ok := l.pacer.Due(l.next)
	if !ok {
		return
	}
	l.nextDue = r.start + off
	l.more = r.end <= 0 || l.nextDue < r.end
}

// release begins every request due by now.
func (l *evloop) release(now time.Duration) {
	if l.more && l.nextDue <= now {
		l.released = now
		if now-l.nextDue > growAfter {
			// The loop itself is behind the schedule: the requests
			// wait for it, not for connections, and more connections
			// would only cost it and the target more.
			l.behind = now
		}
	}
	for l.more && l.nextDue <= now {
		j := evjob{seq: l.next, iter: l.iters, due: l.nextDue}
		l.iters++
		l.advance()
		l.begin(j)
	}
}

// stop ends sending. When the phase ran out of time, the requests due
// before its end that were never sent count as unsent, never dropped
// silently; an interrupt is the user's choice and counts nothing.
// Iterations already begun run to their end unless the user interrupted.
func (l *evloop) stop() {
	l.sending = false
	r := l.r
	interrupted := r.ctx.Err() != nil
	var unsent int64
	if r.timedOut() {
		for l.more {
			unsent++
			l.advance()
		}
	}
	kept := l.queue[:0]
	for _, j := range l.queue[l.qhead:] {
		switch {
		case j.step == 0 && r.timedOut():
			unsent++
		case j.step > 0 && !interrupted:
			kept = append(kept, j)
		}
	}
	l.queue, l.qhead = kept, 0
	r.unsent.Add(unsent)
}

func (l *evloop) queued() int { return len(l.queue) - l.qhead }

// begin starts j, or queues it behind those waiting for a connection: its
// wait counts as lag.
func (l *evloop) begin(j evjob) {
	if l.queued() > 0 || !l.start(j) {
		l.queue = append(l.queue, j)
	}
}

// pump starts the queued iterations that a connection is free for.
func (l *evloop) pump() {
	for l.queued() > 0 && l.start(l.queue[l.qhead]) {
		l.queue[l.qhead] = evjob{}
		l.qhead++
	}
	if l.qhead > 0 && (l.qhead == len(l.queue) || l.qhead >= len(l.queue)/2) {
		// Taken from the front: move what is left there, so that a queue
		// that never empties does not grow for ever.
		n := copy(l.queue, l.queue[l.qhead:])
		clear(l.queue[n:])
		l.queue, l.qhead = l.queue[:n], 0
	}
}

// start builds j's request and sends it on a connection, and reports false
// when no connection is free.
func (l *evloop) start(j evjob) bool {
	r := l.r
	if j.req == nil {
		if testHookBuild != nil {
			testHookBuild(j.seq, j.step)
		}
		req, err := r.cfg.Source.Request(j.step, Vars{Worker: int64(l.id), Iter: j.iter, Seq: j.seq})
		if err != nil {
			r.rec.Sent()
			now := Now()
			s := record.Sample{Intended: j.due, Step: j.step, Sent: now, Done: now, Error: record.Other, Err: err}
			l.record(&s)
			l.then(j, now)
			return true
		}
		j.req, j.key = req, req.key
		if j.key == "" {
			j.key = dialKey(req)
		}
	}
	c := l.take(j.key)
	if c == nil {
		if !l.mayDial(j, Now()) {
			return false
		}
		l.open++
		c = l.dial(j.key)
		c.untried = true
		l.untried++
	}
	r.rec.Sent()
	c.begin(l, j)
	return true
}

// mayDial reports whether a connection may be opened for j. Up to the
// pool's size, at once. Past it, a kept connection is reused before another
// is opened: j waits for one up to GrowAfter (the wait counts as lag), as
// every request queued before it does, and then each gets at most one dial
// of its own, a few at a time (see mayGrow). Opening connections without
// bound the moment a target slows down would slow it down further.
func (l *evloop) mayDial(j evjob, now time.Duration) bool {
	switch {
	case l.open >= l.limit || l.dials >= maxDials:
		return false
	case l.open < l.target:
		return true
	}
	return now-j.due >= growAfter && l.mayGrow()
}

// mayGrow reports whether the pool may grow past its size, whatever the
// time: fewer dials under way than requests queued, and as many untried
// connections as tried ones at most. A connection opened during the run is
// untried until it carried a response; the pool then grows no faster than
// the target takes up new connections (doubling each service time) rather
// than burying it in them.
func (l *evloop) mayGrow() bool {
	return l.open < l.limit && l.dials < maxDials && l.dials < l.queued() && l.now-l.behind > behindFor &&
		l.untried < max(maxDials, l.open-l.untried)
}

// growAt returns when the request at the head of the queue may have a
// connection opened for it, or 0 when none may be opened before something
// else changes.
func (l *evloop) growAt() time.Duration {
	if l.queued() == 0 || !l.mayGrow() {
		return 0
	}
	return l.queue[l.qhead].due + growAfter
}

// take returns an idle connection to key, or nil. At the cap, an idle
// connection to another address is closed to make room.
func (l *evloop) take(key string) *evconn {
	if cs := l.idle[key]; len(cs) > 0 {
		c := cs[len(cs)-1]
		l.idle[key] = cs[:len(cs)-1]
		l.nidle--
		return c
	}
	if l.open >= l.limit && l.nidle > 0 {
		for k, cs := range l.idle {
			if len(cs) > 0 {
				l.idle[k] = cs[1:]
				l.nidle--
				l.drop(cs[0])
				break
			}
		}
	}
	return nil
}

// putIdle keeps c for the next request to its address.
func (l *evloop) putIdle(c *evconn) {
	c.state = connIdle
	l.idle[c.key] = append(l.idle[c.key], c)
	l.nidle++
}

// unidle removes c from the idle connections.
func (l *evloop) unidle(c *evconn) {
	cs := l.idle[c.key]
	for i, o := range cs {
		if o == c {
			l.idle[c.key] = append(cs[:i], cs[i+1:]...)
			l.nidle--
			return
		}
	}
}

// then begins the next step of j's iteration, which ended at done.
func (l *evloop) then(j evjob, done time.Duration) {
	r := l.r
	if j.step+1 >= r.nsteps || r.ctx.Err() != nil {
		return
	}
	j.step++
	j.due, j.req, j.key = done, nil, ""
	l.begin(j)
}

// record adds s, on the package clock, to the phase's result.
func (l *evloop) record(s *record.Sample) {
	r := l.r
	s.Intended -= r.start
	s.Sent -= r.start
	s.Done -= r.start
	r.rec.Record(l.id, s)
}

// expire fails the requests past their timeout.
func (l *evloop) expire(now time.Duration) {
	for _, c := range l.conns {
		if c != nil && c.state != connIdle && now >= c.deadline {
			op := "read"
			if c.state == connDialing {
				op = "dial"
			}
			c.fail(l, &net.OpError{Op: op, Net: "tcp", Addr: c.addr, Err: os.ErrDeadlineExceeded})
		}
	}
}

// preopen opens n connections to the keys of reqs, in turn, and waits
// until each is open or failed.
func (l *evloop) preopen(reqs []*Request, n int) {
	defer precise()()
	n = min(n, l.limit)
	for i := range n {
		r := reqs[i%len(reqs)]
		k := r.key
		if k == "" {
			k = dialKey(r)
		}
		l.open++
		if c := l.dial(k); c.err != nil {
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

// drop closes c and frees its place.
func (l *evloop) drop(c *evconn) {
	unix.Close(c.fd) // closing removes it from the epoll set
	l.conns[c.slot] = nil
	l.free = append(l.free, c.slot)
	l.open--
	if c.state == connDialing {
		l.dials--
	}
	if c.untried {
		c.untried = false
		l.untried--
	}
	if c.busy {
		c.busy = false
		l.busy--
	}
	c.state = connClosed
}

// addSlot gives c a slot, so that epoll events find it.
func (l *evloop) addSlot(c *evconn) {
	if n := len(l.free); n > 0 {
		c.slot = l.free[n-1]
		l.free = l.free[:n-1]
		l.conns[c.slot] = c
	} else {
		c.slot = int32(len(l.conns))
		l.conns = append(l.conns, c)
		l.gens = append(l.gens, 0)
	}
	l.gens[c.slot]++
}
