package graph

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// naivePrimes counts primes ≤ n with a plain sieve.
func naivePrimes(n int64) int64 {
	if n < 2 {
		return 0
	}
	composite := make([]bool, n+1)
	var count int64
	for i := int64(2); i <= n; i++ {
		if composite[i] {
			continue
		}
		count++
		for j := i * i; j <= n; j += i {
			composite[j] = true
		}
	}
	return count
}

func TestWorkCountPrimes(t *testing.T) {
	known := map[int64]int64{0: 0, 1: 0, 2: 1, 3: 2, 4: 2, 10: 4, 100: 25, 1000: 168, 1_000_000: 78498, 10_000_000: 664579}
	for n, want := range known {
		got, err := countPrimes(context.Background(), n)
		if err != nil || got != want {
			t.Errorf("countPrimes(%d) = %d, %v; want %d", n, got, err, want)
		}
	}
	// Around segment edges, where an off-by-one would show.
	for _, n := range []int64{2*segment - 1, 2 * segment, 2*segment + 1, 2*segment + 3, 4*segment + 1, 6*segment + 7, 1 << 20} {
		for _, m := range []int64{n - 2, n - 1, n, n + 1, n + 2} {
			if got, want := mustCount(t, m), naivePrimes(m); got != want {
				t.Errorf("countPrimes(%d) = %d, want %d", m, got, want)
			}
		}
	}
}

func mustCount(t *testing.T, n int64) int64 {
	t.Helper()
	c, err := countPrimes(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWorkCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := countPrimes(ctx, 1_000_000); !errors.Is(err, context.Canceled) {
		t.Errorf("countPrimes with an ended context: %v, want context.Canceled", err)
	}
	if err := spin(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("spin with an ended context: %v, want context.Canceled", err)
	}
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep with an ended context: %v, want context.Canceled", err)
	}
}

