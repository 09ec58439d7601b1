package middleware

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// An Interceptor is a Filter for a gRPC server: the same filter on unary and
// on streaming calls. A nil func takes no part in calls of its kind, so the
// zero Interceptor is skipped by ChainRPC. Install one with
// grpc.UnaryInterceptor(ic.Unary) and grpc.StreamInterceptor(ic.Stream), or
// the Chain variants of those options; the Interceptors this package returns
// have both funcs set.
//
// A server with an UnknownServiceHandler (a proxy, say) runs every call it
// has no method for as a stream, unary or not: such calls meet Stream.
type Interceptor struct {
	Unary  grpc.UnaryServerInterceptor
	Stream grpc.StreamServerInterceptor
}

// ChainRPC returns one Interceptor made of ics, outermost first: a call meets
// ics[0] first and the handler last, as with Chain. Nil funcs are skipped;
// ChainRPC() passes every call straight to its handler.
func ChainRPC(ics ...Interceptor) Interceptor {
	var unary []grpc.UnaryServerInterceptor
	var stream []grpc.StreamServerInterceptor
	for _, ic := range ics {
		if ic.Unary != nil {
			unary = append(unary, ic.Unary)
		}
		if ic.Stream != nil {
			stream = append(stream, ic.Stream)
		}
	}
	return Interceptor{Unary: chainUnary(unary), Stream: chainStream(stream)}
}

// chainUnary nests ics, ics[0] outermost. Each call builds one handler
// closure per interceptor after the first, as the handler differs per call.
func chainUnary(ics []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	switch len(ics) {
	case 0:
		return PassthroughRPC().Unary
	case 1:
		return ics[0]
	}
	outer, inner := ics[0], chainUnary(ics[1:])
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		return outer(ctx, req, info, func(ctx context.Context, req any) (any, error) {
			return inner(ctx, req, info, handler)
		})
	}
}

// chainStream is chainUnary for streaming calls.
func chainStream(ics []grpc.StreamServerInterceptor) grpc.StreamServerInterceptor {
	switch len(ics) {
	case 0:
		return PassthroughRPC().Stream
	case 1:
		return ics[0]
	}
	outer, inner := ics[0], chainStream(ics[1:])
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return outer(srv, ss, info, func(srv any, ss grpc.ServerStream) error {
			return inner(srv, ss, info, handler)
		})
	}
}

// PassthroughRPC returns an Interceptor that does nothing but call the
// handler: Passthrough for gRPC, the floor other interceptors are measured
// against.
func PassthroughRPC() Interceptor {
	return Interceptor{
		Unary: func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			return handler(ctx, req)
		},
		Stream: func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			return handler(srv, ss)
		},
	}
}

// DelayRPC is Delay for gRPC: it holds every call from user for d before
// calling the handler; calls from anyone else pass at once. The user is the
// first value of the incoming metadata key header, lower-cased ("" means
// DefaultUserHeader, x-remote-user); a call without that key has user "". A
// d ≤ 0 delays nothing.
//
// Given methods, it holds only the calls they name. Each is either a full
// gRPC method name, "/pkg.Service/Method", or an HTTP method: every gRPC
// call is an HTTP/2 POST, so "POST" names every call and any other HTTP
// method none. The same list thus serves Delay and DelayRPC.
//
// If the call's context ends while it is held, the call ends with status
// Unavailable and the handler is not called.
func DelayRPC(user, header string, d time.Duration, methods ...string) Interceptor {
	if d <= 0 {
		return PassthroughRPC()
	}
	key := metadataKey(header)
	holds := holdsMethod(methods)
	hold := func(ctx context.Context, method string) error {
		if !holds(method) || userOfMetadata(ctx, key) != user {
			return nil
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return status.Error(codes.Unavailable, "request ended while delayed")
		}
	}
	return Interceptor{
		Unary: func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			if err := hold(ctx, info.FullMethod); err != nil {
				return nil, err
			}
			return handler(ctx, req)
		},
		Stream: func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			if err := hold(ss.Context(), info.FullMethod); err != nil {
				return err
			}
			return handler(srv, ss)
		},
	}
}

// holdsMethod returns whether DelayRPC, given methods, holds calls of a full
// method name.
func holdsMethod(methods []string) func(fullMethod string) bool {
	all := len(methods) == 0
	named := make(map[string]bool)
	for _, m := range methods {
		switch {
		case m == http.MethodPost:
			all = true
		case strings.HasPrefix(m, "/"):
			named[m] = true
		}
	}
	if all {
		return func(string) bool { return true }
	}
	return func(fullMethod string) bool { return named[fullMethod] }
}

// TrackRPC is Track for gRPC: it returns ic wrapped so that its own latency
// is measured, from the moment a call enters ic (A) to the moment ic calls
// the handler (B), in latlab_request_filter_duration_seconds{filter=name}. A
// call ic ends itself, never calling the handler, is counted in
// latlab_request_filter_rejected_total{filter=name} instead. Only the first
// handler call of a call is observed, whichever goroutine makes it.
//
// Unlike Track, TrackRPC hands ic a handler of its own for each call, so ic
// may pass on any context. B−A includes TrackRPC's own bookkeeping, about
// 0.2 µs and two allocations (that handler and its flag):
// TrackRPC(name, m, PassthroughRPC()) measures that floor.
//
// With a nil m, TrackRPC returns ic itself and costs nothing. A zero ic is
// taken to be PassthroughRPC(); a nil func of ic stays nil.
func TrackRPC(name string, m *Metrics, ic Interceptor) Interceptor {
	if ic.Unary == nil && ic.Stream == nil {
		ic = PassthroughRPC()
	}
	if m == nil {
		return ic
	}
	duration := m.filterDuration.WithLabelValues(name)
	rejected := m.filterRejected.WithLabelValues(name)
	var out Interceptor
	if unary := ic.Unary; unary != nil {
		out.Unary = func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			start := time.Now()
			// passed is atomic because ic may call the handler from
			// another goroutine, even after it has returned.
			var passed atomic.Bool
			resp, err := unary(ctx, req, info, func(ctx context.Context, req any) (any, error) {
				if passed.CompareAndSwap(false, true) {
					duration.Observe(time.Since(start).Seconds())
				}
				return handler(ctx, req)
			})
			if !passed.Load() {
				rejected.Inc()
			}
			return resp, err
		}
	}
	if stream := ic.Stream; stream != nil {
		out.Stream = func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			start := time.Now()
			var passed atomic.Bool
			err := stream(srv, ss, info, func(srv any, ss grpc.ServerStream) error {
				if passed.CompareAndSwap(false, true) {
					duration.Observe(time.Since(start).Seconds())
				}
				return handler(srv, ss)
			})
			if !passed.Load() {
				rejected.Inc()
			}
			return err
		}
	}
	return out
}

// metadataKey returns the metadata key of header, DefaultUserHeader if
// empty: gRPC sends metadata keys in lower case.
func metadataKey(header string) string {
	return strings.ToLower(cmp.Or(header, DefaultUserHeader))
}

// userOfMetadata returns the first value of the incoming metadata key, or "".
// It is userOf for gRPC calls.
func userOfMetadata(ctx context.Context, key string) string {
	if v := metadata.ValueFromIncomingContext(ctx, key); len(v) > 0 {
		return v[0]
	}
	return ""
}
