package graph

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/latlab/latlab/middleware"
)

// A Node is one service of a synthetic graph: an HTTP server whose routes
// do calibrated work, call other nodes and report what it all took.
//
// A Node is safe for concurrent use. Its metrics live in its own registry
// and its traces go through its own tracer provider, so several nodes can
// share a process.
type Node struct {
	cfg         NodeConfig
	reg         *prometheus.Registry
	m           *metrics
	tr          *tracing
	transport   *http.Transport // for https and upgrades
	hops        *hopTransport   // for everything else
	client      *http.Client
	watch       *watchdog // the connections' and calls' timeouts
	handler     http.Handler
	filters     middleware.Filter           // the service's filter chain, in front of its work routes
	rpcFilters  middleware.Interceptor      // the same filters in front of its gRPC calls
	rpc         *grpc.Server                // a gRPC service's server; nil for HTTP
	rpcPeers    map[string]*grpc.ClientConn // the gRPC services it calls or proxies, by name
	calls       bool                        // its script has call steps
	fwd         []target                    // where work routes are forwarded
	rootFwd     []target                    // where / is forwarded
	userHeaders map[string]bool             // canonical names of headers passed downstream besides X-Remote-User and X-Latlab-*
	objects     objectStore
	loads       loads

	// run runs fork, stress-ng and load commands; jobCmd makes the command
	// running a job file. Tests replace them to do without stress-ng.
	run    func(ctx context.Context, argv []string) error
	jobCmd func(file string) []string

	ctx       context.Context // ends at Close: load jobs run under it
	cancel    context.CancelFunc
	closeOnce sync.Once
	closeErr  error
}

// NewNode returns a node configured by cfg, with its metrics registered and
// its tracer provider started. Close releases them.
func NewNode(cfg NodeConfig) (*Node, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if err := checkService(&cfg); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, reg: prometheus.NewRegistry(), run: runCommand, jobCmd: stressCommand}
	n.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if n.m, err = newMetrics(n.reg, cfg.Name); err != nil {
		return nil, err
	}
	if n.tr, err = newTracing(context.Background(), &n.cfg); err != nil {
		return nil, fmt.Errorf("node %s: %w", cfg.Name, err)
	}
	n.watch = newWatchdog(headerTimeout, idleTimeout, cfg.BodyTimeout, cfg.CallTimeout)
	n.transport = newTransport()
	n.hops = newHopTransport(n.transport, maxIdlePerHost, idleConnFor)
	n.client = &http.Client{
		Transport: n.hops,
		// A node answers what its downstreams answer; it does not follow.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	n.userHeaders = userHeaders(&n.cfg)
	n.fwd = n.cfg.forwardTargets()
	n.calls = cfg.Service != nil && len(calledServices(cfg.Service.Script, nil)) > 0
	if len(cfg.Downstreams) > 0 || (cfg.Service != nil && len(cfg.Service.Script) == 0) {
		n.rootFwd = n.fwd
	}
	n.objects.init(cfg.Caps)
	n.loads.init()
	if n.filters, n.rpcFilters, err = n.buildFilters(); err != nil {
		return nil, err
	}
	if n.rpcPeers, err = n.dialRPCPeers(); err != nil {
		return nil, err
	}
	if cfg.Service != nil && cfg.Service.Protocol == GRPC {
		n.rpc = n.newRPCServer()
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.handler = n.instrument(n.routes())
	return n, nil
}

// A node keeps up to maxIdlePerHost idle connections to each host it
// calls, each for at most idleConnFor.
const (
	maxIdlePerHost = 1024
	idleConnFor    = 90 * time.Second
)

// newTransport returns the net/http transport of a node's https calls:
// keep-alive with plenty of idle connections per host, so a hop costs a
// round trip and not a handshake; never a proxy from the environment.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          4096,
		MaxIdleConnsPerHost:   maxIdlePerHost,
		IdleConnTimeout:       idleConnFor,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}

// A connection Serve accepts is closed when its first request's header
// has not come within headerTimeout, or when it has waited longer than
// idleTimeout + headerTimeout for the next one, as net/http's
// ReadHeaderTimeout and IdleTimeout would close it; the node's watchdog
// enforces them, to within a second, without a timer per request.
const (
	headerTimeout = 10 * time.Second
	idleTimeout   = 2 * time.Minute
)

