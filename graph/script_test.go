package graph

import (
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// peers starts a plain node per name and returns them with their URLs.
func peers(t *testing.T, names ...string) (map[string]*Node, map[string]string) {
	t.Helper()
	nodes, urls := map[string]*Node{}, map[string]string{}
	for _, name := range names {
		n, srv := startNode(t, NodeConfig{Name: name})
		nodes[name], urls[name] = n, srv.URL
	}
	return nodes, urls
}

func served(t *testing.T, n *Node, route string) float64 {
	t.Helper()
	return metricCount(t, n.Registry(), "latlab_server_request_duration_seconds", map[string]string{"route": route})
}

func TestScriptRuns(t *testing.T) {
	nodes, urls := peers(t, "a", "b", "c")
	front := &Service{Name: "front", Commands: map[string][]string{"t": {"true"}}, Script: []Step{
		{Kind: Busywork, Duration: 2 * time.Millisecond},
		{Kind: Prime, N: 1000},
		{Kind: Fork, Name: "t"},
		{Kind: Call, Name: "c", Prob: 1},
		{Kind: Parallel, Steps: []Step{
			{Kind: Call, Name: "a", Prob: 0},
			{Kind: Call, Name: "b", Prob: 1},
			{Kind: Call, Name: "b", Prob: 1},
			{Kind: Sleep, Duration: time.Millisecond},
		}},
	}}
	topo := &Topology{Services: []*Service{front, {Name: "a"}, {Name: "b"}, {Name: "c"}}}
	n, srv := startNode(t, NodeConfig{Name: "front", Topology: topo, Peers: urls})
	const requests = 5
	for range requests {
		a := get(t, srv.URL+"/")
		if want := "front / script\nc / ok\nb / ok\nb / ok\n"; a.code != http.StatusOK || a.body != want {
			t.Fatalf("GET / = %d %q, want 200 %q", a.code, a.body, want)
		}
		st := parseServerTiming(a.header.Get("Server-Timing"))
		if st["work"] < 3 || st["downstream"] <= 0 {
			t.Errorf("Server-Timing %v, want work ≥ 3 ms (busywork and sleep) and some downstream", st)
		}
	}
	for name, want := range map[string]float64{"a": 0, "b": 2 * requests, "c": requests} {
		if got := served(t, nodes[name], "/"); got != want {
			t.Errorf("%s served / %v times, want %v", name, got, want)
		}
		if got := metricCount(t, n.Registry(), "latlab_client_request_duration_seconds", map[string]string{"peer": name}); got != want {
			t.Errorf("front's client metric for %s counts %v, want %v", name, got, want)
		}
	}
	for _, kind := range []string{"busywork", "prime", "fork", "sleep"} {
		if got := metricCount(t, n.Registry(), "latlab_work_duration_seconds", map[string]string{"kind": kind}); got != requests {
			t.Errorf("work %s counted %v times, want %d", kind, got, requests)
		}
	}

	// Other work routes are forwarded to every service the script calls,
	// whether or not a call's probability would make it.
	if a := get(t, srv.URL+"/busywork?ms=1"); a.code != http.StatusOK {
		t.Fatalf("GET /busywork: %d %q", a.code, a.body)
	}
	for _, name := range []string{"a", "b", "c"} {
		if got := served(t, nodes[name], "/busywork"); got != 1 {
			t.Errorf("%s served /busywork %v times, want 1", name, got)
		}
	}
}

func TestScriptCalls(t *testing.T) {
	nodes, urls := peers(t, "x", "y")
	svc := &Service{Name: "front", Calls: []string{"x", "y", "x"}}
	_, srv := startNode(t, NodeConfig{Name: "front", Service: svc, Peers: urls})
	if a := get(t, srv.URL+"/"); a.code != http.StatusOK || a.body != "front / ok\nx / ok\ny / ok\n" {
		t.Errorf("GET / = %d %q", a.code, a.body)
	}
	for name, want := range map[string]float64{"x": 1, "y": 1} {
		if got := served(t, nodes[name], "/"); got != want {
			t.Errorf("%s served / %v times, want %v", name, got, want)
		}
	}
}

func TestScriptErrors(t *testing.T) {
	for _, tt := range []struct {
		rate float64
		want int
	}{{1, http.StatusServiceUnavailable}, {0, http.StatusOK}} {
		svc := &Service{Name: "flaky", Errors: &Errors{Rate: tt.rate, Status: http.StatusServiceUnavailable}}
		_, srv := startNode(t, NodeConfig{Name: "flaky", Service: svc})
		for range 20 {
			if a := get(t, srv.URL+"/"); a.code != tt.want {
				t.Fatalf("rate %v: GET / = %d %q, want %d", tt.rate, a.code, a.body, tt.want)
			}
		}
		if a := get(t, srv.URL+"/busywork?ms=0"); a.code != http.StatusOK {
			t.Errorf("rate %v: GET /busywork = %d, want 200: errors apply to / only", tt.rate, a.code)
		}
	}
}

func TestScriptPayload(t *testing.T) {
	svc := &Service{Name: "big", Script: []Step{
		{Kind: Payload, N: 100_000},
		{Kind: Parallel, Steps: []Step{{Kind: Payload, N: 1}, {Kind: Payload, N: 2}}},
	}}
	n, srv := startNode(t, NodeConfig{Name: "big", Service: svc})
	a := get(t, srv.URL+"/")
	if a.code != http.StatusOK || len(a.body) != 100_003 {
		t.Fatalf("GET / = %d with %d bytes, want 200 with 100003", a.code, len(a.body))
	}
	if got := a.header.Get("Content-Length"); got != "100003" {
		t.Errorf("Content-Length %q", got)
	}
	if got := metricCount(t, n.Registry(), "latlab_work_duration_seconds", map[string]string{"kind": "payload"}); got != 1 {
		t.Errorf("payload work counted %v times, want 1", got)
	}
}

func TestScriptCallBody(t *testing.T) {
	var method, path, size atomic.Value
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		method.Store(r.Method)
		path.Store(r.URL.Path)
		size.Store(strconv.Itoa(len(b)))
	}))
	defer sink.Close()
	svc := &Service{Name: "up", Script: []Step{{Kind: Call, Name: "sink", Path: "/upload", N: 1000, Prob: 1}}}
	_, srv := startNode(t, NodeConfig{Name: "up", Service: svc, Peers: map[string]string{"sink": sink.URL}})
	if a := get(t, srv.URL+"/"); a.code != http.StatusOK {
		t.Fatalf("GET / = %d %q", a.code, a.body)
	}
	if method.Load() != "POST" || path.Load() != "/upload" || size.Load() != "1000" {
		t.Errorf("sink saw %v %v with %v bytes, want POST /upload with 1000", method.Load(), path.Load(), size.Load())
	}
}

