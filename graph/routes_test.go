package graph

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRoutes(t *testing.T) {
	svc := &Service{Name: "solo", Commands: map[string][]string{"a-true": {"true"}, "z-false": {"false"}}}
	_, srv := startNode(t, NodeConfig{Name: "solo", Service: svc, Caps: Caps{
		MaxBusywork: 50 * time.Millisecond, MaxSleep: 50 * time.Millisecond, MaxPrime: 1000, MaxBody: 16,
	}})
	tests := []struct {
		method, path, body string
		code               int
		want               string // in the body
	}{
		{"GET", "/", "", 200, "solo / ok\n"},
		{"POST", "/", "a small body", 200, "solo / ok\n"},
		{"HEAD", "/busywork?ms=0", "", 200, ""},
		{"GET", "/busywork", "", 200, "solo /busywork ms=10\n"},
		{"GET", "/busywork?ms=1.5", "", 200, "solo /busywork ms=1.5\n"},
		{"GET", "/busywork?ms=abc", "", 400, `ms: "abc" is not a number`},
		{"GET", "/busywork?ms=-1", "", 400, `ms: "-1" is negative`},
		{"GET", "/busywork?ms=NaN", "", 400, "ms:"},
		{"GET", "/busywork?ms=Inf", "", 400, "ms:"},
		{"GET", "/busywork?ms=51", "", 400, "ms: 51 ms is over MaxBusywork (50ms)"},
		{"GET", "/busywork?ms=1e300", "", 400, "MaxBusywork"},
		{"GET", "/sleep?ms=1", "", 200, "solo /sleep ms=1\n"},
		{"GET", "/sleep?ms=60", "", 400, "MaxSleep"},
		{"GET", "/prime", "", 400, "max: default 1000000 is over MaxPrime (1000)"},
		{"GET", "/prime?max=1000", "", 200, "solo /prime max=1000 primes=168\n"},
		{"GET", "/prime?max=1001", "", 400, "max: 1001 is over MaxPrime (1000)"},
		{"GET", "/prime?max=99999999999999999999", "", 400, "MaxPrime"},
		{"GET", "/prime?max=-5", "", 400, "max: -5 is negative"},
		{"GET", "/prime?max=1.5", "", 400, `max: "1.5" is not an integer`},
		{"POST", "/busywork?ms=0", "a body over sixteen bytes", 413, "body: over MaxBody (16 bytes)"},
		{"GET", "/fork", "", 200, "solo /fork command=a-true\n"},
		{"GET", "/fork?name=a-true", "", 200, "solo /fork command=a-true\n"},
		{"GET", "/fork?name=z-false", "", 500, "running false"},
		{"GET", "/fork?name=rm", "", 400, `name: no command called "rm"`},
		{"GET", "/stress-ng", "", 200, "no stress-ng job configured"},
		{"DELETE", "/busywork", "", 405, ""},
		{"PUT", "/", "", 405, ""},
		{"GET", "/nope", "", 404, ""},
		{"GET", "/busywork/", "", 404, ""},
		{"GET", "/healthz", "", 200, "ok\n"},
		{"GET", "/metrics", "", 200, "latlab_server_request_duration_seconds"},
		{"GET", "/debug/pprof/", "", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			a := do(t, tt.method, srv.URL+tt.path, tt.body)
			if a.code != tt.code {
				t.Errorf("status = %d, want %d (body %q)", a.code, tt.code, a.body)
			}
			if !strings.Contains(a.body, tt.want) {
				t.Errorf("body = %q, want it to contain %q", a.body, tt.want)
			}
		})
	}
}

