package graph

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/dynamicpb"
)

// runningGraph serves every service of the topology src as a node on a
// loopback port of its own, and returns the nodes and their host:ports
// by name. Everything stops at the end of the test.
func runningGraph(t *testing.T, src string, tlsCfg *tls.Config) (map[string]*Node, map[string]string) {
	t.Helper()
	topo, err := ParseTopology("test.yaml", []byte(src), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lns := map[string]net.Listener{}
	peers := map[string]string{}
	scheme := "http://"
	if tlsCfg != nil {
		scheme = "https://"
	}
	for _, s := range topo.Services {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[s.Name], peers[s.Name] = ln, scheme+ln.Addr().String()
	}
	nodes, addrs := map[string]*Node{}, map[string]string{}
	for _, s := range topo.Services {
		n, err := NewNode(NodeConfig{Topology: topo, Service: s, Peers: peers, TLS: tlsCfg, ShutdownGrace: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func(ln net.Listener) { done <- n.Serve(ctx, ln) }(lns[s.Name])
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve %s: %v", s.Name, err)
			}
		})
		nodes[s.Name], addrs[s.Name] = n, lns[s.Name].Addr().String()
	}
	return nodes, addrs
}

// dialRPC returns a gRPC client of the node at addr.
func dialRPC(t *testing.T, addr string, creds credentials.TransportCredentials) *grpc.ClientConn {
	t.Helper()
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// runCall calls Run and returns its reply's text and payload length, and
// the answer's header.
func runCall(ctx context.Context, cc *grpc.ClientConn, size int64) (string, int, metadata.MD, error) {
	reply := dynamicpb.NewMessage(nodeTypes.reply)
	var header metadata.MD
	err := cc.Invoke(ctx, RunMethod, newRequest(size), reply, grpc.Header(&header))
	if err != nil {
		return "", 0, header, err
	}
	return reply.Get(nodeTypes.text).String(), len(reply.Get(nodeTypes.payload).Bytes()), header, nil
}

func timeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

const rpcMesh = `
services:
  - name: gateway
    entry: true
    protocol: grpc
    proxy: front
    filters:
      - delay: {user: slow, duration: 20ms}
      - passthrough: {}
  - name: front
    protocol: grpc
    script:
      - busywork: 50us
      - [ {call: details}, {call: reviews, size: 100} ]
  - name: details
    protocol: grpc
    script: [ {sleep: 1ms}, {payload: 2KB} ]
  - name: reviews
    script: [ {call: ratings} ]
  - name: ratings
    protocol: grpc
    script: [ {payload: 512} ]
`

// A gRPC graph answers through a proxy, across gRPC and HTTP hops, with
// each node's line, its payload, Server-Timing, and its calls measured.
func TestRPCGraph(t *testing.T) {
	nodes, addrs := runningGraph(t, rpcMesh, nil)
	cc := dialRPC(t, addrs["gateway"], nil)
	text, payload, header, err := runCall(timeout(t), cc, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"front /latlab.graph.v1.Node/Run script", "details /latlab.graph.v1.Node/Run script",
		"reviews / script", "ratings /latlab.graph.v1.Node/Run script"} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("reply text lacks %q:\n%s", line, text)
		}
	}
	if payload != 0 {
		t.Errorf("front's reply has %d payload bytes; its script has no payload step", payload)
	}
	if st := header.Get("server-timing"); len(st) != 1 || !strings.Contains(st[0], "downstream;dur=") {
		t.Errorf("server-timing header %q", st)
	}
	front := nodes["front"].Registry()
	for _, c := range []struct {
		labels map[string]string
	}{
		{map[string]string{"peer": "details", "route": RunMethod, "code": "OK"}},
		{map[string]string{"peer": "reviews", "route": "/", "code": "200"}},
	} {
		if got := metricCount(t, front, "latlab_client_request_duration_seconds", c.labels); got != 1 {
			t.Errorf("front's calls %v: %v, want 1", c.labels, got)
		}
	}
	if got := metricCount(t, front, "latlab_server_request_duration_seconds", map[string]string{"route": RunMethod, "code": "OK"}); got != 1 {
		t.Errorf("front's served calls: %v, want 1", got)
	}
	gw := nodes["gateway"].Registry()
	if got := metricCount(t, gw, "latlab_request_filter_duration_seconds", map[string]string{"filter": "passthrough"}); got != 1 {
		t.Errorf("gateway's passthrough saw %v calls, want 1", got)
	}
	if got := metricCount(t, gw, "latlab_client_request_duration_seconds", map[string]string{"peer": "front", "code": "OK"}); got != 1 {
		t.Errorf("gateway's proxied calls: %v, want 1", got)
	}
	// The payload of a leaf comes back to its caller as bytes.
	_, payload, _, err = runCall(timeout(t), dialRPC(t, addrs["details"], nil), 0)
	if err != nil || payload != 2000 {
		t.Errorf("details: %d payload bytes, %v; want 2000", payload, err)
	}
}

// A gRPC proxy's filters run as interceptors: the delay holds its user's
// calls only, and takes its time before the call is passed on.
func TestRPCGraphFilters(t *testing.T) {
	nodes, addrs := runningGraph(t, rpcMesh, nil)
	cc := dialRPC(t, addrs["gateway"], nil)
	ctx := metadata.AppendToOutgoingContext(timeout(t), "x-remote-user", "slow")
	start := time.Now()
	if _, _, _, err := runCall(ctx, cc, 0); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("a call of the delayed user took %v, less than its 20ms delay", d)
	}
	gw := nodes["gateway"].Registry()
	if got := metricCount(t, gw, "latlab_request_filter_duration_seconds", map[string]string{"filter": "delay"}); got != 1 {
		t.Errorf("delay filter observed %v calls, want 1", got)
	}
	// A cancelled call held by the delay never reaches the service.
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(timeout(t), "x-remote-user", "slow"))
	cancel()
	if _, _, _, err := runCall(ctx, cc, 0); status.Code(err) != codes.Canceled {
		t.Errorf("cancelled call: %v, want Canceled", err)
	}
	if got := metricCount(t, nodes["front"].Registry(), "latlab_server_request_duration_seconds", map[string]string{"route": RunMethod}); got != 1 {
		t.Errorf("front served %v calls, want the 1 that was not cancelled", got)
	}
}

const rpcFailing = `
services:
  - name: caller
    protocol: grpc
    script: [ {call: failing} ]
  - name: web
    script: [ {call: failing} ]
  - name: failing
    protocol: grpc
    errors: {rate: 1, code: RESOURCE_EXHAUSTED}
`

// Injected errors are gRPC statuses; a failed call downstream is
// UNAVAILABLE to a gRPC caller's client and 502 to an HTTP one's.
func TestRPCGraphErrors(t *testing.T) {
	_, addrs := runningGraph(t, rpcFailing, nil)
	_, _, _, err := runCall(timeout(t), dialRPC(t, addrs["failing"], nil), 0)
	if s := status.Convert(err); s.Code() != codes.ResourceExhausted || !strings.HasPrefix(s.Message(), "failing: injected error") {
		t.Errorf("failing: %v", err)
	}
	_, _, _, err = runCall(timeout(t), dialRPC(t, addrs["caller"], nil), 0)
	if s := status.Convert(err); s.Code() != codes.Unavailable || !strings.Contains(s.Message(), "downstream failing") ||
		!strings.Contains(s.Message(), "RESOURCE_EXHAUSTED") && !strings.Contains(s.Message(), "ResourceExhausted") {
		t.Errorf("caller: %v", err)
	}
	if a := get(t, "http://"+addrs["web"]+"/"); a.code != http.StatusBadGateway || !strings.Contains(a.body, "downstream failing") {
		t.Errorf("web: %d %q", a.code, a.body)
	}
}

