package graph

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// checkService rejects a script that names a command or job its service
// lacks, or asks for a payload over MaxPayload, so that a node fails at
// start rather than on its first request.
func checkService(cfg *NodeConfig) error {
	s := cfg.Service
	if s == nil {
		return nil
	}
	var check func(steps []Step) error
	check = func(steps []Step) error {
		for _, st := range steps {
			var err error
			switch st.Kind {
			case Busywork, Prime, Sleep:
			case Fork:
				if _, ok := s.Commands[st.Name]; !ok {
					err = fmt.Errorf("fork: no command called %q", st.Name)
				}
			case Stress:
				if _, ok := s.Jobs[st.Name]; !ok {
					err = fmt.Errorf("stress: no job called %q", st.Name)
				}
			case Payload:
				if st.N > cfg.Caps.MaxPayload {
					err = fmt.Errorf("payload: %d bytes is over MaxPayload (%d)", st.N, cfg.Caps.MaxPayload)
				}
			case Call:
				if st.Name == "" {
					err = fmt.Errorf("call: no service named")
				}
			case Parallel:
				err = check(st.Steps)
			default:
				err = fmt.Errorf("unknown step kind %q", st.Kind)
			}
			if err != nil {
				return fmt.Errorf("node %s: script line %d: %w", s.Name, st.Line, err)
			}
		}
		return nil
	}
	return check(s.Script)
}

// runSteps runs steps in order and stops at the first failure.
func (n *Node) runSteps(ctx context.Context, ex *exchange, steps []Step) error {
	for i := range steps {
		if err := n.runStep(ctx, ex, &steps[i]); err != nil {
			return err
		}
	}
	return nil
}

func (n *Node) runStep(ctx context.Context, ex *exchange, st *Step) error {
	svc := n.cfg.Service
	switch st.Kind {
	case Busywork:
		return n.doWork(ctx, ex, Busywork, st.Duration, func(ctx context.Context) error { return spin(ctx, st.Duration) })
	case Sleep:
		return n.doWork(ctx, ex, Sleep, st.Duration, func(ctx context.Context) error { return sleep(ctx, st.Duration) })
	case Prime:
		limit := st.N
		if limit == 0 {
			limit = n.cfg.PrimeMax
		}
		return n.doWork(ctx, ex, Prime, 0, func(ctx context.Context) error {
			_, err := countPrimes(ctx, limit)
			return err
		})
	case Fork:
		argv := svc.Commands[st.Name]
		return n.doWork(ctx, ex, Fork, 0, func(ctx context.Context) error { return n.runArgv(ctx, argv) })
	case Stress:
		argv, err := n.jobArgv(svc.Jobs[st.Name])
		if err != nil {
			return err
		}
		return n.doWork(ctx, ex, Stress, 0, func(ctx context.Context) error { return n.runArgv(ctx, argv) })
	case Payload:
		ex.payload.Add(st.N)
		return nil
	case Call:
		// The parser makes Prob 1 when the file leaves it out; here it is
		// taken as written, so 0 never calls.
		if st.Prob < 1 && rand.Float64() >= st.Prob {
			return nil
		}
		path := st.Path
		if path == "" {
			path = "/"
		}
		return n.call(ctx, ex, target{name: st.Name, base: n.cfg.peerURL(st.Name)}, path, "", st.N, true)
	case Parallel:
		return n.runParallel(ctx, ex, st.Steps)
	}
	return fmt.Errorf("script line %d: unknown step kind %q", st.Line, st.Kind)
}

// runParallel runs steps concurrently and returns the first failure, after
// cancelling the others.
func (n *Node) runParallel(ctx context.Context, ex *exchange, steps []Step) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for i := range steps {
		wg.Go(func() {
			if err := n.runStep(ctx, ex, &steps[i]); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		})
	}
	wg.Wait()
	return first
}

