package probe

import (
	"context"
	"fmt"
	"net"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
)

// ListenGRPC serves the receiver as an OTLP/gRPC trace collector on addr
// ("" means 127.0.0.1:0, a free port) until ctx ends, and returns the
// address it listens on, such as 127.0.0.1:4317: the endpoint of an
// exporter that speaks OTLP over gRPC only, as kube-apiserver's does
// (--tracing-config-file), without TLS. The spans it keeps are those
// Listen's would, under the same limits; refused ones are named in the
// answer as a partial success. When ctx ends, exports in flight get five
// seconds to finish.
func (r *TraceReceiver) ListenGRPC(ctx context.Context, addr string) (string, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("trace receiver (gRPC): listening on %s: %w", addr, err)
	}
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(int(r.maxBody())))
	coltracepb.RegisterTraceServiceServer(srv, grpcTraces{r: r})
	go func() { _ = srv.Serve(ln) }() // returns once stopped
	go func() {
		<-ctx.Done()
		done := make(chan struct{})
		go func() { srv.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			srv.Stop()
		}
	}()
	return ln.Addr().String(), nil
}

// grpcTraces is the OTLP/gRPC trace service of a TraceReceiver.
type grpcTraces struct {
	coltracepb.UnimplementedTraceServiceServer
	r *TraceReceiver
}

// Export keeps the spans of msg, as ServeHTTP does those of a POST.
func (g grpcTraces) Export(_ context.Context, msg *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	spans, invalid := spansOf(msg, false)
	return g.r.answer(spans, invalid), nil
}