func TestScriptCallFailure(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	defer fail.Close()
	svc := &Service{Name: "front", Script: []Step{{Kind: Parallel, Steps: []Step{
		{Kind: Call, Name: "hang", Prob: 1},
		{Kind: Call, Name: "fail", Prob: 1},
	}}}}
	_, srv := startNode(t, NodeConfig{Name: "front", Service: svc, Peers: map[string]string{"hang": hang.URL, "fail": fail.URL}})
	// The failure cancels the hanging call rather than waiting for it.
	a := get(t, srv.URL+"/")
	if a.code != http.StatusBadGateway || !strings.Contains(a.body, "front: downstream fail /: status 500: broken") {
		t.Errorf("GET / = %d %q, want 502 naming fail", a.code, a.body)
	}
}

func TestNodeHeadersPassedOn(t *testing.T) {
	got := make(chan http.Header, 1)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
	}))
	defer sink.Close()
	topo := &Topology{Services: []*Service{{Name: "root", Filters: []Filter{{Kind: Delay, Delay: &DelaySpec{Header: "x-tenant"}}}}}}
	_, root := startNode(t, NodeConfig{Name: "root", Topology: topo, Downstreams: []string{sink.URL}})
	tp := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	a := do(t, http.MethodGet, root.URL+"/busywork?ms=0", "",
		"X-Remote-User", "alice", "X-Latlab-Run", "7", "X-Tenant", "t1", "Authorization", "secret", "Traceparent", tp)
	if a.code != http.StatusOK {
		t.Fatalf("status %d: %s", a.code, a.body)
	}
	h := <-got
	for k, want := range map[string]string{"X-Remote-User": "alice", "X-Latlab-Run": "7", "X-Tenant": "t1", "Traceparent": tp, "Authorization": ""} {
		if v := h.Get(k); v != want {
			t.Errorf("downstream got %s %q, want %q", k, v, want)
		}
	}
}

func TestNodeDownstreamFailure(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	_, failing := startNode(t, NodeConfig{Name: "failing", Service: &Service{Name: "failing",
		Errors: &Errors{Rate: 1, Status: http.StatusServiceUnavailable}}})
	tests := []struct {
		name, downstream string
		want             []string
	}{
		{"unreachable", deadURL, []string{"root: downstream " + deadURL + " /"}},
		{"failing", failing.URL, []string{"root: downstream " + failing.URL + " /: status 503", "failing: injected error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, root := startNode(t, NodeConfig{Name: "root", Downstreams: []string{tt.downstream}})
			a := get(t, root.URL+"/")
			if a.code != http.StatusBadGateway {
				t.Errorf("status = %d, want 502", a.code)
			}
			for _, w := range tt.want {
				if !strings.Contains(a.body, w) {
					t.Errorf("body %q does not contain %q", a.body, w)
				}
			}
		})
	}
}

// TestTextPlain: the Content-Types a node echoes are those whose media
// type mime.ParseMediaType reads as text/plain.
func TestTextPlain(t *testing.T) {
	for _, ct := range []string{
		"text/plain; charset=utf-8", "text/plain", "application/octet-stream", "",
		"TEXT/Plain", " text/plain ; charset=latin1", "text/plain;", "text/plainx", "text/plain/x",
		"text/plain; charset=a; charset=b", "text/html; charset=utf-8", "text/plain; q", "text/plain x",
	} {
		mt, _, _ := mime.ParseMediaType(ct)
		if got, want := textPlain(ct), mt == "text/plain"; got != want {
			t.Errorf("textPlain(%q) = %v, want %v", ct, got, want)
		}
	}
}
