package graph

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestTelemetryRouteLabel(t *testing.T) {
	tests := map[string]string{
		"/": "/", "/busywork": "/busywork", "/load-status": "/load-status", "/objects": "/objects",
		"/objects/x": "/objects/{name}", "/objects/": "other", "/debug/pprof/heap": "/debug/pprof/",
		"/busywork/": "other", "/../etc": "other", "": "other", "/metrics": "/metrics",
	}
	for path, want := range tests {
		if got := routeLabel(path); got != want {
			t.Errorf("routeLabel(%q) = %q, want %q", path, got, want)
		}
	}
	if codeLabel(200) != "200" || codeLabel(1000) != "other" || codeLabel(-1) != "other" {
		t.Error("codeLabel is wrong at or beyond its table")
	}
}

func TestTelemetryMetrics(t *testing.T) {
	nodes, srvs := chain(t, "root", "leaf")
	for _, path := range []string{"/busywork?ms=1", "/sleep?ms=1", "/prime?max=10", "/nope", "/nope/x"} {
		get(t, srvs[0].URL+path)
	}
	root := nodes[0]
	counts := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"latlab_server_request_duration_seconds", map[string]string{"service": "root", "route": "/busywork", "code": "200"}, 1},
		{"latlab_server_request_duration_seconds", map[string]string{"route": "other", "code": "404"}, 2},
		{"latlab_client_request_duration_seconds", map[string]string{"service": "root", "peer": srvs[1].URL, "route": "/sleep", "code": "200"}, 1},
		{"latlab_work_duration_seconds", map[string]string{"service": "root", "kind": "busywork"}, 1},
		{"latlab_work_duration_seconds", map[string]string{"kind": "prime"}, 1},
		{"latlab_work_ratio", map[string]string{"kind": "sleep"}, 1},
		{"latlab_work_ratio", map[string]string{"kind": "prime"}, 0},
		{"latlab_server_in_flight_requests", map[string]string{"service": "root"}, 0},
	}
	for _, c := range counts {
		if got := metricCount(t, root.Registry(), c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	mfs, err := root.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "latlab_server_request_duration_seconds" {
			for _, m := range mf.GetMetric() {
				if s := m.GetHistogram().Schema; s == nil || *s != 5 {
					t.Errorf("latlab_server_request_duration_seconds native schema %v, want 5 (buckets 2.2%% wide)", s)
				}
			}
		}
		if mf.GetName() != "latlab_work_ratio" {
			continue
		}
		for _, m := range mf.GetMetric() {
			h := m.GetHistogram()
			if h.GetSampleSum() < 1 {
				t.Errorf("work ratio sum %v: measured work shorter than asked", h.GetSampleSum())
			}
			if h.Schema != nil {
				t.Error("latlab_work_ratio is a native histogram: its classic buckets are the finer ones")
			}
		}
	}
	a := get(t, srvs[0].URL+"/metrics")
	for _, name := range []string{"latlab_server_request_duration_seconds_bucket{code=\"200\",route=\"/busywork\",service=\"root\",le=\"1e-05\"}",
		"latlab_client_request_duration_seconds", "latlab_work_duration_seconds", "latlab_work_ratio", "latlab_server_in_flight_requests", "process_cpu_seconds_total"} {
		if !strings.Contains(a.body, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}

// receiver counts the posts a fake trace collector gets at path and keeps
// their bodies.
type receiver struct {
	*httptest.Server
	posts  atomic.Int64
	mu     sync.Mutex
	bodies [][]byte
}

func newReceiver(t *testing.T, path string) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != path {
			http.NotFound(w, req)
			return
		}
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, b)
		r.mu.Unlock()
		r.posts.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(r.Close)
	return r
}

func TestTelemetryOTLP(t *testing.T) {
	rcv := newReceiver(t, "/v1/traces")
	leaf, leafSrv := startNode(t, NodeConfig{Name: "leaf", OTLPEndpoint: rcv.URL})
	root, rootSrv := startNode(t, NodeConfig{Name: "root", OTLPEndpoint: rcv.URL, Downstreams: []string{leafSrv.URL}})
	if a := get(t, rootSrv.URL+"/busywork?ms=1"); a.code != http.StatusOK {
		t.Fatalf("GET: %d %q", a.code, a.body)
	}
	// Closing flushes each node's spans.
	for _, n := range []*Node{root, leaf} {
		if err := n.Close(); err != nil {
			t.Fatalf("closing %s: %v", n.Name(), err)
		}
	}
	if got := rcv.posts.Load(); got < 2 {
		t.Errorf("the OTLP receiver got %d posts, want one from each node", got)
	}
}

