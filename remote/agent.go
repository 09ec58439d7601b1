package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/probe"
)

// Defaults of an Agent's bounds.
const (
	DefaultAgentIdle     = 10 * time.Minute
	DefaultAgentLifetime = 24 * time.Hour
)

// Why an Agent ends by itself: Serve returns these, wrapped.
var (
	ErrAgentIdle     = errors.New("no request from a controller for the idle time")
	ErrAgentLifetime = errors.New("the agent's lifetime is over")
)

// errAgentExit is the cause of an agent's end that a controller asked for.
var errAgentExit = errors.New("exit asked for")

// maxBundleBody bounds the JSON of a bundle: its files in base64 and some
// room for the rest.
const maxBundleBody = maxBundleData/3*4 + 1<<20

// An Agent runs trials for a controller elsewhere over HTTP, so that a
// trial's load leaves from where the agent runs — a pod, for the
// network path of a cluster — and its results come back exact (see the
// package documentation for its API). It runs one trial at a time. It
// never lingers: it ends after Idle without a request, after Lifetime
// whatever it does, or once told to exit.
type Agent struct {
	// Token is what every request but GET /healthz must carry (see
	// TokenHeader): the agent refuses to serve without one.
	Token string

	Idle     time.Duration // end after this long without a request; 0 means DefaultAgentIdle
	Lifetime time.Duration // end this long after Serve starts; 0 means DefaultAgentLifetime
	Log      io.Writer     // one line per trial and at the end; nil discards

	// OTLPHTTP and OTLPGRPC are where the agent receives spans, such as
	// :4318 and :4317: over OTLP/HTTP (POST /v1/traces) and OTLP/gRPC,
	// without TLS, into one trace receiver that Serve starts and every
	// trial shares. A trial whose spec asks for traces brings back the
	// hops of the spans that started during its measured load, as a
	// local run stores them; a trial that does not ask lets those spans
	// go. "" receives none over that protocol; with both "", a trial that
	// asks for traces has no trace points.
	OTLPHTTP, OTLPGRPC string

	traces *probe.TraceReceiver    // nil without OTLPHTTP and OTLPGRPC
	ctx    context.Context         // Serve's: trials stop when it ends
	exit   context.CancelCauseFunc // ends Serve
	touch  chan struct{}           // a request came
	// reading holds a token while a bundle is read and decoded: one at
	// a time.
	reading chan struct{}

	mu    sync.Mutex
	trial *agentTrial // the latest; nil before the first
}

func (a *Agent) idle() time.Duration { return cmpOr(a.Idle, DefaultAgentIdle) }

func (a *Agent) lifetime() time.Duration { return cmpOr(a.Lifetime, DefaultAgentLifetime) }

// cmpOr returns d, or def when d is not positive.
func cmpOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func (a *Agent) logf(format string, args ...any) {
	if a.Log != nil {
		fmt.Fprint(a.Log, "latlab agent: "+textsafe.Layout(fmt.Sprintf(format, args...))+"\n")
	}
}

