package main

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
)

// grpcHealth serves grpc.health.v1.Health with reflection on 127.0.0.1
// and returns its address.
func grpcHealth(t *testing.T) string {
	t.Helper()
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	reflection.Register(srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// TestAttackGRPC attacks a gRPC method from the command line: the calls'
// statuses are named in the JSON, the target line says gRPC, and a method
// the server lacks is a usage error before the load.
func TestAttackGRPC(t *testing.T) {
	addr := grpcHealth(t)
	target := "grpc://" + addr + "/grpc.health.v1.Health/Check"
	code, stdout, stderr := runCLI(t, "attack", target, "-n", "40", "-c", "2", "-b", `{"service": ""}`, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var sum struct {
		Requests int64            `json:"requests"`
		Codes    map[string]int64 `json:"status_codes"`
		Success  float64          `json:"success_ratio"`
		MsgsOut  int64            `json:"messages_sent"`
		MsgsIn   int64            `json:"messages_received"`
		Gaps     json.RawMessage  `json:"reply_gap_seconds"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Requests != 40 || sum.Codes["OK"] != 40 || sum.Success != 1 || sum.MsgsOut != 40 || sum.MsgsIn != 40 {
		t.Errorf("requests %d, codes %v, success %v, messages %d out, %d in; want 40, OK: 40, 1, 40 and 40",
			sum.Requests, sum.Codes, sum.Success, sum.MsgsOut, sum.MsgsIn)
	}
	if sum.Gaps != nil {
		t.Errorf("reply_gap_seconds %s for unary calls, want it absent", sum.Gaps)
	}
	code, stdout, _ = runCLI(t, "attack", target, "-n", "10", "-b", `{"service": "nope"}`, "--success", "NOT_FOUND")
	if code != exitOK || !strings.Contains(stdout, "gRPC "+target) || !strings.Contains(stdout, "codes NOT_FOUND:10") ||
		!strings.Contains(stdout, "Success    100.00%") {
		t.Errorf("exit %d; want the target named gRPC and 10 NOT_FOUND counted a success by --success:\n%s", code, stdout)
	}
	code, _, stderr = runCLI(t, "attack", "grpc://"+addr+"/grpc.health.v1.Health/Chek", "-n", "1")
	if code != exitUsage || !strings.Contains(stderr, "service grpc.health.v1.Health has no method Chek (it has Check, List, Watch)") {
		t.Errorf("exit %d, stderr %q; want a usage error naming the method", code, stderr)
	}
}
