package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latlab/latlab/record"
)

// kind returns the JSON type of a value decoded into any.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// kinds returns the JSON type of each key of want in m, or "missing".
func kinds(m map[string]any, want map[string]string) map[string]string {
	got := make(map[string]string, len(want))
	for k := range want {
		if v, ok := m[k]; ok {
			got[k] = kind(v)
		} else {
			got[k] = "missing"
		}
	}
	return got
}

func TestAttackJSONContract(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	code, stdout, stderr := runCLI(t, "attack", srv.URL, "-n", "50", "-c", "2", "--format", "json")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}

	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	top := map[string]string{
		"target_rate": "number", "sent": "number", "unsent": "number", "requests": "number",
		"duration_seconds": "number", "rate": "number", "throughput": "number",
		"success_ratio": "number", "bytes_in_total": "number", "bytes_out_total": "number",
		"bytes_in_per_second": "number", "bytes_out_per_second": "number",
		"status_codes": "object", "errors": "object",
		"latency_seconds": "object", "service_time_seconds": "object", "lag_seconds": "object",
		"connect_seconds": "object", "wait_seconds": "object", "read_seconds": "object",
		"in_flight": "object", "interrupted": "bool",
		"warmup_requests": "number", "intervals": "array", "steps": "array",
	}
	if diff := cmp.Diff(top, kinds(m, top)); diff != "" {
		t.Errorf("top-level keys (-want +got):\n%s", diff)
	}
	// 50 samples are too few for p99 (100) and p99.9 (1000): null, by contract.
	dist := map[string]string{
		"count": "number", "min": "number", "mean": "number", "stdev": "number", "p50": "number", "p90": "number",
		"p95": "number", "p99": "null", "p999": "null", "max": "number",
	}
	for _, key := range []string{"latency_seconds", "service_time_seconds", "lag_seconds", "wait_seconds", "read_seconds"} {
		sub, _ := m[key].(map[string]any)
		if diff := cmp.Diff(dist, kinds(sub, dist)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", key, diff)
		}
	}
	// The connections opened before the load (pool) are not in
	// connect_seconds: none, one or two are, and which figures exist
	// depends on how many.
	sub, _ := m["connect_seconds"].(map[string]any)
	for k, got := range kinds(sub, dist) {
		if got != "number" && (got != "null" || k[0] != 'p' && sub["count"] != 0.0) {
			t.Errorf("connect_seconds.%s is %s, want a number (or null for a percentile)", k, got)
		}
	}
	inflight := map[string]string{"mean": "number", "max": "number"}
	sub, _ = m["in_flight"].(map[string]any)
	if diff := cmp.Diff(inflight, kinds(sub, inflight)); diff != "" {
		t.Errorf("in_flight (-want +got):\n%s", diff)
	}

	sum := decodeSummary(t, []byte(stdout))
	type essentials struct {
		Mode          string
		Concurrency   int
		Sent          int64
		Requests      int64
		TargetRate    float64
		SuccessRatio  float64
		StatusCodes   map[string]int64
		Errors        map[string]int64
		Interrupted   bool
		Warmup        int64
		Counts        [5]int64 // latency, service time, lag, wait, read samples
		Connections   int64
		IntervalsDone int64
		Steps         int
	}
	var done int64
	for _, in := range sum.Intervals {
		done += in.Completed
	}
	got := essentials{
		sum.Mode, sum.Concurrency, sum.Sent, sum.Requests, sum.TargetRate, sum.SuccessRatio,
		sum.StatusCodes, sum.Errors, sum.Interrupted, sum.WarmupRequests,
		[5]int64{sum.Latency.Count, sum.ServiceTime.Count, sum.Lag.Count, sum.Wait.Count, sum.Read.Count},
		sum.Pool + sum.Connect.Count, done, len(sum.Steps),
	}
	want := essentials{
		Mode: "closed", Concurrency: 2, Sent: 50, Requests: 50, SuccessRatio: 1,
		StatusCodes: map[string]int64{"200": 50}, Errors: map[string]int64{},
		Counts: [5]int64{50, 50, 50, 50, 50}, Connections: srv.conns.Load(), IntervalsDone: 50,
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if n := len(srv.requests()); n != 50 {
		t.Errorf("server saw %d requests, want 50", n)
	}
	if sum.DurationSec <= 0 || sum.Rate <= 0 || sum.Throughput != sum.Rate {
		t.Errorf("duration %gs, rate %g/s, throughput %g/s: want positive, throughput = rate when all succeed",
			sum.DurationSec, sum.Rate, sum.Throughput)
	}
	if sum.BytesIn < 50*int64(len("HTTP/1.1 200 OK\r\n\r\nok\n")) || sum.BytesOut < 50*int64(len("GET / HTTP/1.1\r\n\r\n")) {
		t.Errorf("bytes in %d, out %d: too few for 50 exchanges", sum.BytesIn, sum.BytesOut)
	}
	l := sum.Latency
	if l.Min != nil && l.P50 != nil && l.P90 != nil && l.P95 != nil && l.Max != nil {
		if qs := []float64{*l.Min, *l.P50, *l.P90, *l.P95, *l.Max}; !slices.IsSorted(qs) || qs[0] <= 0 {
			t.Errorf("latency min, p50, p90, p95, max = %v: want positive and ascending", qs)
		}
	}
	if sum.InFlight.Max < 1 || sum.InFlight.Max > 2 {
		t.Errorf("in flight max %d, want 1 or 2 with -c 2", sum.InFlight.Max)
	}
}