type zipkinSpan struct {
	TraceID       string `json:"traceId"`
	ID            string `json:"id"`
	ParentID      string `json:"parentId"`
	Name          string `json:"name"`
	Kind          string `json:"kind"`
	LocalEndpoint struct {
		ServiceName string `json:"serviceName"`
	} `json:"localEndpoint"`
}

func TestTelemetryZipkin(t *testing.T) {
	rcv := newReceiver(t, "/api/v2/spans")
	leaf, leafSrv := startNode(t, NodeConfig{Name: "leaf", ZipkinEndpoint: rcv.URL + "/api/v2/spans"})
	root, rootSrv := startNode(t, NodeConfig{Name: "root", ZipkinEndpoint: rcv.URL + "/api/v2/spans", Downstreams: []string{leafSrv.URL}})
	if a := get(t, rootSrv.URL+"/busywork?ms=1"); a.code != http.StatusOK {
		t.Fatalf("GET: %d %q", a.code, a.body)
	}
	root.Close()
	leaf.Close()
	var spans []zipkinSpan
	rcv.mu.Lock()
	for _, b := range rcv.bodies {
		var batch []zipkinSpan
		if err := json.Unmarshal(b, &batch); err != nil {
			t.Fatalf("decoding a Zipkin post: %v", err)
		}
		spans = append(spans, batch...)
	}
	rcv.mu.Unlock()
	got := map[string]zipkinSpan{}
	for _, s := range spans {
		got[s.LocalEndpoint.ServiceName+" "+s.Name] = s // Zipkin lowercases names
	}
	want := []string{"root get /busywork", "root busywork", "root call " + leafSrv.URL + " /busywork", "leaf get /busywork", "leaf busywork"}
	for _, w := range want {
		if _, ok := got[w]; !ok {
			t.Errorf("no span %q among %v", w, got)
		}
	}
	call, server := got["root call "+leafSrv.URL+" /busywork"], got["leaf get /busywork"]
	if server.TraceID != got["root get /busywork"].TraceID || server.ParentID != call.ID {
		t.Errorf("the leaf's span (trace %s, parent %s) is not a child of root's call (trace %s, span %s)",
			server.TraceID, server.ParentID, call.TraceID, call.ID)
	}
}

func TestTelemetryTraceparent(t *testing.T) {
	rcv := newReceiver(t, "/api/v2/spans")
	seen := make(chan string, 1)
	sink := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen <- r.Header.Get("Traceparent") }))
	defer sink.Close()
	_, srv := startNode(t, NodeConfig{Name: "root", ZipkinEndpoint: rcv.URL + "/api/v2/spans", Downstreams: []string{sink.URL}})
	valid := regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-01$`)

	get(t, srv.URL+"/")
	if tp := <-seen; !valid.MatchString(tp) {
		t.Errorf("downstream got traceparent %q, want a sampled one", tp)
	}
	in := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	do(t, http.MethodGet, srv.URL+"/", "", "Traceparent", in)
	tp := <-seen
	m := valid.FindStringSubmatch(tp)
	if m == nil || m[1] != "0af7651916cd43dd8448eb211c80319c" || m[2] == "b7ad6b7169203331" {
		t.Errorf("downstream got traceparent %q, want the caller's trace with a span of the node's", tp)
	}
}

// metricCount returns the sample count of histogram name (or the value of
// a gauge or counter) over the series whose labels include want.
func metricCount(t testing.TB, reg prometheus.Gatherer, name string, want map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gathering: %v", err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if !hasLabels(m, want) {
				continue
			}
			switch {
			case m.Histogram != nil:
				sum += float64(m.Histogram.GetSampleCount())
			case m.Gauge != nil:
				sum += m.Gauge.GetValue()
			case m.Counter != nil:
				sum += m.Counter.GetValue()
			}
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == k && l.GetValue() == v }) {
			return false
		}
	}
	return true
}