// call sends one request to t at path and query: a POST of size bytes when
// size > 0, else a GET; or, to a gRPC service, a call of Run with a body
// of size bytes. It passes on the user headers and the trace context,
// reads the answer (echoing text into ex), and records the call in
// Server-Timing, latlab_client_request_duration_seconds and a client span.
// A transport error or a status other than 2xx (OK over gRPC) is a 502
// naming t. bounded applies CallTimeout.
func (n *Node) call(ctx context.Context, ex *exchange, t target, path, query string, size int64, bounded bool) error {
	p, _, _ := strings.Cut(path, "?")
	route := routeLabel(p)
	cc := n.rpcPeers[t.name]
	if cc != nil {
		if p != "/" {
			return statusError(http.StatusBadRequest, "%s speaks gRPC and runs its script only: %s is not passed on to it", t.name, p)
		}
		route = RunMethod
	}
	if bounded {
		var w *watchedCall
		ctx, w = n.watch.bound(ctx, n.cfg.CallTimeout)
		defer n.watch.release(w)
	}
	ctx, span := n.tr.startSpan(ctx, "call "+t.name+" "+route, trace.SpanKindClient,
		attribute.String("peer.service", t.name), attribute.String("http.route", route))
	start := time.Now()
	var code string
	var err error
	if cc != nil {
		code, err = n.callRPC(ctx, ex, cc, size)
	} else {
		code, err = n.callHTTP(ctx, ex, t, path, query, size)
	}
	d := time.Since(start)
	ex.tm.addDownstream(d)
	n.m.client.WithLabelValues(t.name, route, code).Observe(d.Seconds())
	if err != nil {
		err = statusError(http.StatusBadGateway, "downstream %s %s: %v", t.name, path, err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
	return err
}

// callHTTP is call's request over HTTP. It returns the status for the
// metrics: its code, or "error" when none came.
func (n *Node) callHTTP(ctx context.Context, ex *exchange, t target, path, query string, size int64) (string, error) {
	u := t.base + path
	if query != "" {
		u += "?" + query
	}
	method, body := http.MethodGet, io.Reader(nil)
	if size > 0 {
		method, body = http.MethodPost, payloadReader(size)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return "error", err
	}
	req.ContentLength = size
	if size > 0 {
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(payloadReader(size)), nil }
	}
	n.passHeaders(req.Header, ex.in)
	if n.tr.on {
		n.tr.prop.Inject(ctx, propagation.HeaderCarrier(req.Header))
	}
	resp, err := n.client.Do(req)
	if err != nil {
		return "error", err
	}
	defer resp.Body.Close()
	return codeLabel(resp.StatusCode), n.readAnswer(ex, resp)
}

// readAnswer reads a downstream's answer: a failure's message, or a text
// body to echo, and drops the rest up to MaxBody.
func (n *Node) readAnswer(ex *exchange, resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	body := &io.LimitedReader{R: resp.Body}
	var ct string
	if v := resp.Header["Content-Type"]; len(v) > 0 {
		ct = v[0]
	}
	if textPlain(ct) {
		b, err := readEcho(body, resp.ContentLength)
		if err != nil {
			return fmt.Errorf("reading answer: %w", err)
		}
		ex.addEcho(b)
	}
	body.N = n.cfg.Caps.MaxBody
	if _, err := io.Copy(io.Discard, body); err != nil {
		return fmt.Errorf("reading answer: %w", err)
	}
	return nil
}

// readEcho reads the text of an answer to echo, up to maxEcho bytes: a
// length the answer gives is read into one buffer of that size rather than
// one grown as the bytes come.
func readEcho(body *io.LimitedReader, length int64) ([]byte, error) {
	if length < 0 || length > maxEcho {
		body.N = maxEcho
		return io.ReadAll(body)
	}
	b := make([]byte, length)
	body.N = length
	n, err := io.ReadFull(body, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = io.ErrUnexpectedEOF // shorter than its Content-Length
	}
	return b[:n], err
}

// textPlain reports whether a Content-Type names text/plain, as
// mime.ParseMediaType reads it; the values nodes answer with are known
// without parsing.
func textPlain(contentType string) bool {
	switch contentType {
	case textPlainUTF8, "text/plain":
		return true
	case "application/octet-stream", "":
		return false
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/plain"
}

// passHeaders copies to dst the headers of src that filters further down
// read: X-Remote-User, every X-Latlab-* header and the user headers the
// topology's filters name; and, with tracing off, the caller's trace
// context unchanged, so a trace crosses a node that does not record.
func (n *Node) passHeaders(dst, src http.Header) {
	for k, v := range src {
		if n.passes(k) {
			dst[k] = v
		}
	}
}

// passes reports whether passHeaders passes on the header of canonical
// name k.
func (n *Node) passes(k string) bool {
	switch {
	case k == "X-Remote-User", strings.HasPrefix(k, "X-Latlab-"), n.userHeaders[k]:
		return true
	case k == "Traceparent" || k == "Tracestate":
		return !n.tr.on
	}
	return false
}

// userHeaders returns the canonical names of the headers the filters of
// the topology (or the lone service) read users from.
func userHeaders(cfg *NodeConfig) map[string]bool {
	m := map[string]bool{}
	var services []*Service
	if cfg.Topology != nil {
		services = cfg.Topology.Services
	} else if cfg.Service != nil {
		services = []*Service{cfg.Service}
	}
	for _, s := range services {
		for _, f := range s.Filters {
			if f.Delay != nil && f.Delay.Header != "" {
				m[http.CanonicalHeaderKey(f.Delay.Header)] = true
			}
			if f.FairQueue != nil && f.FairQueue.Header != "" {
				m[http.CanonicalHeaderKey(f.FairQueue.Header)] = true
			}
		}
	}
	return m
}
