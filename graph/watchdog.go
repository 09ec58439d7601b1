package graph

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// A watchdog enforces a node's timeouts — how long a connection may wait
// for its first request's header, how long it may stay idle between
// requests, how long it may wait for the next byte of a request's body,
// how long a downstream call may take — from one goroutine that looks
// every tick, instead of a timer per request.
//
// Why: setting or moving a deadline in Go (context.WithTimeout, a
// server's ReadHeaderTimeout and IdleTimeout, which move the connection's
// read deadline several times per request) often wakes another thread
// of the runtime to watch the new timer: the network poller, or an idle
// P. strace counted 0.08–0.57 such wake-ups (writes to the poller's
// eventfd) per request of a node before, 0.01 with the watchdog. Its price
// is that a timeout fires up to one tick late (two for a body's, which it
// notices from counters a tick apart: see connWatch).
//
// The goroutine starts at the first thing watched and ends at stop.
type watchdog struct {
	tick   time.Duration // between looks
	header time.Duration // a new connection's wait for its first request header
	idle   time.Duration // a connection's wait between requests, next header included
	body   time.Duration // a request body's wait for its next byte

	mu      sync.Mutex
	calls   map[*watchedCall]struct{}
	conns   map[net.Conn]*connWatch // open connections
	running bool
	stopped bool
	quit    chan struct{}
	done    chan struct{}
}

// A watchedCall is a downstream call bounded by the watchdog.
type watchedCall struct {
	deadline  time.Time
	cancel    context.CancelCauseFunc
	stopTimer context.CancelFunc // set when a timer bounds the call instead
}

// newWatchdog returns a watchdog closing connections that wait longer
// than header for their first request or longer than idle+header between
// requests, as net/http's ReadHeaderTimeout and IdleTimeout would, or
// longer than body for the next byte of a request's body, and looking at
// most every second, or every eighth of the shortest limit it enforces
// (call, of downstream calls, among them).
func newWatchdog(header, idle, body, call time.Duration) *watchdog {
	tick := min(time.Second, header/8, (idle+header)/8, body/8, call/8)
	return &watchdog{
		tick: max(tick, time.Millisecond), header: header, idle: idle, body: body,
		calls: map[*watchedCall]struct{}{}, conns: map[net.Conn]*connWatch{},
		quit: make(chan struct{}), done: make(chan struct{}),
	}
}

// bound returns a context of ctx that the watchdog cancels, with cause
// context.DeadlineExceeded, once d has passed, and the call to release
// when it ends. After stop, a timer bounds the context instead.
func (w *watchdog) bound(ctx context.Context, d time.Duration) (context.Context, *watchedCall) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &watchedCall{deadline: time.Now().Add(d), cancel: cancel}
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		ctx, c.stopTimer = context.WithTimeout(ctx, d)
		return ctx, c
	}
	w.calls[c] = struct{}{}
	w.startLocked()
	w.mu.Unlock()
	return ctx, c
}

// release forgets c and cancels its context.
func (w *watchdog) release(c *watchedCall) {
	if c.stopTimer != nil {
		c.stopTimer()
	} else {
		w.mu.Lock()
		delete(w.calls, c)
		w.mu.Unlock()
	}
	c.cancel(context.Canceled)
}

// connState is an http.Server's ConnState hook: a connection waiting for
// a request (new or idle) gets a deadline, one serving a request has
// none but is watched while it waits for its body, a closed or hijacked
// one is forgotten.
func (w *watchdog) connState(c net.Conn, s http.ConnState) {
	var limit time.Duration
	switch s {
	case http.StateNew:
		limit = w.header
	case http.StateIdle:
		limit = w.idle + w.header
	}
	w.mu.Lock()
	switch {
	case limit > 0 && !w.stopped:
		cw := w.conns[c]
		if cw == nil {
			if cw = watchOf(c); cw == nil {
				cw = &connWatch{} // not from a node's listener: deadlines only
			}
			w.conns[c] = cw
		}
		cw.deadline, cw.since = time.Now().Add(limit), time.Time{}
		cw.body.Store(bodyNone)
		w.startLocked()
	case s == http.StateActive:
		// Kept in the map (without a deadline) so that the next
		// StateIdle finds its entry, and the sweep its body.
		if cw := w.conns[c]; cw != nil {
			cw.deadline = time.Time{}
		}
	default:
		delete(w.conns, c)
	}
	w.mu.Unlock()
}

// startLocked starts the goroutine if it is not running; w.mu is held.
func (w *watchdog) startLocked() {
	if w.running || w.stopped {
		return
	}
	w.running = true
	go w.loop()
}

func (w *watchdog) loop() {
	defer close(w.done)
	t := time.NewTicker(w.tick)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-t.C:
			// Not the tick's time: a sweep that runs late would take
			// a wait it sees now to have begun then.
			w.sweep(time.Now())
		}
	}
}

// sweep cancels the calls and closes the connections whose deadline is
// not after now, and those that have waited body or longer for a byte of
// a request's body.
func (w *watchdog) sweep(now time.Time) {
	var late []net.Conn
	w.mu.Lock()
	for c := range w.calls {
		if !now.Before(c.deadline) {
			c.cancel(context.DeadlineExceeded)
			delete(w.calls, c)
		}
	}
	for c, cw := range w.conns {
		over := !cw.deadline.IsZero() && !now.Before(cw.deadline)
		if cw.deadline.IsZero() && w.body > 0 {
			over = cw.stalled(now, w.body)
		}
		if over {
			late = append(late, c)
			delete(w.conns, c)
		}
	}
	w.mu.Unlock()
	// Closing ends the server's read; its hook then reports StateClosed.
	for _, c := range late {
		c.Close()
	}
}

// stop ends the goroutine and waits for it. Calls still bounded keep
// their deadline only through their parent context from then on.
func (w *watchdog) stop() {
	w.mu.Lock()
	running := w.running
	if !w.stopped {
		w.stopped = true
		close(w.quit)
	}
	w.mu.Unlock()
	if running {
		<-w.done
	}
}