// TestRouteQuery holds every service route to the query it understands:
// its own parameters work; a pair holding ";" or a parameter it does not
// take is 400 naming it, before any work is done or forwarded.
func TestRouteQuery(t *testing.T) {
	svc := &Service{Name: "q", Commands: map[string][]string{"t": {"true"}}}
	_, srv := startNode(t, NodeConfig{Name: "q", Service: svc, Caps: Caps{MaxPrime: 1000}})
	do(t, "PUT", srv.URL+"/objects/a", "data")
	tests := []struct {
		method, route, known string // known: a query the route takes, or ""
		code                 int    // of the route with known
	}{
		{"GET", "/", "", 200},
		{"GET", "/busywork", "ms=1", 200},
		{"GET", "/sleep", "ms=1", 200},
		{"GET", "/prime", "max=100", 200},
		{"GET", "/fork", "name=t", 200},
		{"GET", "/stress-ng", "name=", 200},
		{"POST", "/load", "", 202},
		{"GET", "/load-status", "", 200},
		{"GET", "/objects", "", 200},
		{"GET", "/objects/a", "", 200},
		{"PUT", "/objects/a", "", 200},
		{"DELETE", "/objects/a", "", 204},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.route, func(t *testing.T) {
			bad := []struct{ query, want string }{
				{"bogus=1", `query: unknown parameter "bogus": ` + tt.route + " takes "},
				{"bogus", `unknown parameter "bogus"`},
			}
			if tt.known != "" {
				bad = append(bad,
					struct{ query, want string }{tt.known + ";id", `query: "` + tt.known + `;id" holds ";"`},
					struct{ query, want string }{tt.known + "&" + tt.known, "given twice"},
					struct{ query, want string }{tt.known + "&bogus=1", `unknown parameter "bogus"`})
			} else {
				bad = append(bad, struct{ query, want string }{"a=1;b=2", `query: "a=1;b=2" holds ";"`})
			}
			for _, b := range bad {
				a := do(t, tt.method, srv.URL+tt.route+"?"+b.query, "")
				if a.code != http.StatusBadRequest || !strings.Contains(a.body, b.want) {
					t.Errorf("?%s = %d %q, want 400 saying %q", b.query, a.code, a.body, b.want)
				}
			}
			u := srv.URL + tt.route
			if tt.known != "" {
				u += "?" + tt.known
			}
			if a := do(t, tt.method, u, "data"); a.code != tt.code {
				t.Errorf("%s = %d %q, want %d", u, a.code, a.body, tt.code)
			}
		})
	}
	if a := get(t, srv.URL+"/busywork?ms=1;id"); a.code != http.StatusBadRequest ||
		a.body != "q: query: \"ms=1;id\" holds \";\", which does not separate parameters: use \"&\"\n" {
		t.Errorf("/busywork?ms=1;id = %d %q, want 400 naming the pair and its \";\"", a.code, a.body)
	}
}

func TestRouteForkWithoutCommands(t *testing.T) {
	_, srv := startNode(t, NodeConfig{Name: "flags"})
	if a := get(t, srv.URL+"/fork"); a.code != http.StatusOK || !strings.Contains(a.body, "no command configured") {
		t.Errorf("GET /fork = %d %q, want 200 saying no command is configured", a.code, a.body)
	}
}

func TestRoutePprof(t *testing.T) {
	_, srv := startNode(t, NodeConfig{Name: "p", Pprof: true})
	if a := get(t, srv.URL+"/debug/pprof/"); a.code != http.StatusOK || !strings.Contains(a.body, "goroutine") {
		t.Errorf("GET /debug/pprof/ = %d, want 200 with the profiles", a.code)
	}
}

func TestRouteServerTiming(t *testing.T) {
	_, srvs := chain(t, "root", "leaf")
	// What a node guarantees whatever the machine's load: work lasts at
	// least what was asked, the downstream at least the leaf's work, and
	// the total holds both (work never counts the downstream's time). How
	// close to the asked time work ends is a speed claim, measured by the
	// package's benchmarks (BenchmarkWorkSpin10ms, BenchmarkBusyworkChain).
	tests := []struct {
		path                          string
		workMin, downstream, totalMin float64 // ms, on the root
	}{
		{"/busywork?ms=5", 5, 5, 10},
		{"/sleep?ms=5", 5, 5, 10},
		{"/", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			a := get(t, srvs[0].URL+tt.path)
			st := parseServerTiming(a.header.Get("Server-Timing"))
			work, down, total := st["work"], st["downstream"], st["total"]
			if len(st) != 3 {
				t.Fatalf("Server-Timing %q, want work, downstream and total", a.header.Get("Server-Timing"))
			}
			if work < tt.workMin {
				t.Errorf("work %.3f ms, want ≥ %v", work, tt.workMin)
			}
			if down < tt.downstream {
				t.Errorf("downstream %.3f ms, want ≥ %v (the leaf's work)", down, tt.downstream)
			}
			if total < tt.totalMin || total < work+down {
				t.Errorf("total %.3f ms, want ≥ %v and ≥ work + downstream (%.3f)", total, tt.totalMin, work+down)
			}
		})
	}
}