func TestAttackJSONAllPercentiles(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	sum := attackJSON(t, srv.URL, "-n", "1000", "-c", "4")
	l := sum.Latency
	got := []bool{l.Min != nil, l.Mean != nil, l.P50 != nil, l.P90 != nil, l.P95 != nil, l.P99 != nil, l.P999 != nil, l.Max != nil}
	want := []bool{true, true, true, true, true, true, true, true}
	if diff := cmp.Diff(want, got); diff != "" || l.Count != 1000 {
		t.Errorf("latency from 1000 samples: count %d, present (-want +got):\n%s", l.Count, diff)
	}
}

func TestAttackModels(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		sleep time.Duration
		check func(t *testing.T, sum record.Summary, srv *testServer)
	}{
		{"open rate", []string{"-r", "200", "-d", "300ms"}, 0, func(t *testing.T, sum record.Summary, _ *testServer) {
			// 60 requests are due in [0, 300ms): each is sent, or counted
			// unsent by a dispatcher a busy machine held back.
			if sum.Mode != "open" || sum.TargetRate != 200 || sum.Sent+sum.Unsent != 60 {
				t.Errorf("mode %q, target rate %g, %d sent and %d unsent; want open, 200, the 60 due", sum.Mode, sum.TargetRate, sum.Sent, sum.Unsent)
			}
		}},
		{"pool", []string{"-r", "200", "-n", "20", "--pool", "3"}, 0, func(t *testing.T, sum record.Summary, srv *testServer) {
			if sum.Requests != 20 || sum.Pool != 3 || srv.conns.Load() != sum.Pool+sum.Connect.Count {
				t.Errorf("requests %d, pool %d, %d opened during the run, server saw %d; want 20, 3, the server's count in all",
					sum.Requests, sum.Pool, sum.Connect.Count, srv.conns.Load())
			}
		}},
		{"poisson", []string{"-r", "200", "--arrivals", "poisson", "-d", "300ms"}, 0, func(t *testing.T, sum record.Summary, _ *testServer) {
			if due := sum.Sent + sum.Unsent; sum.Mode != "open" || sum.TargetRate != 200 || due < 1 || due > 200 {
				t.Errorf("mode %q, target rate %g, %d sent and %d unsent; want open, 200, 1 to 200 due", sum.Mode, sum.TargetRate, sum.Sent, sum.Unsent)
			}
		}},
		{"stages", []string{"--stages", "200ms:100,200ms:100"}, 0, func(t *testing.T, sum record.Summary, _ *testServer) {
			// 0→100/s over 200 ms is 10 requests, then 100/s for 200 ms 20 more;
			// without -d nothing cuts the schedule short.
			if sum.Mode != "open" || sum.Requests != 30 {
				t.Errorf("mode %q, requests %d; want open, 30", sum.Mode, sum.Requests)
			}
		}},
		{"closed", []string{"-c", "3", "-n", "30"}, time.Millisecond, func(t *testing.T, sum record.Summary, srv *testServer) {
			if sum.Mode != "closed" || sum.Concurrency != 3 || sum.Requests != 30 || sum.InFlight.Max > 3 {
				t.Errorf("mode %q, concurrency %d, requests %d, in flight max %d; want closed, 3, 30, at most 3",
					sum.Mode, sum.Concurrency, sum.Requests, sum.InFlight.Max)
			}
			if n := srv.conns.Load(); n > 3 {
				t.Errorf("server saw %d connections, want at most 3", n)
			}
		}},
		{"ramp", []string{"-c", "4", "--ramp", "2/200ms", "-d", "400ms", "--interval", "100ms"}, 5 * time.Millisecond,
			func(t *testing.T, sum record.Summary, _ *testServer) {
				if sum.Mode != "ramp" || sum.Concurrency != 4 || sum.InFlight.Max != 4 {
					t.Errorf("mode %q, concurrency %d, in flight max %d; want ramp, 4, 4", sum.Mode, sum.Concurrency, sum.InFlight.Max)
				}
				// The mean in flight over an interval counts each request
				// from its send to its answer, whenever the interval
				// closes: before the second burst starts, at 200 ms at the
				// earliest, two workers can have at most two in flight.
				if len(sum.Intervals) < 2 {
					t.Fatalf("intervals %+v: want at least 2", sum.Intervals)
				}
				for _, in := range sum.Intervals[:2] {
					if in.InFlight.Mean > 2+1e-9 {
						t.Errorf("interval %+v: mean in flight %g, want at most 2 before the second burst", in, in.InFlight.Mean)
					}
				}
			}},
		{"sequential", []string{"--sequential", "-n", "20"}, 0, func(t *testing.T, sum record.Summary, srv *testServer) {
			if sum.Mode != "sequential" || sum.Requests != 20 || sum.InFlight.Max != 1 || srv.conns.Load() != 1 {
				t.Errorf("mode %q, requests %d, in flight max %d, connections %d; want sequential, 20, 1, 1",
					sum.Mode, sum.Requests, sum.InFlight.Max, srv.conns.Load())
			}
		}},
		{"count", []string{"-n", "7", "-c", "2"}, 0, func(t *testing.T, sum record.Summary, _ *testServer) {
			if sum.Requests != 7 {
				t.Errorf("requests %d, want 7", sum.Requests)
			}
		}},
		{"warmup", []string{"--warmup", "200ms", "-n", "20", "-c", "2"}, time.Millisecond, func(t *testing.T, sum record.Summary, srv *testServer) {
			if sum.Requests != 20 || sum.WarmupRequests < 1 || len(srv.requests()) <= 20 {
				t.Errorf("requests %d, warm-up requests %d, server saw %d; want 20, >0, >20",
					sum.Requests, sum.WarmupRequests, len(srv.requests()))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, plainHTTP, http.StatusOK, tt.sleep)
			sum := attackJSON(t, append([]string{srv.URL}, tt.args...)...)
			tt.check(t, sum, srv)
			if sum.Sent != sum.Requests || sum.SuccessRatio != 1 {
				t.Errorf("sent %d, completed %d, success ratio %g; want all sent completed and successful",
					sum.Sent, sum.Requests, sum.SuccessRatio)
			}
			if got, want := int64(len(srv.requests())), sum.Requests+sum.WarmupRequests; got != want {
				t.Errorf("server saw %d requests, want %d reported plus warm-up", got, want)
			}
		})
	}
}

