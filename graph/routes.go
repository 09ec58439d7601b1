package graph

import (
	"cmp"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/pprof"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// routes returns the node's mux. The service routes — work, load, objects,
// or everything for a proxy — sit behind the filter chain; /healthz,
// /metrics and /debug/pprof/ do not, so that probes and scrapes neither
// wait in a fair queue nor count in a filter's latency.
func (n *Node) routes() http.Handler {
	svc := http.NewServeMux()
	switch {
	case n.cfg.Service != nil && n.cfg.Service.Protocol == GRPC:
		svc.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
			writeError(w, n.cfg.Name, statusError(http.StatusNotFound,
				"this service speaks gRPC: call %s over HTTP/2 on this port", RunMethod[1:]))
		})
	case n.cfg.Service != nil && n.cfg.Service.Proxy != "":
		svc.Handle("/", n.proxy())
	default:
		for _, m := range []string{"GET ", "POST "} {
			svc.HandleFunc(m+"/{$}", n.work("/", n.rootFwd, n.root))
			svc.HandleFunc(m+"/busywork", n.work("/busywork", n.fwd, n.busywork, "ms"))
			svc.HandleFunc(m+"/prime", n.work("/prime", n.fwd, n.prime, "max"))
			svc.HandleFunc(m+"/sleep", n.work("/sleep", n.fwd, n.sleep, "ms"))
			svc.HandleFunc(m+"/fork", n.work("/fork", n.fwd, n.fork, "name"))
			svc.HandleFunc(m+"/stress-ng", n.work("/stress-ng", n.fwd, n.stress, "name"))
			svc.HandleFunc(m+"/load", n.serveLoad)
			svc.HandleFunc(m+"/load-status", n.serveLoadStatus)
		}
		n.objectRoutes(svc)
	}
	mux := http.NewServeMux()
	mux.Handle("/", n.filterChain()(svc))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", textPlainUTF8)
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(n.reg, promhttp.HandlerOpts{}))
	if n.cfg.Admission != nil {
		mux.HandleFunc("POST /admission", n.admit)
	}
	if n.cfg.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// An exchange is one request's state while its node works on it.
type exchange struct {
	in      http.Header // the request's, for headers passed downstream
	tm      timing
	detail  string // what the work did, for the response line; set by the handler goroutine
	payload atomic.Int64

	mu   sync.Mutex
	echo []byte // downstream responses, appended to this node's line
}

// maxEcho bounds the downstream text a response repeats: beyond it, a wide
// graph's answers are read and dropped.
const maxEcho = 64 << 10

func (ex *exchange) addEcho(b []byte) {
	ex.mu.Lock()
	if len(ex.echo)+len(b) <= maxEcho {
		ex.echo = append(ex.echo, b...)
	}
	ex.mu.Unlock()
}

// A workFunc is the work of one request, decided from its query before
// any of it runs.
type workFunc func(ctx context.Context, ex *exchange) error

// work returns the handler of a work route that takes the query parameters
// known: read the query (400 when it is bad or holds anything else), drain
// the body, do the work, forward the route and query to every target in
// turn, answer with a line per node and Server-Timing.
func (n *Node) work(route string, targets []target, parse func(url.Values) (workFunc, error), known ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex := &exchange{in: r.Header, tm: timing{start: time.Now()}}
		q, err := parseQuery(route, r.URL.RawQuery, known...)
		var f workFunc
		if err == nil {
			f, err = parse(q)
		}
		if err == nil {
			err = n.drain(w, r)
		}
		if err == nil && f != nil {
			err = f(r.Context(), ex)
		}
		if err == nil {
			err = n.forward(r.Context(), ex, targets, route, r.URL.RawQuery, true)
		}
		n.respond(w, ex, route, http.StatusOK, err)
	}
}

// drain reads and drops a request body of at most MaxBody bytes, so that
// the connection can be reused; a body over it is 413, at once when its
// Content-Length says so.
func (n *Node) drain(w http.ResponseWriter, r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if r.ContentLength > n.cfg.Caps.MaxBody {
		return tooLarge(n.cfg.Caps.MaxBody)
	}
	_, err := io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, n.cfg.Caps.MaxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return tooLarge(tooBig.Limit)
	}
	if err != nil {
		return badRequest("body: %v", err)
	}
	return nil
}

// forward calls route with query on every target in turn and stops at the
// first failure. bounded applies CallTimeout to each call.
func (n *Node) forward(ctx context.Context, ex *exchange, targets []target, route, query string, bounded bool) error {
	for _, t := range targets {
		if err := n.call(ctx, ex, t, route, query, 0, bounded); err != nil {
			return err
		}
	}
	return nil
}