// Serve answers the agent's API on ln until it is told to exit, which
// returns nil, or until it ends by itself or ctx ends, which returns why:
// an error wrapping ErrAgentIdle or ErrAgentLifetime, or ctx's. A trial
// under way is stopped first, and given up to a minute to drain. It
// receives spans, if OTLPHTTP or OTLPGRPC says where, for as long as it
// serves, and returns at once if it cannot. Serve closes ln; an Agent
// serves once.
func (a *Agent) Serve(ctx context.Context, ln net.Listener) error {
	if _, err := checkToken("the agent's token", []byte(a.Token)); err != nil {
		ln.Close()
		return err
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if err := a.receiveTraces(ctx); err != nil {
		ln.Close()
		return err
	}
	a.ctx, a.exit, a.touch, a.reading = ctx, stop, make(chan struct{}, 1), make(chan struct{}, 1)
	srv := &http.Server{
		Handler:           a.handler(),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	a.logf("listening on %s", ln.Addr())
	a.watch(ctx, stop, served)

	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		_ = srv.Close()
	}
	a.mu.Lock()
	tr := a.trial
	a.mu.Unlock()
	if tr != nil {
		tr.stop()
		select {
		case <-tr.done:
		case <-time.After(time.Minute):
			a.logf("trial %d still draining after a minute: leaving it", tr.t.Position)
		}
	}
	cause := context.Cause(ctx)
	a.logf("exiting: %v", cause)
	if errors.Is(cause, errAgentExit) {
		return nil
	}
	return cause
}

// receiveTraces starts the agent's trace receiver, if it has one, until
// ctx ends.
func (a *Agent) receiveTraces(ctx context.Context) error {
	if a.OTLPHTTP == "" && a.OTLPGRPC == "" {
		return nil
	}
	rcv := probe.NewTraceReceiver()
	if a.OTLPHTTP != "" {
		url, err := rcv.Listen(ctx, a.OTLPHTTP)
		if err != nil {
			return fmt.Errorf("starting the trace receiver: %w", err)
		}
		a.logf("receiving spans over OTLP/HTTP at %s", url)
	}
	if a.OTLPGRPC != "" {
		addr, err := rcv.ListenGRPC(ctx, a.OTLPGRPC)
		if err != nil {
			return fmt.Errorf("starting the trace receiver: %w", err)
		}
		a.logf("receiving spans over OTLP/gRPC at %s", addr)
	}
	a.traces = rcv
	return nil
}

// watch returns when ctx ends, ending it when the agent has had no
// request for its idle time, when its lifetime is over, or when the
// server stops.
func (a *Agent) watch(ctx context.Context, stop context.CancelCauseFunc, served <-chan error) {
	idle := time.NewTimer(a.idle())
	defer idle.Stop()
	life := time.NewTimer(a.lifetime())
	defer life.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.touch:
			idle.Reset(a.idle())
		case <-idle.C:
			stop(fmt.Errorf("%w (%s)", ErrAgentIdle, a.idle()))
		case <-life.C:
			stop(fmt.Errorf("%w (%s)", ErrAgentLifetime, a.lifetime()))
		case err := <-served:
			stop(fmt.Errorf("serving: %w", err))
		}
	}
}

// poke tells watch a request came.
func (a *Agent) poke() {
	select {
	case a.touch <- struct{}{}:
	default:
	}
}

// handler routes the agent's API. A request without the agent's token
// is refused before anything else (see authentic); every other request
// but GET /healthz, which a kubelet asks every second, puts off the idle
// end as it starts and as it ends.
func (a *Agent) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	// The agent's clock, for a coordinator that starts shards together.
	mux.HandleFunc("GET /clock", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, agentClock{Now: time.Now().UnixNano()})
	})
	mux.HandleFunc("POST /trial", a.postTrial)
	mux.HandleFunc("GET /trial", a.getTrial)
	mux.HandleFunc("POST /trial/stop", a.stopTrial)
	mux.HandleFunc("GET /result", a.getResult)
	mux.HandleFunc("POST /exit", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "exiting\n")
		// Serve shuts the server down gracefully: this answer goes out
		// before the agent ends.
		a.exit(errAgentExit)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/healthz" {
			mux.ServeHTTP(w, r)
			return
		}
		if !a.authentic(r) {
			refuse(w)
			return
		}
		a.poke()
		defer a.poke()
		mux.ServeHTTP(w, r)
	})
}

// agentClock is GET /clock's answer: the agent's wall clock as it
// answered, in nanoseconds since 1970.
type agentClock struct {
	Now int64 `json:"now_unix_nano"`
}

// current returns the latest trial, or nil.
func (a *Agent) current() *agentTrial {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.trial
}