func TestProxyRoutes(t *testing.T) {
	type seen struct {
		method, uri, body, user, host string
	}
	got := make(chan seen, 1)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select { // the first request's, which the test reads
		case got <- seen{r.Method, r.RequestURI, string(b), r.Header.Get("X-Remote-User"), r.Header.Get("X-Forwarded-Host")}:
		default:
		}
		w.Header().Set("X-Target", "yes")
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, "from target")
	}))
	defer target.Close()
	svc := &Service{Name: "sidecar", Proxy: "app"}
	n, srv := startNode(t, NodeConfig{Name: "sidecar", Service: svc, Peers: map[string]string{"app": target.URL}, Caps: Caps{MaxBody: 16}})

	a := do(t, http.MethodPatch, srv.URL+"/any/route?x=1", "payload", "X-Remote-User", "bob")
	if a.code != http.StatusTeapot || a.body != "from target" || a.header.Get("X-Target") != "yes" {
		t.Errorf("answer = %d %q (X-Target %q), want the target's 418", a.code, a.body, a.header.Get("X-Target"))
	}
	want := seen{"PATCH", "/any/route?x=1", "payload", "bob", strings.TrimPrefix(srv.URL, "http://")}
	if s := <-got; s != want {
		t.Errorf("target saw %+v, want %+v", s, want)
	}
	if c := metricCount(t, n.Registry(), "latlab_client_request_duration_seconds",
		map[string]string{"peer": "app", "route": "other", "code": "418"}); c != 1 {
		t.Errorf("client metric count %v, want 1", c)
	}
	// A body over MaxBody is 413, from its Content-Length or once read.
	if a := do(t, http.MethodPost, srv.URL+"/", "a body over sixteen bytes"); a.code != http.StatusRequestEntityTooLarge || !strings.Contains(a.body, "over MaxBody (16 bytes)") {
		t.Errorf("a body over MaxBody = %d %q, want 413 naming it", a.code, a.body)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", io.MultiReader(strings.NewReader("a body over sixteen bytes")))
	req.ContentLength = -1
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Error(err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "over MaxBody (16 bytes)") {
			t.Errorf("a body of unknown length over MaxBody = %d %q, want 413 naming it", resp.StatusCode, b)
		}
	}
	// Its own operational routes stay local.
	if a := get(t, srv.URL+"/healthz"); a.code != http.StatusOK || a.body != "ok\n" {
		t.Errorf("GET /healthz = %d %q", a.code, a.body)
	}
	target.Close()
	if a := get(t, srv.URL+"/"); a.code != http.StatusBadGateway || !strings.Contains(a.body, "proxy to app") {
		t.Errorf("with the target down: %d %q, want 502 naming it", a.code, a.body)
	}
}

func TestLoadChain(t *testing.T) {
	job, err := filepath.Abs("testdata/node/load.job")
	if err != nil {
		t.Fatal(err)
	}
	var argv atomic.Pointer[[]string]
	argv.Store(argvOf("sleep", "0.3"))
	leaf, leafSrv := startNode(t, NodeConfig{Name: "leaf", LoadFile: job}, fakeJobs(&argv, false))
	root, rootSrv := startNode(t, NodeConfig{Name: "root", LoadFile: job, Downstreams: []string{leafSrv.URL}}, fakeJobs(&argv, false))

	start := time.Now()
	a := get(t, rootSrv.URL+"/load")
	if a.code != http.StatusAccepted || a.body != "root /load started\nleaf /load started\n" {
		t.Fatalf("GET /load = %d %q, want 202 from both", a.code, a.body)
	}
	a = get(t, rootSrv.URL+"/load-status")
	if a.code != http.StatusOK || a.body != "root /load-status ended=1\nleaf /load-status ended=1\n" {
		t.Errorf("GET /load-status = %d %q, want 200 once both loads ended", a.code, a.body)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("/load-status returned %v after /load, before the 300 ms loads could end", d)
	}
	for _, n := range []*Node{root, leaf} {
		if got := metricCount(t, n.Registry(), "latlab_server_request_duration_seconds", map[string]string{"route": "/load-status"}); got != 1 {
			t.Errorf("%s served /load-status %v times, want 1", n.Name(), got)
		}
	}
}

