//go:build linux

package load

import "time"

// closedShare is one loop's share of a closed loop or a ramp: the workers
// w of its shard with w mod loops equal to the loop's index, started as
// the ramp's bursts fall due. A worker runs one iteration at a time; when
// one ends, the loop queues the worker's next, which takes the connection
// just freed (idle connections go last in, first out) within the same turn.
type closedShare struct {
	ramp  Ramp
	shard Shard
	id, n int64
	step  int           // the ramp's next burst
	at    time.Duration // when it falls due, from the phase's start
	all   bool          // every burst started
	next  int64         // the shard's next worker, over every loop
	iters []int64       // iterations begun, per worker of the loop
}

func newClosedShare(m Ramp, sh Shard, id, n int) *closedShare {
	return &closedShare{ramp: m, shard: sh, id: int64(id), n: int64(n)}
}

// burst starts the workers of the bursts due by now. A shard starts its
// share of the workers each burst has started in all, so that the shards'
// workers together ramp as asked.
func (l *evloop) burst(now time.Duration) {
	c := l.closed
	for !c.all && now >= l.r.start+c.at {
		started := c.ramp.started(c.step)
		upto := c.shard.Share(int64(started))
		for w := c.next; w < upto; w++ {
			if w%c.n == c.id {
				c.iters = append(c.iters, 0)
				l.iterate(w, now)
			}
		}
		c.next = max(c.next, upto)
		if started >= c.ramp.Workers {
			c.all = true
		} else {
			c.step++
			c.at = time.Duration(c.step) * c.ramp.Every
		}
	}
}

// burstAt returns when the loop's next burst falls due, on the package
// clock, or 0 when every one has started.
func (l *evloop) burstAt() time.Duration {
	if c := l.closed; c != nil && !c.all {
		return l.r.start + c.at
	}
	return 0
}

// iterate queues worker w's next iteration, due at due, unless the phase
// has stopped sending: its time is up, or its count of iterations is
// reached (which stops every loop). The queue, not a call from here,
// starts it: an iteration that fails at once (an address that does not
// resolve) would otherwise begin the next within its own failure, without
// end.
func (l *evloop) iterate(w int64, due time.Duration) {
	r := l.r
	if !l.sending || r.ctx.Err() != nil || (r.end > 0 && due >= r.end) {
		return
	}
	seq := r.seq.n.Add(1) - 1
	if r.limit > 0 && seq >= r.limit {
		r.halt()
		return
	}
	c := l.closed
	k := w / c.n
	l.queue = append(l.queue, evjob{seq: seq, iter: c.iters[k], worker: w, due: due, queued: due})
	c.iters[k]++
}

// spinMax bounds the service times a closed loop spins for, rather than
// sleeping until a response arrives.
const spinMax = 100 * time.Microsecond

// spin looks for events without sleeping, for up to twice the target's
// recent service time from now (at most wait), when that is short: a
// thread that sleeps on epoll for a response that comes tens of
// microseconds later wakes tens of microseconds after it on a virtual CPU,
// and a closed loop waits for each response before it sends again. It
// returns the events that came, none when the spin ran out.
func (l *evloop) spin(now, wait time.Duration) int {
	if l.service == 0 || l.service > spinMax {
		return 0
	}
	until := now + min(wait, 2*l.service)
	for {
		if n := l.wait(0); n > 0 {
			return n
		}
		if Now() >= until {
			return 0
		}
	}
}
