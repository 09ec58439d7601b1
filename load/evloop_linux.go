//go:build linux

package load

import (
	"net"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/record"
)

// evjob is one iteration of the schedule: due at due, at its step.
type evjob struct {
	seq, iter int64
	worker    int64 // a closed loop's worker; the loop's id in an open loop
	step      int
	due       time.Duration
	queued    time.Duration // when it first looked for a connection
	req       *Request      // built when the step began
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
	peak    int // the most busy at once since the pool was last settled
	queue   []evjob
	qhead   int
	addrs   map[string]*dialAddrs
	pwait2  bool // epoll_pwait2 works: waits in nanoseconds
	ts      unix.Timespec

	// ahead is the address the pool grows to ahead of need (growAhead),
	// that of the last request begun; aheadOff once such a dial failed,
	// or the server closed a kept connection.
	ahead    string
	aheadOff bool

	// Reads, and the stamps of arrivals (evstamp_linux.go).
	msg    unix.Msghdr
	iov    unix.Iovec
	oob    stampBuf
	wall   time.Duration // the wall clock less the package clock
	stamps bool          // the last read carried a believable stamp

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
	least    time.Duration // the batch the loop's rate calls for, whether or not it falls behind
	adaptAt  time.Duration // when the loop next weighs its wake-ups
	wakes    int           // wake-ups for the schedule since it last did
	lateOnes int           // of them, those lateMark later than meant
	lateFar  int           // and those farMark later
	now      time.Duration // the time at the top of the loop's last turn
	behind   time.Duration // when the loop last found itself behind its schedule
	late     time.Duration // how late timed wake-ups came lately
	dialCost time.Duration // how long opening a connection lately took
	service  time.Duration // the target's service time lately, as responses end
	rate     float64       // the loop's share of the schedule at its peak, per second
	// deaf: the loop batches, and sleeps through arrivals between its
	// batches while reads carry stamps.
	deaf bool
	// closed is the loop's share of a closed loop or a ramp; nil in an
	// open loop.
	closed *closedShare
	// took is when the loop last took up a response or a failure: a
	// closed loop's next iteration is due then.
	took time.Duration
	// pumping is set while pump runs, and again when it left queued
	// iterations that may start at once.
	pumping, again bool
	sched          *loopSched // how the kernel runs the loop's thread (sched_linux.go)
	// lastSched is where the last phase left it, for the next one's.
	lastSched *loopSched
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

// testHookBuild, when set, is called before a loop builds a request;
// testHookNap before it sleeps through arrivals; testHookAhead as it
// opens a connection ahead of need.
var (
	testHookBuild func(seq int64, step int)
	testHookNap   func()
	testHookAhead func()
)

// scanEvery is how often a loop looks for requests past their timeout.
func (l *evloop) scanEvery() time.Duration {
	return min(max(l.e.timeout/20, time.Millisecond), 10*time.Millisecond)
}

// run runs one phase: the requests first, first+stride, ... of p.
func (l *evloop) run(r *runner, p Pacer, first, stride int64) {
	l.prepare(r, p, first, stride)
	for {
		now := l.tick()
		l.now = now
		if now >= l.adaptAt && l.closed == nil {
			l.adapt()
			l.adaptAt = now + adaptEvery
		}
		if l.sending {
			if r.stopped.Load() || (r.end > 0 && now >= r.end) {
				l.stop()
			} else if l.closed != nil {
				l.burst(now)
			} else {
				l.release(now)
			}
		}
		if l.queued() > 0 {
			l.pump()
		} else if l.sending && l.more {
			l.growAhead()
		}
		if l.busy == 0 && l.queued() == 0 && l.dials == 0 && (!l.sending || !l.more && l.closed == nil) {
			return
		}
		if now >= l.scanAt {
			l.expire(now)
			l.scanAt = now + l.scanEvery()
		}
		wait, timed, deaf := l.waitFor(now)
		if deaf && timed && wait > 0 && wait <= deafMax {
			// Sleep through arrivals: they are stamped, and read
			// together at the wake-up.
			if testHookNap != nil {
				testHookNap()
			}
			l.nap(wait)
			l.learn(now, wait, l.batch)
			wait = 0
		}
		n := 0
		if wait > 0 && l.closed != nil && l.busy > 0 {
			n = l.spin(now, wait)
		}
		if n == 0 {
			n = l.wait(wait)
		}
		if n > 0 {
			l.dispatch(n)
		} else if timed && wait > 0 {
			l.learn(now, wait, maxEarly)
		}
	}
}

// prepare readies the loop for a load of p, which it runs from request
// first, every stride-th of the schedule, and waits for the load's start
// (a closed loop) or its first request (an open one) when they are near.
func (l *evloop) prepare(r *runner, p Pacer, first, stride int64) {
	l.r, l.pacer, l.next, l.stride, l.iters = r, p, first-stride, stride, 0
	l.sending, l.aheadOff, l.again = true, false, false
	if l.closed != nil {
		l.more = false
		if r.start-Now() < 10*time.Millisecond {
			l.await(r.start)
		}
	} else {
		l.advance()
		if l.more && l.nextDue-Now() < 10*time.Millisecond {
			l.await(l.nextDue) // a later one the loop's own waits find
		}
	}
	l.scanAt = Now() + l.scanEvery()
	l.adaptAt, l.wakes, l.lateOnes, l.lateFar = Now()+adaptEvery, 0, 0, 0
}

// waitFor returns how long the loop may wait for events at now: until
// the next scan, the next request due (timed), the end of the load, the
// next growth of the pool or burst of a ramp, or not at all when work is
// queued or the wait is shorter than wake-ups have lately been late. deaf
// says the loop sleeps through arrivals, whose stamps it reads after.
func (l *evloop) waitFor(now time.Duration) (wait time.Duration, timed, deaf bool) {
	r := l.r
	wait = min(l.scanAt-now, 10*time.Millisecond)
	deaf = l.deaf && l.stamps
	if l.sending && l.more {
		due := max(l.nextDue, l.released+l.batch)
		if l.batch == 0 || deaf {
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
	if t := l.burstAt(); t > 0 && l.sending {
		wait = min(wait, t-now)
	}
	if l.again && l.queued() > 0 {
		wait = 0
	}
	if wait < 2*time.Microsecond || timed && !deaf && wait < l.late {
		// A timed wait shorter than wake-ups lately came late would
		// end later than it meant: look without sleeping instead.
		// A batching loop sleeps to its batch.
		wait = 0
	}
	return wait, timed, deaf
}

// adapt weighs the loop's wake-ups for the schedule since it last did.
// A loop that wakes once per request sends each within microseconds of
// its time, as long as it keeps up; one that falls behind (more than
// lateMore of its wake-ups came lateMark later than it meant, at a rate
// where wake-ups cost a share of a CPU) batches: it wakes at most once per
// batch, doubling it each time it still falls behind, up to batchMax, and
// sleeps through arrivals. Once it keeps up again (under lateLess late)
// it halves its batch, down to the batch its rate calls for whether or not
// it falls behind (batchFor; none below batchFrom). A busy machine that makes a few
// wake-ups late at a low rate never makes it batch: batching would not
// help it keep up, only add lag.
func (l *evloop) adapt() {
	wasFair := !l.sched.realtime()
	l.sched.weigh(l.now, l.wakes, l.lateFar)
	if wasFair && l.sched.realtime() {
		// Late on the fair scheduler: real-time, not batching, is the
		// cure tried first.
		l.wakes, l.lateOnes = 0, 0
	}
	if l.wakes > 0 {
		late := float64(l.lateOnes) / float64(l.wakes)
		switch {
		case late > lateMore && float64(l.wakes) >= batchWakes*adaptEvery.Seconds():
			l.batch = min(batchMax, max(batchLeast, 2*l.batch))
		case late < lateLess && l.batch > l.least:
			if l.batch /= 2; l.batch < batchLeast {
				l.batch = 0
			}
			l.batch = max(l.batch, l.least)
		}
	}
	l.wakes, l.lateOnes, l.lateFar = 0, 0, 0
	l.deaf = l.batch > 0 || deafAlways
}

// spinFor is how long before its first request a loop stops sleeping and
// spins: a sleep can end a hundred microseconds late on a virtual CPU
// that idled, and the first request has no earlier wake-up to learn that
// from.
const spinFor = 200 * time.Microsecond

// await waits on the loop's thread until t: a sleep to spinFor before it,
// then a spin.
func (l *evloop) await(t time.Duration) {
	if d := t - Now() - spinFor; d > 0 {
		l.nap(d)
	}
	for Now() < t {
	}
}

// learn averages how late a timed wake-up came, up to most, over the last
// few: on a busy machine tens of microseconds, on a virtual one that idles
// its CPU between wake-ups a hundred or more.
func (l *evloop) learn(now, wait, most time.Duration) {
	over := max(0, min(Now()-now-wait, most))
	l.late += (over - l.late) / 8
}

// nap sleeps d on the loop's thread. The sleep is short and the loop's P
// has no other work, so the scheduler's bookkeeping of a blocking system
// call, and the hand-off of the P that follows it, are skipped.
func (l *evloop) nap(d time.Duration) {
	l.ts = unix.NsecToTimespec(int64(d))
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&l.ts)), 0, 0)
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

// wait waits for events on the loop's connections for at most d, and
// returns how many came (none on an error or a signal).
//
// Every wait is a raw system call, one that blocks too: it holds the
// loop's P (engine.run keeps one more) and never enters the scheduler's
// bookkeeping of a system call. A goroutine in a system call is one the
// collector may scan meanwhile, and one that returns during the scan spins
// until it ends: on a real-time thread, with the scanner waiting for that
// very CPU, it spun for 100 ms and more beside stress-ng. A goroutine that
// stays running is stopped by a signal instead (the wait ends early,
// EINTR), and sleeps while it is scanned.
func (l *evloop) wait(d time.Duration) int {
	if d > 0 && l.pwait2 {
		l.ts = unix.NsecToTimespec(int64(d)) // a field: a local would escape, an allocation per wait
		n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd),
			uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(unsafe.Pointer(&l.ts)), 0, 0)
		if errno != unix.ENOSYS {
			return events(n, errno)
		}
		l.pwait2 = false
	}
	ms := int(d / time.Millisecond) // epoll_pwait's unit; 0 only looks
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd),
		uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(ms), 0, 0)
	if ms == 0 && d > 0 && n == 0 && errno == 0 {
		l.nap(d) // under a millisecond: the thread sleeps it
	}
	return events(n, errno)
}