func TestLoadWithoutJob(t *testing.T) {
	_, srv := startNode(t, NodeConfig{Name: "idle"})
	if a := get(t, srv.URL+"/load"); a.code != http.StatusAccepted || a.body != "idle /load no load job\n" {
		t.Errorf("GET /load = %d %q, want 202 saying there is no load job", a.code, a.body)
	}
	if a := get(t, srv.URL+"/load-status"); a.code != http.StatusOK || a.body != "idle /load-status ended=0\n" {
		t.Errorf("GET /load-status = %d %q, want 200 at once", a.code, a.body)
	}
}

func TestLoadLimits(t *testing.T) {
	job, err := filepath.Abs("testdata/node/load.job")
	if err != nil {
		t.Fatal(err)
	}
	var argv atomic.Pointer[[]string]
	argv.Store(argvOf("latlab-no-such-program", "--job"))
	n, srv := startNode(t, NodeConfig{Name: "l", LoadFile: job, Caps: Caps{MaxLoads: 1}}, fakeJobs(&argv, false))
	if a := get(t, srv.URL+"/load"); a.code != http.StatusServiceUnavailable || !strings.Contains(a.body, "latlab-no-such-program is not installed") {
		t.Errorf("GET /load without its runner = %d %q, want 503 naming it", a.code, a.body)
	}
	argv.Store(argvOf("sleep", "60"))
	if a := get(t, srv.URL+"/load"); a.code != http.StatusAccepted {
		t.Fatalf("GET /load = %d %q", a.code, a.body)
	}
	if a := get(t, srv.URL+"/load"); a.code != http.StatusTooManyRequests || !strings.Contains(a.body, "MaxLoads is 1") {
		t.Errorf("second GET /load = %d %q, want 429 naming MaxLoads", a.code, a.body)
	}
	// /load-status waits only as long as its caller.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/load-status", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("/load-status answered %d while the load runs", resp.StatusCode)
	}
	// Closing the node ends its load rather than waiting for it: a load
	// that ran its minute out would have succeeded.
	n.Close()
	if a := get(t, srv.URL+"/load-status"); a.code != http.StatusInternalServerError || !strings.Contains(a.body, "load job failed") {
		t.Errorf("GET /load-status after Close = %d %q, want 500 naming the killed load", a.code, a.body)
	}
}

// FuzzRoutes sends arbitrary methods, paths, queries and bodies to a node:
// it must never crash nor blame itself (5xx) for what a client sent.
func FuzzRoutes(f *testing.F) {
	for _, s := range [][4]string{
		{"GET", "/busywork", "ms=1", ""}, {"POST", "/prime", "max=-1", "x"}, {"GET", "/sleep", "ms=%", ""},
		{"PUT", "/objects/a", "", "data"}, {"GET", "/objects/a/../b", "", ""}, {"DELETE", "/objects/", "", ""},
		{"GET", "/load", "", ""}, {"GET", "/load-status", "", ""}, {"BREW", "/", "", ""}, {"GET", "//x", "", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	n, err := NewNode(NodeConfig{Name: "fuzz", Caps: Caps{
		MaxBusywork: time.Millisecond, MaxSleep: time.Millisecond, MaxPrime: 1000, MaxBody: 64, MaxObjects: 10,
	}})
	if err != nil {
		f.Fatal(err)
	}
	defer n.Close()
	h := n.Handler()
	f.Fuzz(func(t *testing.T, method, path, query, body string) {
		if method == "" || strings.ContainsAny(method, " \t\r\n") {
			return
		}
		r := httptest.NewRequest(http.MethodGet, "/", strings.NewReader(body))
		r.Method, r.URL.Path, r.URL.RawQuery = method, path, query
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		// 507 is the store full: the node's state, which clients fill.
		if w.Code >= 500 && w.Code != http.StatusInsufficientStorage {
			t.Errorf("%s %s?%s: %d %s", method, path, query, w.Code, w.Body)
		}
	})
}
