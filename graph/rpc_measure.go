package graph

import (
	"context"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/latlab/latlab/middleware"
	"github.com/latlab/latlab/record"
)

// measureUnary is the outermost interceptor of a gRPC node's unary calls,
// as instrument is of its HTTP requests: it counts a call in flight, times
// it into latlab_server_request_duration_seconds by method and status
// name, and with tracing on continues the caller's trace in a server span.
func (n *Node) measureUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	start := time.Now()
	n.m.inFlight.Inc()
	defer n.m.inFlight.Dec()
	route := rpcRoute(info.FullMethod)
	ctx, span := n.rpcServerSpan(ctx, route)
	resp, err := h(ctx, req)
	n.endRPC(route, start, span, err)
	return resp, err
}

// measureStream is measureUnary for streaming calls, proxied ones
// included: a stream is timed from its start to its status.
func (n *Node) measureStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	start := time.Now()
	n.m.inFlight.Inc()
	defer n.m.inFlight.Dec()
	route := rpcRoute(info.FullMethod)
	ctx, span := n.rpcServerSpan(ss.Context(), route)
	if span != nil {
		ss = &ctxStream{ServerStream: ss, ctx: ctx}
	}
	err := h(srv, ss)
	n.endRPC(route, start, span, err)
	return err
}

// ctxStream is a server stream with a context of its own.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *ctxStream) Context() context.Context { return s.ctx }

// rpcServerSpan starts a call's server span, continuing the trace its
// metadata carries, when tracing is on and the call is not a health check
// or reflection; otherwise it returns ctx and nil.
func (n *Node) rpcServerSpan(ctx context.Context, route string) (context.Context, trace.Span) {
	if !n.tr.on || observerRoute(route) {
		return ctx, nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	ctx = n.tr.prop.Extract(ctx, mdCarrier(md))
	return n.tr.startSpan(ctx, route[1:], trace.SpanKindServer,
		attribute.String("rpc.system", "grpc"), attribute.String("rpc.method", route))
}

// endRPC records a call's duration and status, and ends its span.
func (n *Node) endRPC(route string, start time.Time, span trace.Span, err error) {
	code := status.Code(err)
	n.m.server.WithLabelValues(route, rpcCodeLabel(code)).Observe(time.Since(start).Seconds())
	if span != nil {
		span.SetAttributes(attribute.Int("rpc.grpc.status_code", int(code)))
		if code != codes.OK {
			span.SetStatus(otelcodes.Error, status.Convert(err).Message())
		}
		span.End()
	}
}

// The routes of the gRPC services a node serves besides its own: they
// are measured but neither filtered nor traced, as /healthz is not.
const (
	healthPrefix     = "/grpc.health.v1.Health/"
	reflectionPrefix = "/grpc.reflection."
	reflectionRoute  = "/grpc.reflection/" // every reflection method's one route
)

// healthRoutes are the health service's methods, each its own route.
var healthRoutes = [...]string{healthPrefix + "Check", healthPrefix + "Watch", healthPrefix + "List"}

// rpcRoute maps a call's full method to one of a fixed set of route
// labels, so that no client can grow the metrics' cardinality: node.proto's
// methods and the health service's by name, reflection as one, anything
// else (a proxy passes any method on) as "other".
func rpcRoute(method string) string {
	switch {
	case method == RunMethod || method == RunStreamPath || slices.Contains(healthRoutes[:], method):
		return method
	case strings.HasPrefix(method, reflectionPrefix):
		return reflectionRoute
	}
	return "other"
}

// rpcCodeLabel names a gRPC status code, as latlab's results do: OK,
// UNAVAILABLE.
func rpcCodeLabel(c codes.Code) string { return record.CodeName(record.GRPCCode(uint32(c))) }

// observed returns ic with health checks and reflection passed straight
// to their handlers.
func observed(ic middleware.Interceptor) middleware.Interceptor {
	unary, stream := ic.Unary, ic.Stream
	return middleware.Interceptor{
		Unary: func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if unary == nil || observerRoute(rpcRoute(info.FullMethod)) {
				return h(ctx, req)
			}
			return unary(ctx, req, info, h)
		},
		Stream: func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if stream == nil || observerRoute(rpcRoute(info.FullMethod)) {
				return h(srv, ss)
			}
			return stream(srv, ss, info, h)
		},
	}
}

// mdCarrier carries a trace's context in gRPC metadata.
type mdCarrier metadata.MD

func (c mdCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c mdCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c mdCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