// Name returns the node's service name.
func (n *Node) Name() string { return n.cfg.Name }

// Handler returns the node's routes behind its filter chain, measured.
func (n *Node) Handler() http.Handler { return n.handler }

// Registry returns the node's own Prometheus registry, which /metrics
// serves. Callers may register more collectors in it.
func (n *Node) Registry() *prometheus.Registry { return n.reg }

// Serve serves Handler on ln until ctx ends, then shuts down gracefully:
// load jobs are stopped, in-flight requests get ShutdownGrace to finish,
// and traces are flushed. It closes ln and the node, and returns nil after
// a clean shutdown. Call it once.
//
// ln is a plain listener, such as TCP's; NodeConfig.TLS serves HTTPS on
// it. Serve keeps at most MaxConns connections open and closes one that
// waits too long for a request header (10 s), for the next request (2 min
// more) or for the next byte of a body (BodyTimeout).
func (n *Node) Serve(ctx context.Context, ln net.Listener) error {
	if n.rpc != nil {
		return n.serveRPC(ctx, ln)
	}
	ln = &watchedListener{Listener: ln, tls: n.cfg.TLS, max: int64(n.cfg.MaxConns), refused: n.m.refused}
	srv := &http.Server{
		Handler:     watchBodies(n.handler),
		ConnState:   n.watch.connState,
		ConnContext: connContext,
		ErrorLog:    log.New(discard{}, "", 0),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return errors.Join(fmt.Errorf("node %s: serving %s: %w", n.cfg.Name, ln.Addr(), err), n.Close())
	case <-ctx.Done():
	}
	// Ending the loads first releases requests waiting in /load-status.
	n.cancel()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.cfg.ShutdownGrace)
	defer cancel()
	var serr error
	if err := srv.Shutdown(sctx); err != nil {
		serr = fmt.Errorf("node %s: shutting down: %w", n.cfg.Name, err)
		_ = srv.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		serr = errors.Join(serr, fmt.Errorf("node %s: serving: %w", n.cfg.Name, err))
	}
	return errors.Join(serr, n.Close())
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Close stops the node's load jobs and waits for them, flushes its traces
// and closes its idle connections. It does not stop a Serve in progress;
// end Serve's context for that.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		n.cancel()
		n.loads.wg.Wait()
		n.watch.stop()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		n.closeErr = n.tr.shutdown(ctx)
		n.hops.CloseIdleConnections()
		for _, cc := range n.rpcPeers {
			_ = cc.Close()
		}
	})
	return n.closeErr
}

// observerRoute says whether route serves the tools that watch a node
// (health checks, scrapes, profiles) rather than requests under test: those
// are measured but not traced, so a trace is always a request's.
func observerRoute(route string) bool {
	switch route {
	case "/healthz", "/metrics", "/debug/pprof/", reflectionRoute:
		return true
	}
	return slices.Contains(healthRoutes[:], route)
}

// instrument is the outermost layer of every request: it counts it in
// flight, times it into latlab_server_request_duration_seconds and, with
// tracing on, continues the caller's trace in a server span.
func (n *Node) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		n.m.inFlight.Inc()
		defer n.m.inFlight.Dec()
		route := routeLabel(r.URL.Path)
		var span trace.Span
		if n.tr.on && !observerRoute(route) {
			ctx := n.tr.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
			ctx, span = n.tr.startSpan(ctx, r.Method+" "+route, trace.SpanKindServer,
				attribute.String("http.request.method", r.Method),
				attribute.String("http.route", route),
				attribute.String("url.path", r.URL.Path))
			r = r.WithContext(ctx)
		}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.code == 0 {
			sw.code = http.StatusOK
		}
		n.m.server.WithLabelValues(route, codeLabel(sw.code)).Observe(time.Since(start).Seconds())
		if span != nil {
			span.SetAttributes(attribute.Int("http.response.status_code", sw.code))
			if sw.code >= 500 {
				span.SetStatus(codes.Error, http.StatusText(sw.code))
			}
			span.End()
		}
	})
}

// statusWriter remembers the status of a response. Unwrap lets
// http.ResponseController reach the writer's Flush and deadlines.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush serves filters that assert http.Flusher rather than use
// http.ResponseController.
func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }
