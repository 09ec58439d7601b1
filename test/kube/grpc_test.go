package kube

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKubeGRPCGraph runs a graph that speaks gRPC on the test cluster:
// its Deployments and Services from the topology, a gRPC proxy hop in
// front, the load from a pod calling latlab.graph.v1.Node/Run through the
// entry's Service (types by reflection, through the proxy), and the
// nodes' metrics scraped over HTTP/1.1 on the gRPC port.
func TestKubeGRPCGraph(t *testing.T) {
	tc := upCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "grpc.yaml"), []byte(`services:
  - {name: gateway, entry: true, protocol: grpc, proxy: front, filters: [{passthrough: {}}]}
  - {name: front, protocol: grpc, script: [{call: back}]}
  - {name: back, protocol: grpc, script: [{payload: 64}]}
`))
	spec := filepath.Join(dir, "spec.yaml")
	writeFile(t, spec, []byte(`version: 1
name: kube-grpc
kubernetes: {image: `+image+`}
variants:
  - {name: grpc, graph: grpc.yaml, on: kubernetes}
load: {on: kubernetes, mode: open, rates: [40], duration: 3s}
probes: {metrics: {interval: 500ms, window: 1s}}
`))
	db := filepath.Join(t.TempDir(), "results.db")
	out, err := tc.latlabRun(t, ctx, spec, "-o", db)
	if err != nil {
		t.Fatalf("latlab run: %v\n%s", err, out)
	}
	rs := runs(t, db)
	if len(rs) != 1 {
		t.Fatalf("%d runs, want 1:\n%s", len(rs), out)
	}
	r := rs[0]
	if r.Summary == nil || r.Summary.Requests != 120 || r.Summary.StatusCodes["OK"] != 120 {
		t.Fatalf("run: status %s, summary %+v; want 120 calls, each OK\n%s", r.Status, r.Summary, out)
	}
	services := map[string]bool{}
	for _, p := range probePoints(t, db, r.ID) {
		if p.Probe == "metrics" && strings.HasPrefix(p.Series, "latlab_server_request_duration_seconds:") {
			services[p.Labels["service"]] = true
		}
	}
	for _, s := range []string{"gateway", "front", "back"} {
		if !services[s] {
			t.Errorf("no server latency scraped from %s; got %v", s, services)
		}
	}
}
