package graph

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startNode serves a new node over httptest, after setup if given, and
// closes both at the end of the test.
func startNode(t testing.TB, cfg NodeConfig, setup ...func(*Node)) (*Node, *httptest.Server) {
	t.Helper()
	n, err := NewNode(cfg)
	if err != nil {
		t.Fatalf("NewNode: %v", err)
	}
	for _, f := range setup {
		f(n)
	}
	srv := httptest.NewServer(n.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := n.Close(); err != nil {
			t.Errorf("closing node %s: %v", cfg.Name, err)
		}
	})
	return n, srv
}

// chain starts len(names) nodes, each forwarding to the next by
// Downstreams, and returns them entry first.
func chain(t testing.TB, names ...string) ([]*Node, []*httptest.Server) {
	t.Helper()
	nodes := make([]*Node, len(names))
	srvs := make([]*httptest.Server, len(names))
	for i := len(names) - 1; i >= 0; i-- {
		cfg := NodeConfig{Name: names[i]}
		if i+1 < len(names) {
			cfg.Downstreams = []string{srvs[i+1].URL}
		}
		nodes[i], srvs[i] = startNode(t, cfg)
	}
	return nodes, srvs
}

type answer struct {
	code   int
	body   string
	header http.Header
}

func do(t testing.TB, method, url, body string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return answer{resp.StatusCode, string(b), resp.Header}
}

func get(t testing.TB, url string) answer { t.Helper(); return do(t, http.MethodGet, url, "") }

// parseServerTiming reads the dur of each metric of a Server-Timing value,
// in milliseconds; a metric without a valid dur is left out.
func parseServerTiming(v string) map[string]float64 {
	m := map[string]float64{}
	for entry := range strings.SplitSeq(v, ",") {
		name, params, _ := strings.Cut(entry, ";")
		for p := range strings.SplitSeq(params, ";") {
			k, val, _ := strings.Cut(p, "=")
			if strings.TrimSpace(k) != "dur" {
				continue
			}
			if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
				m[strings.TrimSpace(name)] = f
			}
		}
	}
	return m
}