// events returns the count an epoll wait returned, none on an error.
func events(n uintptr, errno unix.Errno) int {
	if errno != 0 {
		return 0
	}
	return int(n)
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
		if over := now - max(l.nextDue, l.released+l.batch); over > lateMark {
			l.lateOnes++
			if over > farMark {
				l.lateFar++
			}
		}
		l.wakes++
		l.released = now
		if now-l.nextDue > growAfter {
			// The loop itself is behind its schedule: the requests wait
			// for it, not for connections (see mayGrow).
			l.behind = now
		}
	}
	for l.more && l.nextDue <= now {
		j := evjob{seq: l.next, iter: l.iters, worker: int64(l.id), due: l.nextDue}
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
		// The loop woke past the end. What fell due within growAfter of
		// now still goes, late, its lag counted: a wake-up's delay. What
		// fell due earlier, the loop was behind on: unsent.
		now := Now()
		for l.more && now-l.nextDue > growAfter {
			unsent++
			l.advance()
		}
		l.release(now)
	}
	kept := l.queue[:0]
	for _, j := range l.queue[l.qhead:] {
		switch {
		case j.step == 0 && l.closed != nil:
			// A closed loop's iteration that waits for a connection began
			// before its phase's count ran out: it goes, unless the time
			// is up or the user interrupted. It has no schedule to fall
			// behind: nothing counts as unsent.
			if !interrupted && (r.end == 0 || Now() < r.end) {
				kept = append(kept, j)
			}
		case j.step == 0:
			if r.timedOut() {
				unsent++
			}
		case j.step > 0 && !interrupted:
			kept = append(kept, j)
		}
	}
	l.queue, l.qhead = kept, 0
	r.unsent.Add(unsent)
}

// then begins the next step of j's iteration, which ended at done.
func (l *evloop) then(j evjob, done time.Duration) {
	r := l.r
	if r.ctx.Err() != nil {
		return
	}
	if j.step+1 >= r.nsteps {
		if l.closed != nil {
			l.iterate(j.worker, l.took)
		}
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