func TestWorkSpin(t *testing.T) {
	for _, d := range []time.Duration{0, 100 * time.Microsecond, 2 * time.Millisecond} {
		start := time.Now()
		if err := spin(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got < d {
			t.Errorf("spin(%v) took %v, less than asked", d, got)
		}
	}
}

func TestWorkPayload(t *testing.T) {
	for _, size := range []int64{0, 1, 37, 32 << 10, 32<<10 + 1, 1 << 20} {
		var b bytes.Buffer
		n, err := writePayload(&b, size)
		if err != nil || n != size || int64(b.Len()) != size {
			t.Errorf("writePayload(%d) wrote %d (buffer %d), %v", size, n, b.Len(), err)
		}
		var r bytes.Buffer
		if k, _ := r.ReadFrom(payloadReader(size)); k != size {
			t.Errorf("payloadReader(%d) gave %d bytes", size, k)
		}
	}
}

func TestWorkTail(t *testing.T) {
	var tl tail
	tl.Write([]byte(strings.Repeat("x", 1000)))
	tl.Write([]byte("end"))
	if len(tl.b) != 512 || !strings.HasSuffix(string(tl.b), "xend") {
		t.Errorf("tail kept %d bytes ending %q, want the last 512", len(tl.b), tl.b[len(tl.b)-4:])
	}
}

func TestWorkQuery(t *testing.T) {
	tests := []struct {
		query string
		want  time.Duration
		err   string
	}{
		{"", 10 * time.Millisecond, ""},
		{"ms", 10 * time.Millisecond, ""},
		{"ms=", 10 * time.Millisecond, ""},
		{"ms=0", 0, ""},
		{"ms=0.25", 250 * time.Microsecond, ""},
		{"ms=1&", time.Millisecond, ""},
		{"&&ms=2", 2 * time.Millisecond, ""},
		{"m%73=3", 3 * time.Millisecond, ""},
		{"ms=1000", time.Second, ""},
		{"ms=1000.001", 0, "ms: 1000.001 ms is over MaxBusywork (1s)"},
		{"ms=abc", 0, `ms: "abc" is not a number of milliseconds`},
		{"ms=-0.1", 0, `ms: "-0.1" is negative`},
		{"ms=NaN", 0, `ms: "NaN" is not a number of milliseconds`},
		{"ms=1;id", 0, `query: "ms=1;id" holds ";", which does not separate parameters: use "&"`},
		{"id;ms=1", 0, `query: "id;ms=1" holds ";"`},
		{"ms=1&x=2;y=3", 0, `query: "x=2;y=3" holds ";"`},
		{"bogus=1", 0, `query: unknown parameter "bogus": /busywork takes ms`},
		{"ms=1&MS=2", 0, `query: unknown parameter "MS": /busywork takes ms`},
		{"=1", 0, `query: unknown parameter "": /busywork takes ms`},
		{"ms=1&ms=2", 0, "query: ms given twice"},
		{"ms=%zz", 0, `query: "ms=%zz": invalid URL escape "%zz"`},
		{"m%zz=1", 0, `query: "m%zz=1": invalid URL escape "%zz"`},
	}
	for _, tt := range tests {
		got, err := func() (time.Duration, error) {
			q, err := parseQuery("/busywork", tt.query, "ms")
			if err != nil {
				return 0, err
			}
			return queryMillis(q, "ms", 10*time.Millisecond, time.Second, "MaxBusywork")
		}()
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("%s: %v, error %v, want %q", tt.query, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %v, %v; want %v", tt.query, got, err, tt.want)
		}
	}
	if _, err := parseQuery("/load", "x=1", []string{}...); err == nil || err.Error() != `query: unknown parameter "x": /load takes none` {
		t.Errorf("a query to a route that takes none: %v", err)
	}
}

// FuzzWorkQuery holds what a route accepts to what it understands: a query
// parseQuery lets through holds no ";" and only the parameters known, and
// the values read from it stay within their caps.
func FuzzWorkQuery(f *testing.F) {
	for _, s := range []string{"", "ms=1", "ms=-1", "ms=1e400", "ms=NaN", "max=18446744073709551616", "max=-0", "ms=%00", "ms=1&ms=2", "ms=1;id", "bogus=1", "ms=1&max=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseQuery("/x", raw, "ms", "max")
		if err != nil {
			if re, ok := err.(*requestError); !ok || re.status != http.StatusBadRequest {
				t.Errorf("parseQuery(%q): %v, want a 400", raw, err)
			}
			return
		}
		if strings.Contains(raw, ";") {
			t.Errorf("parseQuery(%q) accepted a \";\"", raw)
		}
		for k, v := range q {
			if k != "ms" && k != "max" || len(v) != 1 {
				t.Errorf("parseQuery(%q) = %v, want ms and max at most once each", raw, q)
			}
		}
		d, err := queryMillis(q, "ms", 10*time.Millisecond, time.Second, "MaxBusywork")
		if err == nil && (d < 0 || d > time.Second) {
			t.Errorf("queryMillis(%q) = %v, outside [0, 1s]", raw, d)
		}
		v, err := queryInt(q, "max", 5, 1000, "MaxPrime")
		if err == nil && (v < 0 || v > 1000) {
			t.Errorf("queryInt(%q) = %d, outside [0, 1000]", raw, v)
		}
	})
}

