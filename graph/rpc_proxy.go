package graph

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// proxyStream is the stream every proxied call is opened as: whatever its
// kind, a call is a stream of messages each way.
var proxyStream = &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}

// proxyRPC is a gRPC proxy service's handler of every call, the shape of
// a sidecar's: the call goes to the proxied service with its method,
// metadata and messages as they came, undecoded, and its header, messages,
// trailer and status come back the same way. The call is recorded as a
// client call, in latlab_client_request_duration_seconds and a client
// span. An unreachable service is UNAVAILABLE naming it.
func (n *Node) proxyRPC(_ any, ss grpc.ServerStream) error {
	name := n.cfg.Service.Proxy
	method, _ := grpc.MethodFromServerStream(ss)
	route := rpcRoute(method)
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	ctx, span := n.tr.startSpan(ctx, "proxy "+name+" "+route, trace.SpanKindClient,
		attribute.String("peer.service", name), attribute.String("rpc.method", method))
	md := forwardedMD(ctx)
	if n.tr.on {
		n.tr.prop.Inject(ctx, mdCarrier(md))
	}
	start := time.Now()
	err := n.pump(metadata.NewOutgoingContext(ctx, md), cancel, ss, method)
	code := status.Code(err)
	n.m.client.WithLabelValues(name, route, rpcCodeLabel(code)).Observe(time.Since(start).Seconds())
	if code != codes.OK {
		span.SetStatus(otelcodes.Error, status.Convert(err).Message())
	}
	span.End()
	return err
}

// pump opens the call on the proxied service and passes messages both
// ways until it ends, returning its status.
func (n *Node) pump(ctx context.Context, cancel context.CancelFunc, ss grpc.ServerStream, method string) error {
	name := n.cfg.Service.Proxy
	cc := n.rpcPeers[name]
	if cc == nil { // a service outside a topology, which says nothing of its peer
		return status.Errorf(codes.Unavailable, "%s: proxy to %s: not known to speak gRPC", n.cfg.Name, name)
	}
	cs, err := cc.NewStream(ctx, proxyStream, method, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		return status.Errorf(codes.Unavailable, "%s: proxy to %s: %v", n.cfg.Name, name, err)
	}
	// The caller's messages go on in their own goroutine; a failure to
	// read them ends the call, so the proxied service sees it end too.
	go func() {
		for {
			f := &rawFrame{}
			if err := ss.RecvMsg(f); err != nil {
				if errors.Is(err, io.EOF) {
					_ = cs.CloseSend()
				} else {
					cancel()
				}
				return
			}
			if cs.SendMsg(f) != nil {
				return // the call has ended: RecvMsg below says how
			}
		}
	}()
	if h, err := cs.Header(); err == nil && len(h) > 0 {
		if err := ss.SendHeader(h); err != nil {
			return err
		}
	}
	for {
		f := &rawFrame{}
		err := cs.RecvMsg(f)
		if err != nil {
			ss.SetTrailer(cs.Trailer())
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := ss.SendMsg(f); err != nil {
			return err
		}
	}
}

// forwardedMD returns the metadata of the call being proxied that is
// passed on: everything but the transport's own (pseudo-headers,
// content-type, user-agent, te), which gRPC sets again on the new call.
func forwardedMD(ctx context.Context) metadata.MD {
	in, _ := metadata.FromIncomingContext(ctx)
	md := make(metadata.MD, len(in))
	for k, v := range in {
		switch {
		case strings.HasPrefix(k, ":"), k == "content-type", k == "user-agent", k == "te", k == "grpc-timeout":
		default:
			md[k] = v
		}
	}
	return md
}
