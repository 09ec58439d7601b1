package graph

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// nodeServiceDesc is node.proto's service, served by a gRPC node.
var nodeServiceDesc = grpc.ServiceDesc{
	ServiceName: NodeService,
	HandlerType: (*any)(nil),
	Methods:     []grpc.MethodDesc{{MethodName: "Run", Handler: runHandler}},
	Streams: []grpc.StreamDesc{{
		StreamName: "RunStream", Handler: runStreamHandler, ServerStreams: true, ClientStreams: true,
	}},
	Metadata: "latlab/graph/v1/node.proto",
}

func runHandler(srv any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
	in := dynamicpb.NewMessage(nodeTypes.request)
	if err := dec(in); err != nil {
		return nil, err
	}
	n := srv.(*Node)
	if ic == nil {
		return n.runUnary(ctx)
	}
	info := &grpc.UnaryServerInfo{Server: srv, FullMethod: RunMethod}
	return ic(ctx, in, info, func(ctx context.Context, _ any) (any, error) { return n.runUnary(ctx) })
}

func runStreamHandler(srv any, ss grpc.ServerStream) error {
	n := srv.(*Node)
	for {
		if err := ss.RecvMsg(dynamicpb.NewMessage(nodeTypes.request)); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		reply, err := n.runOnce(ss.Context())
		if err != nil {
			return err
		}
		if err := ss.SendMsg(reply); err != nil {
			return err
		}
	}
}

// newRPCServer returns the gRPC server of a node whose service speaks
// gRPC: node.proto's service with health and reflection, or, for a
// proxy, every call passed on as it came. Calls go through the node's
// measurement and then its filters, as interceptors; health checks and
// reflection skip the filters, as /healthz does.
func (n *Node) newRPCServer() *grpc.Server {
	opts := []grpc.ServerOption{
		grpc.ConnectionTimeout(headerTimeout),
		grpc.MaxRecvMsgSize(int(min(n.cfg.Caps.MaxBody, math.MaxInt32))),
		grpc.ChainUnaryInterceptor(n.measureUnary, observed(n.rpcFilters).Unary),
		grpc.ChainStreamInterceptor(n.measureStream, observed(n.rpcFilters).Stream),
	}
	proxy := n.cfg.Service.Proxy != ""
	if proxy {
		opts = append(opts, grpc.ForceServerCodecV2(rawCodec{}), grpc.UnknownServiceHandler(n.proxyRPC))
	}
	s := grpc.NewServer(opts...)
	if !proxy {
		s.RegisterService(&nodeServiceDesc, n)
		healthpb.RegisterHealthServer(s, health.NewServer())
		reflection.Register(s)
	}
	return s
}

// runUnary answers one call of Run.
func (n *Node) runUnary(ctx context.Context) (any, error) {
	reply, err := n.runOnce(ctx)
	if err != nil {
		return nil, err
	}
	return reply, nil
}

// runOnce runs the service's script for one request, as / does, and
// returns its Reply, or its failure as a gRPC status. The answer's header
// server-timing is Server-Timing's value.
func (n *Node) runOnce(ctx context.Context) (*dynamicpb.Message, error) {
	ex := &exchange{in: n.incomingHeader(ctx), tm: timing{start: time.Now()}}
	f, err := n.root(nil)
	if err == nil {
		err = f(ctx, ex)
	}
	if err == nil {
		err = n.forward(ctx, ex, n.rootFwd, "/", "", true)
	}
	size := ex.payload.Load()
	if err == nil && size > n.cfg.Caps.MaxPayload {
		err = statusError(http.StatusInternalServerError, "payload: %d bytes is over MaxPayload (%d)", size, n.cfg.Caps.MaxPayload)
	}
	// A stream's later replies find its header sent: the first one has it.
	_ = grpc.SetHeader(ctx, metadata.Pairs("server-timing", ex.tm.header(time.Now())))
	if err != nil {
		return nil, rpcError(n.cfg.Name, err)
	}
	reply := dynamicpb.NewMessage(nodeTypes.reply)
	text := make([]byte, 0, len(n.cfg.Name)+len(RunMethod)+len(ex.detail)+3+len(ex.echo))
	text = append(append(append(append(text, n.cfg.Name...), ' '), RunMethod...), ' ')
	text = append(append(append(text, ex.detail...), '\n'), ex.echo...)
	reply.Set(nodeTypes.text, protoreflect.ValueOfString(string(text)))
	if size > 0 {
		start := time.Now()
		reply.Set(nodeTypes.payload, protoreflect.ValueOfBytes(patternBytes(size)))
		n.m.work.WithLabelValues(string(Payload)).Observe(time.Since(start).Seconds())
	}
	return reply, nil
}

// rpcError returns err as a gRPC status naming the node: a status as it
// is, a request's HTTP status as the gRPC code gRPC's own mapping gives
// it, and an ended context as its code.
func rpcError(name string, err error) error {
	if s, ok := status.FromError(err); ok {
		return status.Error(s.Code(), name+": "+s.Message())
	}
	code := codes.Internal
	var re *requestError
	switch {
	case errors.As(err, &re):
		code = httpCode(re.status)
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	}
	return status.Error(code, name+": "+err.Error())
}

// httpCode is the gRPC code of an HTTP status, as gRPC maps them
// (doc/http-grpc-status-mapping.md), with the statuses a node answers
// that the mapping leaves out given their nearest code.
func httpCode(s int) codes.Code {
	switch s {
	case http.StatusBadRequest:
		return codes.InvalidArgument
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusForbidden:
		return codes.PermissionDenied
	case http.StatusNotFound:
		return codes.NotFound
	case http.StatusRequestEntityTooLarge, http.StatusTooManyRequests, http.StatusInsufficientStorage:
		return codes.ResourceExhausted
	case http.StatusBadGateway, http.StatusServiceUnavailable:
		return codes.Unavailable
	case http.StatusGatewayTimeout:
		return codes.DeadlineExceeded
	}
	return codes.Internal
}

// incomingHeader returns the metadata of an incoming call that the node
// may pass downstream (see passHeaders), under HTTP's names; none for a
// service that calls no one.
func (n *Node) incomingHeader(ctx context.Context) http.Header {
	if len(n.rootFwd) == 0 && !n.calls {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	h := make(http.Header, 2)
	for k, v := range md {
		if ck := http.CanonicalHeaderKey(k); n.passes(ck) {
			h[ck] = v
		}
	}
	return h
}

// outgoingMD returns the headers h as outgoing metadata.
func outgoingMD(h http.Header) metadata.MD {
	md := make(metadata.MD, len(h))
	for k, v := range h {
		md[strings.ToLower(k)] = v
	}
	return md
}
