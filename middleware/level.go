package middleware

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// level is one priority level of a FairQueue: its seats and its queues.
//
// Invariant, under mu: if any request is queued, every seat is taken. A seat
// is handed straight from a finishing request to a queued one, so a request
// that finds a free seat never overtakes a queued one.
type level struct {
	name        string
	limit       int // seats
	handSize    int
	queueLength int
	m           *levelMetrics // nil: record nothing

	mu        sync.Mutex
	executing int         // seats taken
	waiting   int         // requests in all queues
	queues    [][]*waiter // FIFO each
	next      int         // the queue round robin looks at first
}

// waiter is a queued request.
type waiter struct {
	ready      chan struct{} // closed when the request is given a seat
	queue      int
	enqueued   time.Time
	dispatched bool // under level.mu: the seat is the waiter's
}

// levelMetrics are a level's collectors, bound to its name once.
type levelMetrics struct {
	wait                 *prometheus.HistogramVec // by level and flow
	inQueue, executing   prometheus.Gauge
	queueFull, cancelled prometheus.Counter
}

func newLevel(name string, limit, queues, handSize, queueLength int, m *Metrics) *level {
	l := &level{
		name:        name,
		limit:       limit,
		handSize:    handSize,
		queueLength: queueLength,
		queues:      make([][]*waiter, queues),
	}
	if m != nil {
		l.m = &levelMetrics{
			wait:      m.waitDuration,
			inQueue:   m.inQueue.WithLabelValues(name),
			executing: m.executing.WithLabelValues(name),
			queueFull: m.rejected.WithLabelValues(name, reasonFull),
			cancelled: m.rejected.WithLabelValues(name, reasonCancelled),
		}
	}
	return l
}

// acquire takes a seat for a request of flow, queueing it while every seat
// is taken. It returns "" once the request holds a seat, which the caller
// must give back with release, or else the reason it was rejected.
func (l *level) acquire(ctx context.Context, flow string) (reason string) {
	l.mu.Lock()
	if l.executing < l.limit { // by the invariant, nobody is queued
		l.executing++
		l.gaugeExecuting(1)
		l.mu.Unlock()
		l.observeWait(flow, 0)
		return ""
	}
	qi := l.shortest(flow)
	if len(l.queues[qi]) >= l.queueLength {
		l.mu.Unlock()
		if l.m != nil {
			l.m.queueFull.Inc()
		}
		return reasonFull
	}
	w := &waiter{ready: make(chan struct{}), queue: qi, enqueued: time.Now()}
	l.queues[qi] = append(l.queues[qi], w)
	l.waiting++
	if l.m != nil {
		l.m.inQueue.Inc()
	}
	l.mu.Unlock()

	select {
	case <-w.ready:
		l.observeWait(flow, time.Since(w.enqueued))
		return ""
	case <-ctx.Done():
	}
	l.mu.Lock()
	if w.dispatched {
		// A seat came between ctx.Done and the lock; pass it on.
		l.mu.Unlock()
		l.release()
	} else {
		l.remove(w)
		l.mu.Unlock()
	}
	if l.m != nil {
		l.m.cancelled.Inc()
	}
	return reasonCancelled
}

// release gives back a seat taken by acquire and hands free seats to queued
// requests, one queue after another in round robin.
func (l *level) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.executing--
	l.gaugeExecuting(-1)
	for l.executing < l.limit && l.waiting > 0 {
		n := len(l.queues)
		for i := range n {
			qi := (l.next + i) % n
			q := l.queues[qi]
			if len(q) == 0 {
				continue
			}
			w := q[0]
			q[0] = nil // let the waiter be collected
			l.queues[qi] = q[1:]
			l.next = (qi + 1) % n
			l.waiting--
			l.executing++
			if l.m != nil {
				l.m.inQueue.Dec()
			}
			l.gaugeExecuting(1)
			w.dispatched = true
			close(w.ready)
			break
		}
	}
}

// shortest returns the shortest queue of flow's hand, the first dealt of
// equals. Called with mu held.
func (l *level) shortest(flow string) int {
	var buf [maxHandSize]int
	hand := buf[:l.handSize]
	deal(flowHash(flow), len(l.queues), hand)
	best := hand[0]
	for _, qi := range hand[1:] {
		if len(l.queues[qi]) < len(l.queues[best]) {
			best = qi
		}
	}
	return best
}

// remove takes w, not dispatched, out of its queue. Called with mu held.
func (l *level) remove(w *waiter) {
	q := l.queues[w.queue]
	for i, x := range q {
		if x == w {
			copy(q[i:], q[i+1:])
			q[len(q)-1] = nil
			l.queues[w.queue] = q[:len(q)-1]
			l.waiting--
			if l.m != nil {
				l.m.inQueue.Dec()
			}
			return
		}
	}
}

func (l *level) gaugeExecuting(delta float64) {
	if l.m != nil {
		l.m.executing.Add(delta)
	}
}

func (l *level) observeWait(flow string, d time.Duration) {
	if l.m != nil {
		// Not curried by level: a curried vec allocates per lookup.
		l.m.wait.WithLabelValues(l.name, flow).Observe(d.Seconds())
	}
}
