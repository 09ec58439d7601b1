package probe_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/latlab/latlab/graph"
	"github.com/latlab/latlab/probe"
)

// TestTraceReceiverGraph sends requests through two real graph nodes,
// root → leaf, exporting spans with OTLP/HTTP to a receiver, and checks
// the receiver sees both hops of every request and no others: not the
// nodes' metrics scrapes, which they trace too.
func TestTraceReceiverGraph(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rcv := probe.NewTraceReceiver()
	endpoint, err := rcv.Listen(ctx, "")
	if err != nil {
		t.Fatal(err)
	}

	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 2)
	start := func(cfg graph.NodeConfig) string {
		t.Helper()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Listen = ln.Addr().String()
		cfg.OTLPEndpoint = endpoint
		n, err := graph.NewNode(cfg)
		if err != nil {
			ln.Close()
			t.Fatal(err)
		}
		go func() { served <- n.Serve(serveCtx, ln) }()
		return "http://" + ln.Addr().String()
	}
	leafURL := start(graph.NodeConfig{Name: "leaf"})
	rootURL := start(graph.NodeConfig{Name: "root", Downstreams: []string{leafURL}})

	get := func(url string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", url, resp.StatusCode)
		}
	}
	const requests = 5
	begin := time.Now()
	for i := range requests {
		get(rootURL + "/busywork?ms=2")
		if i%2 == 0 { // as the metrics probe does during a trial
			get(rootURL + "/metrics")
			get(leafURL + "/metrics")
		}
	}
	// Ending Serve closes each node, which flushes its spans before
	// Serve returns.
	stop()
	for range 2 {
		if err := <-served; err != nil {
			t.Errorf("serving: %v", err)
		}
	}

	hops := map[[2]string]probe.Hop{}
	for _, h := range rcv.Hops() {
		hops[[2]string{h.Caller, h.Callee}] = h
	}
	entry, call := hops[[2]string{"", "root"}], hops[[2]string{"root", "leaf"}]
	if entry.Count != requests || call.Count != requests || len(call.Network.Samples) != requests {
		t.Fatalf("hops %+v: want %d requests into root and %d calls root→leaf with network times", rcv.Hops(), requests, requests)
	}
	if len(hops) != 2 {
		t.Errorf("hops %+v: want only →root and root→leaf", rcv.Hops())
	}
	// Each node did at least 2 ms of busywork per request, which its
	// framework time must leave out.
	serverTime := map[string]time.Duration{}
	for _, s := range rcv.Spans() {
		if s.Kind == probe.SpanKindServer {
			serverTime[s.Service] += s.Duration()
		}
	}
	for _, h := range []probe.Hop{entry, call} {
		var framework time.Duration
		for _, d := range h.Framework.Samples {
			framework += d
		}
		if limit := serverTime[h.Callee] - requests*2*time.Millisecond; framework > limit {
			t.Errorf("hop %s→%s: framework time %s in all, more than server time less work (%s)", h.Caller, h.Callee, framework, limit)
		}
	}
	if call.Network.P50 <= 0 {
		t.Errorf("root→leaf network p50 %s, want above zero", call.Network.P50)
	}
	points := rcv.Points(begin)
	if got := len(points); got != 3*requests {
		t.Errorf("%d points, want %d (two framework and one network per request)", got, 3*requests)
	}
	for _, p := range points {
		if p.Series == "orphan_spans_total" {
			t.Errorf("%v orphan spans of %s: want every parent found", p.Value, p.Labels["callee"])
		}
	}
	if rcv.Rejected() != 0 {
		t.Errorf("%d spans rejected", rcv.Rejected())
	}
}