func TestNodeConfigErrors(t *testing.T) {
	topo := &Topology{File: "t.yaml", Services: []*Service{{Name: "a"}}}
	tests := []struct {
		name string
		cfg  NodeConfig
		want string
	}{
		{"no name", NodeConfig{}, "Name is empty"},
		{"bad downstream", NodeConfig{Name: "a", Downstreams: []string{"ftp://x"}}, `downstream "ftp://x"`},
		{"downstream without host", NodeConfig{Name: "a", Downstreams: []string{"http://"}}, "no host"},
		{"bad peer", NodeConfig{Name: "a", Peers: map[string]string{"b": "b:80"}}, "peer b"},
		{"bad listen", NodeConfig{Name: "a", Listen: "8080"}, `Listen "8080"`},
		{"ratio", NodeConfig{Name: "a", TraceRatio: 1.5}, "TraceRatio"},
		{"negative cap", NodeConfig{Name: "a", Caps: Caps{MaxBody: -1}}, "negative cap"},
		{"negative prime", NodeConfig{Name: "a", PrimeMax: -1}, "PrimeMax"},
		{"not in topology", NodeConfig{Name: "b", Topology: topo}, "no such service in t.yaml"},
		{"fork without command", NodeConfig{Name: "a", Service: &Service{Name: "a",
			Script: []Step{{Kind: Fork, Name: "date", Line: 7}}}}, `script line 7: fork: no command called "date"`},
		{"payload over cap", NodeConfig{Name: "a", Caps: Caps{MaxPayload: 10}, Service: &Service{Name: "a",
			Script: []Step{{Kind: Parallel, Steps: []Step{{Kind: Payload, N: 11}}}}}}, "MaxPayload"},
		{"load job missing", NodeConfig{Name: "a", Service: &Service{Name: "a", LoadJob: "x"}}, `load job "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := NewNode(tt.cfg)
			if err == nil {
				n.Close()
				t.Fatalf("NewNode succeeded, want an error with %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestNodeDefaults(t *testing.T) {
	topo := &Topology{Services: []*Service{{Name: "front", Port: 9000, PrimeMax: 5000, Calls: []string{"back"}}, {Name: "back"}}}
	n, err := NewNode(NodeConfig{Name: "front", Topology: topo})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if got, want := n.cfg.Listen, "127.0.0.1:9000"; got != want {
		t.Errorf("Listen = %q, want %q", got, want)
	}
	if got, want := n.cfg.PrimeMax, int64(5000); got != want {
		t.Errorf("PrimeMax = %d, want %d", got, want)
	}
	if got, want := n.cfg.peerURL("back"), "http://back:9000"; got != want {
		t.Errorf("peer URL = %q, want %q", got, want)
	}
	if got, want := n.cfg.Caps.MaxLoads, 4; got != want {
		t.Errorf("MaxLoads = %d, want %d", got, want)
	}
}

func TestNodeChain(t *testing.T) {
	nodes, srvs := chain(t, "root", "branch", "leaf")
	routes := []struct{ path, route, line string }{
		{"/", "/", "/ ok"},
		{"/busywork?ms=1", "/busywork", "/busywork ms=1"},
		{"/prime?max=100", "/prime", "/prime max=100 primes=25"},
		{"/sleep?ms=0.5", "/sleep", "/sleep ms=0.5"},
	}
	for _, r := range routes {
		a := get(t, srvs[0].URL+r.path)
		if a.code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", r.path, a.code, a.body)
		}
		want := "root " + r.line + "\nbranch " + r.line + "\nleaf " + r.line + "\n"
		if a.body != want {
			t.Errorf("GET %s body = %q, want %q", r.path, a.body, want)
		}
		for _, n := range nodes {
			if got := metricCount(t, n.Registry(), "latlab_server_request_duration_seconds",
				map[string]string{"route": r.route, "code": "200"}); got != 1 {
				t.Errorf("%s: %s served %v times, want 1", n.Name(), r.route, got)
			}
		}
		if got := metricCount(t, nodes[1].Registry(), "latlab_client_request_duration_seconds",
			map[string]string{"peer": srvs[2].URL, "route": r.route, "code": "200"}); got != 1 {
			t.Errorf("branch called leaf's %s %v times, want 1", r.route, got)
		}
	}
	if got := metricCount(t, nodes[2].Registry(), "latlab_client_request_duration_seconds", nil); got != 0 {
		t.Errorf("leaf made %v calls, want 0", got)
	}
}

func TestNodeServe(t *testing.T) {
	n, ln := nodeAndListener(t, NodeConfig{Name: "solo"})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- n.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	if a := get(t, base+"/healthz"); a.code != http.StatusOK || a.body != "ok\n" {
		t.Fatalf("healthz: %d %q", a.code, a.body)
	}
	// A request in flight when the context ends still gets its answer.
	inflight := make(chan int, 1)
	go func() {
		resp, err := http.Get(base + "/sleep?ms=300")
		if err != nil {
			inflight <- 0
			return
		}
		resp.Body.Close()
		inflight <- resp.StatusCode
	}()
	for metricCount(t, n.Registry(), "latlab_server_in_flight_requests", nil) < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if code := <-inflight; code != http.StatusOK {
		t.Errorf("in-flight request: status %d, want 200", code)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("node still answers after Serve returned")
	}
}

func TestNodeServeListenerError(t *testing.T) {
	n, ln := nodeAndListener(t, NodeConfig{Name: "solo"})
	ln.Close()
	if err := n.Serve(context.Background(), ln); err == nil || errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve on a closed listener = %v, want an error", err)
	}
}

// BenchmarkRootRoute is the cost of a node's handling of / without work or
// downstreams: routing, metrics, Server-Timing and the answer.
func BenchmarkRootRoute(b *testing.B) {
	n, err := NewNode(NodeConfig{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	h := n.Handler()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
}

// nodeAndListener returns a new node of cfg and a loopback listener to
// serve it on.
func nodeAndListener(tb testing.TB, cfg NodeConfig) (*Node, net.Listener) {
	tb.Helper()
	n, err := NewNode(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return n, ln
}

// serveNode serves a new node on a real loopback listener.
func serveNode(b *testing.B, cfg NodeConfig) string {
	b.Helper()
	n, ln := nodeAndListener(b, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx, ln) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// BenchmarkHop is the cost of one request through a real two-node
// loopback chain, client → node1 → node2, so about two hops.
func BenchmarkHop(b *testing.B) {
	leaf := serveNode(b, NodeConfig{Name: "node2"})
	root := serveNode(b, NodeConfig{Name: "node1", Downstreams: []string{leaf}})
	client := &http.Client{Transport: newTransport()}
	b.ReportAllocs()
	defer reportRusage(b)()
	for b.Loop() {
		resp, err := client.Get(root + "/")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// BenchmarkForward is a node's own path for / with one downstream: its
// handler, called directly, forwards to a plain server over loopback. The
// server side of the hop is the downstream's, not the node's. minimal is
// the floor: minimalHandler, a plain net/http handler, in the node's place.
func BenchmarkForward(b *testing.B) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "leaf / ok\n")
	}))
	defer down.Close()
	n, err := NewNode(NodeConfig{Name: "bench", Downstreams: []string{down.URL}})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"minimal", minimalHandler(down.URL)}, {"node", n.Handler()}} {
		b.Run(h.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			b.ReportAllocs()
			defer reportRusage(b)()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

// reportRusage, deferred at once, reports what the process spent per
// operation besides wall time, which on a shared machine moves with the
// neighbours: CPU time of all its threads (cpu-ns/op) and context switches
// (ctxsw/op), each a thread that went to sleep or was woken to run.
func reportRusage(b *testing.B) func() {
	before, err := rusage()
	if err != nil {
		b.Logf("getrusage: %v", err)
		return func() {}
	}
	return func() {
		after, err := rusage()
		if err != nil || b.N == 0 {
			return
		}
		cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(after.Nvcsw+after.Nivcsw-before.Nvcsw-before.Nivcsw)/float64(b.N), "ctxsw/op")
	}
}

func rusage() (syscall.Rusage, error) {
	var r syscall.Rusage
	return r, syscall.Getrusage(syscall.RUSAGE_SELF, &r)
}

// TestServerTimingFormat checks the integer formatting of a Server-Timing
// duration against strconv's rounding of the same milliseconds, off the
// half-microsecond ties where binary fractions may round either way.
func TestServerTimingFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 100000 {
		d := time.Duration(r.Int64N(int64(20 * time.Second)))
		if i < 2000 {
			d = time.Duration(i) * 997 // the first milliseconds closely
		}
		if d%time.Microsecond == time.Microsecond/2 {
			continue
		}
		got := string(appendMetric(nil, "x", d))
		want := "x;dur=" + strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
		if got != want {
			t.Fatalf("%d ns: %q, want %q", d, got, want)
		}
	}
}

// TestReadEcho reads an answer's text by its length, by EOF when it has
// none, up to maxEcho, and calls an answer shorter than its length an
// error.
func TestReadEcho(t *testing.T) {
	long := strings.Repeat("x", maxEcho+10)
	for _, c := range []struct {
		body    string
		length  int64
		want    string
		wantErr bool
	}{
		{"leaf / ok\n", 10, "leaf / ok\n", false},
		{"leaf / ok\n", -1, "leaf / ok\n", false},
		{"", 0, "", false},
		{long, -1, long[:maxEcho], false},
		{long, int64(len(long)), long[:maxEcho], false},
		{"leaf", 10, "leaf", true},
	} {
		got, err := readEcho(&io.LimitedReader{R: strings.NewReader(c.body)}, c.length)
		if string(got) != c.want || (err != nil) != c.wantErr {
			t.Errorf("%d bytes, length %d: read %d bytes, %v; want %d, error %t", len(c.body), c.length, len(got), err, len(c.want), c.wantErr)
		}
	}
}