func BenchmarkWorkPrime1e6(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := countPrimes(context.Background(), 1_000_000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWorkSpin10ms reports how far past 10 ms a busywork spin ends,
// on average and at worst, in µs.
func BenchmarkWorkSpin10ms(b *testing.B) {
	var sum, worst time.Duration
	var n int
	for b.Loop() {
		start := time.Now()
		spin(context.Background(), 10*time.Millisecond)
		over := time.Since(start) - 10*time.Millisecond
		sum += over
		worst = max(worst, over)
		n++
	}
	b.ReportMetric(float64(sum)/float64(n)/1e3, "mean-over-µs")
	b.ReportMetric(float64(worst)/1e3, "max-over-µs")
}

// BenchmarkBusyworkChain measures testapi's scheduler baseline: 10 ms of
// busywork on each of three chained nodes should take 30.0–30.6 ms at the
// median. It reports the median and 99th percentile in ms.
func BenchmarkBusyworkChain(b *testing.B) {
	leaf := serveNode(b, NodeConfig{Name: "leaf"})
	branch := serveNode(b, NodeConfig{Name: "branch", Downstreams: []string{leaf}})
	root := serveNode(b, NodeConfig{Name: "root", Downstreams: []string{branch}})
	client := &http.Client{Transport: newTransport()}
	var ms []float64
	for b.Loop() {
		start := time.Now()
		resp, err := client.Get(root + "/busywork?ms=10")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ms = append(ms, float64(time.Since(start))/1e6)
	}
	slices.Sort(ms)
	b.ReportMetric(ms[len(ms)/2], "p50-ms")
	b.ReportMetric(ms[len(ms)*99/100], "p99-ms")
}

// fakeJobs makes a node run jobs as what argv holds, with the job file
// appended when withFile; tests change argv while the node serves.
func fakeJobs(argv *atomic.Pointer[[]string], withFile bool) func(*Node) {
	return func(n *Node) {
		n.jobCmd = func(file string) []string {
			a := slices.Clone(*argv.Load())
			if withFile {
				a = append(a, file)
			}
			return a
		}
	}
}

func argvOf(a ...string) *[]string { return &a }

func TestRouteStress(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "job")
	writeFile(t, job, "ok\n")
	var argv atomic.Pointer[[]string]
	argv.Store(argvOf("grep", "-q", "ok"))
	_, srv := startNode(t, NodeConfig{Name: "s", JobFile: job}, fakeJobs(&argv, true))

	// The job runner reads the file on every request: an edit applies to
	// the next one without a restart.
	if a := get(t, srv.URL+"/stress-ng"); a.code != http.StatusOK || a.body != "s /stress-ng job=jobfile\n" {
		t.Errorf("GET /stress-ng = %d %q, want 200", a.code, a.body)
	}
	writeFile(t, job, "changed\n")
	if a := get(t, srv.URL+"/stress-ng"); a.code != http.StatusInternalServerError {
		t.Errorf("GET /stress-ng after the edit = %d %q, want 500", a.code, a.body)
	}
	os.Remove(job)
	if a := get(t, srv.URL+"/stress-ng"); a.code != http.StatusInternalServerError || !strings.Contains(a.body, "job file") {
		t.Errorf("GET /stress-ng without its file = %d %q, want 500 naming the job file", a.code, a.body)
	}
	writeFile(t, job, "ok\n")
	argv.Store(argvOf("latlab-no-such-program", "--job"))
	if a := get(t, srv.URL+"/stress-ng"); a.code != http.StatusServiceUnavailable || !strings.Contains(a.body, "latlab-no-such-program is not installed") {
		t.Errorf("GET /stress-ng without the runner = %d %q, want 503 naming it", a.code, a.body)
	}
	if a := get(t, srv.URL+"/stress-ng?name=other"); a.code != http.StatusNotFound {
		t.Errorf("GET /stress-ng?name=other = %d %q, want 404: the node has no named jobs", a.code, a.body)
	}
}

func TestRouteStressJobs(t *testing.T) {
	svc := &Service{Name: "s", Jobs: map[string]string{"b": "testdata/node/stress.job", "a": "testdata/node/missing.job"}}
	var argv atomic.Pointer[[]string]
	argv.Store(argvOf("true"))
	_, srv := startNode(t, NodeConfig{Name: "s", Service: svc}, fakeJobs(&argv, true))
	tests := []struct {
		path string
		code int
		want string
	}{
		{"/stress-ng?name=b", 200, "s /stress-ng job=b\n"},
		{"/stress-ng", 500, "job file"}, // a, the lexically first
		{"/stress-ng?name=c", 400, `name: no stress-ng job called "c"`},
		{"/stress-ng?name=../../etc/passwd", 400, "name: no stress-ng job"},
	}
	for _, tt := range tests {
		if a := get(t, srv.URL+tt.path); a.code != tt.code || !strings.Contains(a.body, tt.want) {
			t.Errorf("GET %s = %d %q, want %d with %q", tt.path, a.code, a.body, tt.code, tt.want)
		}
	}
}

func TestRouteStressReal(t *testing.T) {
	if _, err := exec.LookPath("stress-ng"); err != nil {
		t.Skip("stress-ng is not installed")
	}
	job, err := filepath.Abs("testdata/node/stress.job")
	if err != nil {
		t.Fatal(err)
	}
	_, srv := startNode(t, NodeConfig{Name: "s", JobFile: job})
	if a := get(t, srv.URL+"/stress-ng"); a.code != http.StatusOK {
		t.Errorf("GET /stress-ng = %d %q, want 200", a.code, a.body)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
