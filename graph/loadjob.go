package graph

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// loads tracks a node's background load jobs, started by /load and waited
// for by /load-status.
type loads struct {
	mu      sync.Mutex
	running int
	idle    chan struct{} // closed while running is 0
	ended   int           // jobs that have ended, in all
	lastErr error         // how the last job to end failed, if it did
	wg      sync.WaitGroup
}

func (l *loads) init() {
	l.idle = make(chan struct{})
	close(l.idle)
}

// start runs argv in the background under ctx, unless limit jobs are
// running already.
func (l *loads) start(ctx context.Context, run func(context.Context, []string) error, argv []string, limit int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running >= limit {
		return statusError(http.StatusTooManyRequests, "load: %d running, MaxLoads is %d", l.running, limit)
	}
	if l.running == 0 {
		l.idle = make(chan struct{})
		l.lastErr = nil
	}
	l.running++
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		err := run(ctx, argv)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.running--
		l.ended++
		if err != nil {
			l.lastErr = err
		}
		if l.running == 0 {
			close(l.idle)
		}
	}()
	return nil
}

// wait blocks until no job runs or ctx ends, and reports how many jobs
// have ended and how the last one failed, if it did.
func (l *loads) wait(ctx context.Context) (ended int, jobErr, err error) {
	l.mu.Lock()
	idle := l.idle
	l.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
		return 0, nil, ctx.Err()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended, l.lastErr, nil
}

// serveLoad is /load: start the load job (LoadFile, or the service's
// load_job) in the background, forward /load to the downstreams, and
// answer 202 at once. A node without a load job only forwards. A missing
// runner is 503, MaxLoads jobs running already 429.
func (n *Node) serveLoad(w http.ResponseWriter, r *http.Request) {
	ex := &exchange{in: r.Header, tm: timing{start: time.Now()}}
	_, err := parseQuery("/load", r.URL.RawQuery)
	if err == nil {
		err = n.drain(w, r)
	}
	ex.detail = "no load job"
	if err == nil && n.cfg.LoadFile != "" {
		err = n.startLoad(ex)
	}
	if err == nil {
		err = n.forward(r.Context(), ex, n.fwd, "/load", r.URL.RawQuery, true)
	}
	n.respond(w, ex, "/load", http.StatusAccepted, err)
}

func (n *Node) startLoad(ex *exchange) error {
	argv, err := n.jobArgv(n.cfg.LoadFile)
	if err != nil {
		return err
	}
	if err := lookPath(argv[0]); err != nil {
		return err
	}
	if err := n.loads.start(n.ctx, n.run, argv, n.cfg.Caps.MaxLoads); err != nil {
		return err
	}
	ex.detail = "started"
	return nil
}

// serveLoadStatus is /load-status: wait until this node's load jobs have
// ended, then for every downstream's /load-status in turn, as long as the
// caller waits. It answers 200, or 500 when this node's last load job
// failed.
func (n *Node) serveLoadStatus(w http.ResponseWriter, r *http.Request) {
	ex := &exchange{in: r.Header, tm: timing{start: time.Now()}}
	_, err := parseQuery("/load-status", r.URL.RawQuery)
	if err == nil {
		err = n.drain(w, r)
	}
	if err == nil {
		var ended int
		var jobErr error
		if ended, jobErr, err = n.loads.wait(r.Context()); err == nil && jobErr != nil {
			err = statusError(http.StatusInternalServerError, "load job failed: %v", jobErr)
		}
		ex.detail = "ended=" + strconv.Itoa(ended)
	}
	if err == nil {
		err = n.forward(r.Context(), ex, n.fwd, "/load-status", r.URL.RawQuery, false)
	}
	n.respond(w, ex, "/load-status", http.StatusOK, err)
}