// respond writes the answer: the error's status and message; or a payload
// of the size the script asked for; or this node's line and its
// downstreams' answers. Every answer carries Server-Timing.
func (n *Node) respond(w http.ResponseWriter, ex *exchange, route string, code int, err error) {
	h := w.Header()
	size := ex.payload.Load()
	if err == nil && size > n.cfg.Caps.MaxPayload {
		err = statusError(http.StatusInternalServerError, "payload: %d bytes is over MaxPayload (%d)", size, n.cfg.Caps.MaxPayload)
	}
	h["Server-Timing"] = []string{ex.tm.header(time.Now())} // a canonical key: no Set needed
	if err != nil {
		writeError(w, n.cfg.Name, err)
		return
	}
	if size > 0 {
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Length", strconv.FormatInt(size, 10))
		w.WriteHeader(code)
		start := time.Now()
		if _, err := writePayload(w, size); err == nil {
			n.m.work.WithLabelValues(string(Payload)).Observe(time.Since(start).Seconds())
		}
		return
	}
	body := make([]byte, 0, len(n.cfg.Name)+len(route)+len(ex.detail)+3+len(ex.echo))
	body = append(body, n.cfg.Name...)
	body = append(body, ' ')
	body = append(body, route...)
	body = append(body, ' ')
	body = append(body, ex.detail...)
	body = append(body, '\n')
	body = append(body, ex.echo...)
	// Both values in one allocation rather than one each, as Set would.
	v := []string{textPlainUTF8, strconv.Itoa(len(body))}
	h["Content-Type"], h["Content-Length"] = v[0:1:1], v[1:2:2]
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// textPlainUTF8 is the Content-Type of a node's text answers.
const textPlainUTF8 = "text/plain; charset=utf-8"

// writeError answers with err's status and "name: message".
func writeError(w http.ResponseWriter, name string, err error) {
	code := http.StatusInternalServerError
	var re *requestError
	switch {
	case errors.As(err, &re):
		code = re.status
	case errors.Is(err, context.DeadlineExceeded):
		code = http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		code = http.StatusServiceUnavailable
	}
	h := w.Header()
	h.Set("Content-Type", textPlainUTF8)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, name+": "+err.Error()+"\n")
}

// root is /: the service's script; for a service without one, or a node
// without a service, no work (its Calls are called as forwards). A
// service's errors fail a share of requests before anything runs.
func (n *Node) root(url.Values) (workFunc, error) {
	s := n.cfg.Service
	if s == nil {
		return func(_ context.Context, ex *exchange) error { ex.detail = "ok"; return nil }, nil
	}
	if e := s.Errors; e != nil && e.Rate > 0 && rand.Float64() < e.Rate {
		if s.Protocol == GRPC {
			return nil, status.Errorf(cmp.Or(e.Code, codes.Internal), "injected error (rate %g)", e.Rate)
		}
		status := e.Status
		if status < 100 || status > 599 {
			status = http.StatusInternalServerError
		}
		return nil, statusError(status, "injected error (rate %g)", e.Rate)
	}
	return func(ctx context.Context, ex *exchange) error {
		ex.detail = "ok"
		if len(s.Script) == 0 {
			return nil
		}
		ex.detail = "script"
		return n.runSteps(ctx, ex, s.Script)
	}, nil
}

func (n *Node) busywork(q url.Values) (workFunc, error) {
	return n.timed(q, Busywork, n.cfg.Caps.MaxBusywork, "MaxBusywork", spin)
}

func (n *Node) sleep(q url.Values) (workFunc, error) {
	return n.timed(q, Sleep, n.cfg.Caps.MaxSleep, "MaxSleep", sleep)
}

// timed is a route whose work, of kind, lasts ?ms= (10 ms if not given,
// at most limit, the cap named capName): work(ctx, d) does it.
func (n *Node) timed(q url.Values, kind StepKind, limit time.Duration, capName string, work func(context.Context, time.Duration) error) (workFunc, error) {
	d, err := queryMillis(q, "ms", 10*time.Millisecond, limit, capName)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ex *exchange) error {
		ex.detail = "ms=" + formatMillis(d)
		return n.doWork(ctx, ex, kind, d, func(ctx context.Context) error { return work(ctx, d) })
	}, nil
}

func formatMillis(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64)
}

func (n *Node) prime(q url.Values) (workFunc, error) {
	limit, err := queryInt(q, "max", n.cfg.PrimeMax, n.cfg.Caps.MaxPrime, "MaxPrime")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ex *exchange) error {
		var count int64
		err := n.doWork(ctx, ex, Prime, 0, func(ctx context.Context) (err error) {
			count, err = countPrimes(ctx, limit)
			return err
		})
		ex.detail = "max=" + strconv.FormatInt(limit, 10) + " primes=" + strconv.FormatInt(count, 10)
		return err
	}, nil
}

// fork runs one of the service's commands: ?name= or the lexically first.
// A request can only choose among them, never name a program.
func (n *Node) fork(q url.Values) (workFunc, error) {
	var cmds map[string][]string
	if n.cfg.Service != nil {
		cmds = n.cfg.Service.Commands
	}
	if len(cmds) == 0 {
		return noWork("no command configured"), nil
	}
	argv, name, err := pick(cmds, q.Get("name"), "command")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ex *exchange) error {
		ex.detail = "command=" + name
		return n.doWork(ctx, ex, Fork, 0, func(ctx context.Context) error { return n.runArgv(ctx, argv) })
	}, nil
}

// noWork is the work of a node asked for a fork or a stress-ng job it has
// none of: nothing, said in the answer, so that a route sent down a chain
// runs where it is configured and passes through the other nodes.
func noWork(detail string) workFunc {
	return func(_ context.Context, ex *exchange) error {
		ex.detail = detail
		return nil
	}
}

// stress runs a stress-ng job: the service's job ?name=, else JobFile, else
// the service's lexically first job.
func (n *Node) stress(q url.Values) (workFunc, error) {
	var jobs map[string]string
	if n.cfg.Service != nil {
		jobs = n.cfg.Service.Jobs
	}
	file, name := n.cfg.JobFile, "jobfile"
	if file == "" && len(jobs) == 0 {
		return noWork("no stress-ng job configured"), nil
	}
	if v := q.Get("name"); v != "" || file == "" {
		var err error
		if file, name, err = pick(jobs, v, "stress-ng job"); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context, ex *exchange) error {
		ex.detail = "job=" + name
		argv, err := n.jobArgv(file)
		if err != nil {
			return err
		}
		return n.doWork(ctx, ex, Stress, 0, func(ctx context.Context) error { return n.runArgv(ctx, argv) })
	}, nil
}