// postTrial starts the trial of the bundle posted: 202 and its status,
// 400 for a bundle it cannot run, 409 while another trial runs or
// another bundle is read, 413 for one past the bound. Each refusal but
// the last comes before the body is read, and the bound stops the read
// there: one bundle at most is in memory.
func (a *Agent) postTrial(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxBundleBody {
		w.Header().Set("Connection", "close")
		httpError(w, http.StatusRequestEntityTooLarge, "bundle larger than %d MiB", maxBundleBody>>20)
		return
	}
	if tr := a.current(); tr != nil && !tr.finished() {
		w.Header().Set("Connection", "close")
		httpError(w, http.StatusConflict, "trial %d (variant %s) is running: stop it (POST /trial/stop) or wait for it", tr.t.Position, tr.t.Variant)
		return
	}
	select {
	case a.reading <- struct{}{}:
		defer func() { <-a.reading }()
	default:
		w.Header().Set("Connection", "close")
		httpError(w, http.StatusConflict, "another bundle is being read: one at a time")
		return
	}
	data, err := readBody(w, r)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpError(w, http.StatusRequestEntityTooLarge, "bundle larger than %d MiB", maxBundleBody>>20)
			return
		}
		httpError(w, http.StatusBadRequest, "reading the bundle: %v", err)
		return
	}
	var b Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if tr := a.trial; tr != nil && !tr.finished() {
		httpError(w, http.StatusConflict, "trial %d (variant %s) is running: stop it (POST /trial/stop) or wait for it", tr.t.Position, tr.t.Variant)
		return
	}
	tr, err := startTrial(a.ctx, &b, a.traces)
	if err != nil {
		httpError(w, http.StatusBadRequest, "bad bundle: %v", err)
		return
	}
	a.trial = tr
	a.logf("trial %d: variant %s at %s, rep %d", b.Trial.Position, b.Trial.Variant, b.Trial.Level, b.Trial.Rep)
	if tr.wantTraces && a.traces == nil {
		a.logf("trial %d: its spec asks for traces, but this agent receives no spans: no trace points", b.Trial.Position)
	}
	go func() {
		<-tr.done
		if err := tr.status().Error; err != "" {
			a.logf("trial %d ended: %s", b.Trial.Position, err)
		} else {
			a.logf("trial %d done", b.Trial.Position)
		}
	}()
	writeJSON(w, http.StatusAccepted, tr.status())
}

// readBody reads r's body, at most maxBundleBody, into a buffer of the
// length it announces, rather than one that grows by doubling.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, maxBundleBody)
	if r.ContentLength <= 0 {
		return io.ReadAll(body)
	}
	data := make([]byte, r.ContentLength)
	if _, err := io.ReadFull(body, data); err != nil {
		return nil, err
	}
	return data, nil
}

// getTrial answers the latest trial's status: idle before the first.
func (a *Agent) getTrial(w http.ResponseWriter, _ *http.Request) {
	tr := a.current()
	if tr == nil {
		writeJSON(w, http.StatusOK, AgentStatus{State: AgentIdle})
		return
	}
	writeJSON(w, http.StatusOK, tr.status())
}

// stopTrial stops the trial under way, which keeps what it measured: 202
// and its status, or 409 without a trial.
func (a *Agent) stopTrial(w http.ResponseWriter, _ *http.Request) {
	tr := a.current()
	if tr == nil {
		httpError(w, http.StatusConflict, "no trial to stop")
		return
	}
	tr.stop()
	writeJSON(w, http.StatusAccepted, tr.status())
}

// getResult answers the results of the latest trial, once it is done.
func (a *Agent) getResult(w http.ResponseWriter, _ *http.Request) {
	tr := a.current()
	switch {
	case tr == nil:
		httpError(w, http.StatusNotFound, "no trial: post one to /trial")
	case !tr.finished():
		st := tr.status()
		httpError(w, http.StatusConflict, "trial %d is %s: its result comes once it is done", st.Position, st.State)
	default:
		if err := tr.writeResult(w); err != nil {
			a.logf("trial %d: sending its result: %v", tr.t.Position, err)
		}
	}
}

// httpError answers code with a line of text.
func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintf(w, format+"\n", args...)
}

// writeJSON answers code with v as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
