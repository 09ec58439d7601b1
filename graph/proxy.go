package graph

import (
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// proxy returns the handler of a proxy service: a reverse proxy passing
// every route, method, header and body (up to MaxBody) to the service it
// fronts, and its answer back, status included. It adds X-Forwarded-For,
// -Host and -Proto. An unreachable target is 502 naming it.
func (n *Node) proxy() http.Handler {
	name := n.cfg.Service.Proxy
	base := n.cfg.peerURL(name)
	u, err := url.Parse(base)
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			writeError(w, n.cfg.Name, statusError(http.StatusInternalServerError, "proxy target %s: %v", base, err))
		})
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.SetXForwarded()
		},
		Transport: &observedTransport{n: n, peer: name, next: n.hops},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
				writeError(w, n.cfg.Name, tooLarge(tooBig.Limit))
				return
			}
			writeError(w, n.cfg.Name, statusError(http.StatusBadGateway, "proxy to %s: %v", name, err))
		},
		ErrorLog: log.New(discard{}, "", 0),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			if r.ContentLength > n.cfg.Caps.MaxBody {
				writeError(w, n.cfg.Name, tooLarge(n.cfg.Caps.MaxBody))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, n.cfg.Caps.MaxBody)
		}
		rp.ServeHTTP(w, r)
	})
}

// observedTransport records each proxied request as a client call: in
// latlab_client_request_duration_seconds, until its body is closed, and in
// a client span whose context it sends on.
type observedTransport struct {
	n    *Node
	peer string
	next http.RoundTripper
}

func (t *observedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	n := t.n
	route := routeLabel(req.URL.Path)
	ctx, span := n.tr.startSpan(req.Context(), "proxy "+t.peer+" "+route, trace.SpanKindClient,
		attribute.String("peer.service", t.peer), attribute.String("http.route", route),
		attribute.String("http.request.method", req.Method))
	if n.tr.on {
		req = req.Clone(ctx)
		n.tr.prop.Inject(ctx, propagation.HeaderCarrier(req.Header))
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		n.m.client.WithLabelValues(t.peer, route, "error").Observe(time.Since(start).Seconds())
		span.SetStatus(codes.Error, err.Error())
		span.End()
		return nil, err
	}
	code := resp.StatusCode
	resp.Body = &observedBody{ReadCloser: resp.Body, done: func() {
		n.m.client.WithLabelValues(t.peer, route, codeLabel(code)).Observe(time.Since(start).Seconds())
		span.SetAttributes(attribute.Int("http.response.status_code", code))
		span.End()
	}}
	return resp, nil
}

// observedBody calls done once, when it is closed.
type observedBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *observedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}