// RunStream runs the script for each message, in order; health and
// reflection answer on a node, and its port serves /healthz and /metrics
// over HTTP/1.1 beside gRPC.
func TestRPCNodeStreamHealthReflection(t *testing.T) {
	_, addrs := runningGraph(t, rpcMesh, nil)
	cc := dialRPC(t, addrs["ratings"], nil)
	ctx := timeout(t)
	cs, err := cc.NewStream(ctx, &nodeServiceDesc.Streams[0], RunStreamPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := cs.SendMsg(newRequest(1)); err != nil {
			t.Fatal(err)
		}
		reply := dynamicpb.NewMessage(nodeTypes.reply)
		if err := cs.RecvMsg(reply); err != nil {
			t.Fatal(err)
		}
		if n := len(reply.Get(nodeTypes.payload).Bytes()); n != 512 {
			t.Errorf("reply %d: %d payload bytes, want 512", i, n)
		}
	}
	if err := cs.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if err := cs.RecvMsg(dynamicpb.NewMessage(nodeTypes.reply)); !errors.Is(err, io.EOF) {
		t.Errorf("after the last reply: %v, want io.EOF", err)
	}
	h, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health: %v %v", h, err)
	}
	rc, err := reflectpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Send(&reflectpb.ServerReflectionRequest{MessageRequest: &reflectpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: NodeService}}); err != nil {
		t.Fatal(err)
	}
	if r, err := rc.Recv(); err != nil || len(r.GetFileDescriptorResponse().GetFileDescriptorProto()) == 0 {
		t.Errorf("reflection of %s: %v %v", NodeService, r, err)
	}
	base := "http://" + addrs["ratings"]
	if a := get(t, base+"/healthz"); a.code != http.StatusOK {
		t.Errorf("/healthz: %d %q", a.code, a.body)
	}
	if a := get(t, base+"/metrics"); a.code != http.StatusOK || !strings.Contains(a.body, `route="`+RunStreamPath+`"`) {
		t.Errorf("/metrics: %d, RunStream not in it", a.code)
	}
	if a := get(t, base+"/"); a.code != http.StatusNotFound || !strings.Contains(a.body, "speaks gRPC") {
		t.Errorf("GET /: %d %q", a.code, a.body)
	}
}

// Over TLS one port serves gRPC to clients that agree on h2 and HTTPS to
// the others.
func TestRPCNodeTLS(t *testing.T) {
	cfg, err := TLSDir(t.TempDir(), []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	_, addrs := runningGraph(t, "services:\n  - {name: leaf, protocol: grpc, script: [{payload: 10}]}\n", cfg)
	client := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the test's own certificate
	text, _, _, err := runCall(timeout(t), dialRPC(t, addrs["leaf"], credentials.NewTLS(client)), 0)
	if err != nil || !strings.Contains(text, "leaf ") {
		t.Fatalf("over TLS: %q %v", text, err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: client}}
	resp, err := hc.Get("https://" + addrs["leaf"] + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("https /healthz: %d", resp.StatusCode)
	}
}

// A call in flight when Serve's context ends still gets its answer.
func TestRPCNodeServeDrains(t *testing.T) {
	topo, err := ParseTopology("t.yaml", []byte("services:\n  - {name: slow, protocol: grpc, script: [{sleep: 300ms}]}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	n, ln := nodeAndListener(t, NodeConfig{Topology: topo, Name: "slow"})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- n.Serve(ctx, ln) }()
	cc := dialRPC(t, ln.Addr().String(), nil)
	answered := make(chan error, 1)
	go func() {
		_, _, _, err := runCall(timeout(t), cc, 0)
		answered <- err
	}()
	for metricCount(t, n.Registry(), "latlab_server_in_flight_requests", nil) < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-answered; err != nil {
		t.Errorf("in-flight call: %v", err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}

// A gRPC service passes the caller's user on to the services it calls,
// over gRPC and HTTP, where their filters read it.
func TestRPCGraphPassesUser(t *testing.T) {
	nodes, addrs := runningGraph(t, `
services:
  - {name: a, protocol: grpc, script: [{call: b}, {call: c}]}
  - name: b
    protocol: grpc
    filters: [{delay: {user: slow, duration: 20ms}}]
  - name: c
    filters: [{delay: {user: slow, duration: 20ms}}]
`, nil)
	ctx := metadata.AppendToOutgoingContext(timeout(t), "x-remote-user", "slow")
	start := time.Now()
	if _, _, _, err := runCall(ctx, dialRPC(t, addrs["a"], nil), 0); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("the call took %v, less than the two 20ms delays of its user downstream", d)
	}
	for _, name := range []string{"b", "c"} {
		if got := metricCount(t, nodes[name].Registry(), "latlab_request_filter_duration_seconds", map[string]string{"filter": "delay"}); got != 1 {
			t.Errorf("%s's delay observed %v calls, want 1", name, got)
		}
	}
}
