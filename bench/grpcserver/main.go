// Command grpcserver is the smallest gRPC target worth measuring: grpc-go
// serving grpc.health.v1.Health/Check, which answers at once, with the
// reflection service, so that a client needs no .proto file. It is the
// baseline the gRPC rows of bench/peers.sh send to, as nginx is for HTTP.
//
//	grpcserver -listen 127.0.0.1:50051
//	grpcserver -listen 127.0.0.1:50051 -stall 1s -every 5s
//
// With -stall, every call that arrives during the first -stall of each
// -every (counted from the first call) waits until that stall ends: a
// server that stops answering for a while, such as one paused for garbage
// collection or a failover. A load generator measuring from each call's
// intended send time shows the stall in its tail; one measuring from the
// actual send hides most of it.
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:50051", "address to listen on")
	stall := flag.Duration("stall", 0, "stall calls this long at the start of every -every")
	every := flag.Duration("every", 5*time.Second, "period of the stalls")
	flag.Parse()
	if *stall < 0 || *every <= 0 || *stall >= *every {
		log.Fatal("grpcserver: want 0 <= -stall < -every")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	var opts []grpc.ServerOption
	if *stall > 0 {
		s := &staller{stall: *stall, every: *every}
		opts = append(opts, grpc.UnaryInterceptor(s.intercept))
	}
	srv := grpc.NewServer(opts...)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	reflection.Register(srv)
	log.SetOutput(os.Stderr)
	log.Printf("grpcserver: listening on %s", ln.Addr())
	if err := srv.Serve(ln); err != nil {
		log.Fatal(err)
	}
}

// staller holds the calls that arrive during a stall until it ends.
type staller struct {
	stall, every time.Duration
	once         sync.Once
	start        time.Time
}

func (s *staller) intercept(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	now := time.Now()
	s.once.Do(func() { s.start = now })
	if in := now.Sub(s.start) % s.every; in < s.stall {
		t := time.NewTimer(s.stall - in)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	return h(ctx, req)
}
