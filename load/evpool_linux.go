//go:build linux

package load

import (
	"math"
	"time"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/record"
)

// behindFor is how long after a batching loop was last behind its
// schedule (a request released more than GrowAfter late) its pool may not
// grow: a loop that runs late leaves responses unread, and the
// connections they free look busy.
const behindFor = 100 * time.Millisecond

// maxDials caps the connections a loop opens at once during a run.
const maxDials = 16

func (l *evloop) queued() int { return len(l.queue) - l.qhead }

// begin starts j, or queues it behind those waiting for a connection: its
// wait counts as lag.
func (l *evloop) begin(j evjob) {
	j.queued = l.now
	if l.queued() > 0 || !l.start(j) {
		l.queue = append(l.queue, j)
	}
}

// pump starts the queued iterations that a connection is free for, those
// queued before it began: what their starting queues (a closed loop's
// next iteration, after one that failed at once) waits for the loop's next
// turn, which then does not sleep (again). A pump within a pump (a start
// that failed at once pumps again) leaves the work to the outer one.
func (l *evloop) pump() {
	if l.pumping {
		return
	}
	l.pumping = true
	n := l.queued()
	for ; n > 0 && l.queued() > 0 && l.start(l.queue[l.qhead]); n-- {
		l.queue[l.qhead] = evjob{}
		l.qhead++
	}
	l.pumping = false
	// Stopped short of what was queued after it began, not for want of a
	// connection: the next turn looks without sleeping.
	l.again = n == 0 && l.queued() > 0
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
		req, err := r.cfg.Source.Request(j.step, r.vars(j.worker, j.iter, j.seq))
		if err != nil {
			r.rec.Sent()
			now := Now()
			l.took = now
			s := record.Sample{Intended: j.due, Step: j.step, Sent: now, Done: now, Error: record.Other, Err: err}
			l.record(&s)
			l.then(j, now)
			return true
		}
		j.req, j.key = req, keyOf(req)
	}
	if l.ahead != j.key && !l.aheadOff {
		l.ahead = j.key
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
// is opened: j waits for one as long as opening one lately took (see
// patience; the wait counts as lag), and then gets a dial of its own, a few
// at a time (see mayGrow). Waiting as long as a dial costs is the
// ski-rental rule: whichever comes first, a free connection or the dial,
// j's wait is at most twice the shorter of the two. Opening connections
// without bound the moment a target slows down would slow it down further.
func (l *evloop) mayDial(j evjob, now time.Duration) bool {
	switch {
	case l.open >= l.limit || l.dials >= maxDials:
		return false
	case l.open < l.target:
		return true
	}
	return now-j.queued >= l.patience() && l.mayGrow()
}

// patience returns how long a request waits for a kept connection before
// one is opened for it: as long as the loop's dials lately took, at most
// GrowAfter; none before the loop has opened one.
func (l *evloop) patience() time.Duration {
	return min(l.dialCost, growAfter)
}

// mayGrow reports whether the pool may grow past its size, whatever the
// time: fewer dials under way than requests queued, and as many untried
// connections as tried ones at most. A connection opened during the run is
// untried until it carried a response; the pool then grows no faster than
// the target takes up new connections (doubling each service time) rather
// than burying it in them. It holds at what the loop's rate needs (need),
// and, in a loop that batches, while the loop itself runs behind its
// schedule (behindFor): a loop short of CPU leaves responses unread, and
// the connections they free look busy. A loop that does not batch is not
// short of CPU; when it runs late, a busy machine held it back, and the
// requests that fell due meanwhile need connections as much as any.
func (l *evloop) mayGrow() bool {
	return l.open < l.limit && l.dials < maxDials && l.dials < l.queued() &&
		l.untried < max(maxDials, l.open-l.untried) && l.open < l.need() &&
		(l.batch == 0 || l.behind == 0 || l.now-l.behind > behindFor)
}

// need returns how many connections the loop's share of the schedule
// needs at the target's recent service time: twice what Little's law
// gives, and maxDials more for a burst, such as the requests that fell
// due while a busy machine held the loop back. A queue past that is not
// for want of connections: a loop that cannot read its responses as fast
// as they arrive (its CPU is what runs short) sees every connection busy,
// and opening more would only slow it and the target further. Before any
// response the need is unknown and does not hold the pool back. Service
// times are the kernel's stamps of arrival, so a slow loop does not
// inflate them.
func (l *evloop) need() int {
	if l.service == 0 {
		return math.MaxInt
	}
	return int(2*l.rate*l.service.Seconds()) + maxDials
}

// aheadPerTurn caps the connections a loop opens ahead of need in one
// turn: each costs its system calls, a few microseconds of the loop's
// time that a request due meanwhile would wait.
const aheadPerTurn = 4

// growAhead opens connections before any request waits for one: once a
// response has told the target's service time, the pool grows to twice
// what Little's law gives at the loop's rate, and one more, a few a turn,
// to the address of the last request begun. A pool sized before the load
// for a guessed service time then holds enough by the time the first
// requests would have queued, and none waits for a connect. Room for a
// burst (need) is opened only for requests that wait. A pool's dial that
// fails, a kept connection the server closes, or a response after which
// its connection is not kept (--no-keepalive, Connection: close) ends the
// growing ahead for the phase, lest the loop open what is closed for
// ever: growth is then for requests that wait (mayDial), which record
// their failures.
func (l *evloop) growAhead() {
	if l.service == 0 || l.aheadOff || l.ahead == "" || l.queued() > 0 || l.open >= l.limit {
		return
	}
	want := min(l.aheadOf(), l.limit)
	for n := 0; n < aheadPerTurn && l.open < want && l.dials < maxDials; n++ {
		l.open++
		c := l.dial(l.ahead)
		if c.err != nil {
			l.drop(c)
			l.aheadOff = true
			return
		}
		c.ahead = true
		if testHookAhead != nil {
			testHookAhead()
		}
	}
}

// aheadOf returns the pool growAhead opens: twice what Little's law gives
// at the loop's rate and the target's recent service time, and one more;
// 0 before any response.
func (l *evloop) aheadOf() int {
	if l.service == 0 {
		return 0
	}
	return int(2*l.rate*l.service.Seconds()) + 1
}

// served learns from a response that took d from its send: an average
// over the last few dozen.
func (l *evloop) served(d time.Duration) {
	if l.service == 0 {
		l.service = max(d, 1)
		return
	}
	l.service += (d - l.service) / 32
}

// dialed learns from a connection that took d to open: an average over
// the last few.
func (l *evloop) dialed(d time.Duration) {
	if l.dialCost == 0 {
		l.dialCost = d
		return
	}
	l.dialCost += (d - l.dialCost) / 8
}

// growAt returns when the request at the head of the queue may have a
// connection opened for it, or 0 when none may be opened before something
// else changes.
func (l *evloop) growAt() time.Duration {
	if l.queued() == 0 || !l.mayGrow() {
		return 0
	}
	return l.queue[l.qhead].queued + l.patience()
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