// requestKey describes a request by method, path, body and X-Test header.
func requestKey(r seenRequest) string {
	return strings.Join([]string{r.Method, r.Path, r.Body, r.Header}, " ")
}

func TestAttackRequests(t *testing.T) {
	tests := []struct {
		name   string
		status int
		args   func(t *testing.T, url string) []string
		key    func(seenRequest) string // nil means requestKey
		want   map[string]int           // key → count
		check  func(t *testing.T, sum record.Summary)
	}{{
		name: "method body header",
		args: func(_ *testing.T, url string) []string {
			return []string{url + "/api", "-m", "post", "-b", `{"a":1}`, "-H", "X-Test: yes", "-n", "3", "-c", "1"}
		},
		want: map[string]int{`POST /api {"a":1} yes`: 3},
	}, {
		name: "head",
		args: func(_ *testing.T, url string) []string {
			return []string{url, "-m", "HEAD", "-n", "3", "-c", "1", "--timeout", "1s"}
		},
		want: map[string]int{"HEAD /  ": 3},
		check: func(t *testing.T, sum record.Summary) {
			if sum.StatusCodes["200"] != 3 || len(sum.Errors) != 0 {
				t.Errorf("codes %v, errors %v; want 200:3 and none", sum.StatusCodes, sum.Errors)
			}
		},
	}, {
		name: "host header",
		args: func(_ *testing.T, url string) []string {
			return []string{url, "-H", "Host: latlab.test", "-H", "X-Test: h", "-n", "2", "-c", "1"}
		},
		key:  func(r seenRequest) string { return r.Host + " " + r.Header },
		want: map[string]int{"latlab.test h": 2},
	}, {
		name: "body file",
		args: func(t *testing.T, url string) []string {
			return []string{url, "-m", "PUT", "--body-file", writeFile(t, "body.txt", "from a file\n"), "-n", "2", "-c", "1"}
		},
		want: map[string]int{"PUT / from a file\n ": 2},
	}, {
		name:   "302 fails --success 200-299",
		status: http.StatusFound,
		args: func(_ *testing.T, url string) []string {
			return []string{url, "--success", "200-299", "-n", "5", "-c", "1"}
		},
		want: map[string]int{"GET /  ": 5},
		check: func(t *testing.T, sum record.Summary) {
			if sum.SuccessRatio != 0 || sum.Throughput != 0 || sum.StatusCodes["302"] != 5 {
				t.Errorf("success ratio %g, throughput %g, codes %v; want 0, 0, 302:5", sum.SuccessRatio, sum.Throughput, sum.StatusCodes)
			}
		},
	}, {
		name:   "302 succeeds by default",
		status: http.StatusFound,
		args: func(_ *testing.T, url string) []string {
			return []string{url, "-n", "5", "-c", "1"}
		},
		want: map[string]int{"GET /  ": 5},
		check: func(t *testing.T, sum record.Summary) {
			if sum.SuccessRatio != 1 || sum.StatusCodes["302"] != 5 {
				t.Errorf("success ratio %g, codes %v; want 1, 302:5", sum.SuccessRatio, sum.StatusCodes)
			}
		},
	}, {
		name: "targets round robin",
		args: func(t *testing.T, url string) []string {
			dir := t.TempDir() // the body file is found beside the targets file
			writeIn(t, dir, "body.txt", "b-body")
			file := writeIn(t, dir, "targets.txt", fmt.Sprintf("# two targets\nGET %s/a\nX-Test: a\n\nPOST %s/b\n@body.txt\n", url, url))
			return []string{"--targets", file, "-n", "10", "-c", "1"}
		},
		want: map[string]int{"GET /a  a": 5, "POST /b b-body ": 5},
	}, {
		name: "scenario",
		args: func(t *testing.T, url string) []string {
			file := writeFile(t, "crud.yaml", fmt.Sprintf(`steps:
  - name: create
    method: POST
    url: "%s/objects/{{.Iter}}"
    headers: {X-Test: "it-{{.Iter}}"}
    body: '{"n":{{.Iter}}}'
  - name: get
    url: "%s/objects/{{.Iter}}"
`, url, url))
			return []string{"--scenario", file, "-n", "2", "-c", "1"}
		},
		want: map[string]int{
			`POST /objects/0 {"n":0} it-0`: 1, `POST /objects/1 {"n":1} it-1`: 1,
			"GET /objects/0  ": 1, "GET /objects/1  ": 1,
		},
		check: func(t *testing.T, sum record.Summary) {
			type step struct {
				Name     string
				Requests int64
				Success  float64
				Codes    map[string]int64
			}
			var got []step
			for _, s := range sum.Steps {
				got = append(got, step{s.Name, s.Requests, s.SuccessRatio, s.StatusCodes})
			}
			want := []step{{"create", 2, 1, map[string]int64{"200": 2}}, {"get", 2, 1, map[string]int64{"200": 2}}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if sum.Requests != 4 {
				t.Errorf("requests %d, want 4: two iterations of two steps", sum.Requests)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := tt.status
			if status == 0 {
				status = http.StatusOK
			}
			srv := newServer(t, plainHTTP, status, 0)
			sum := attackJSON(t, tt.args(t, srv.URL)...)
			key := tt.key
			if key == nil {
				key = requestKey
			}
			if diff := cmp.Diff(tt.want, srv.count(key)); diff != "" {
				t.Errorf("server saw (-want +got):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, sum)
			}
		})
	}
}
