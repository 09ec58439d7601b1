package probe

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// TestQueryRangePrometheus runs range queries against a real Prometheus
// scraping a target on 127.0.0.1. It is skipped when no prometheus binary
// is on PATH.
func TestQueryRangePrometheus(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary on PATH")
	}
	if testing.Short() {
		t.Skip("starts a Prometheus server; make test runs it")
	}

	// The target counts its own scrapes, so the counter always rises.
	reg := prometheus.NewRegistry()
	scrapes := prometheus.NewCounter(prometheus.CounterOpts{Name: "latlab_test_scrapes_total", Help: "Scrapes of this target."})
	reg.MustRegister(scrapes)
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scrapes.Inc()
		metrics.ServeHTTP(w, r)
	}))
	t.Cleanup(target.Close)
	targetURL, err := url.Parse(target.URL)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: latlab
    static_configs:
      - targets: [%q]
`, targetURL.Host)
	configFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configFile, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := promqlFreeAddr(t)
	start := time.Now()
	var out bytes.Buffer
	cmd := exec.CommandContext(t.Context(), bin,
		"--config.file="+configFile,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--log.level=warn")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting prometheus: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Wait() // t.Context has ended: the process is being killed
		if t.Failed() {
			t.Logf("prometheus output:\n%s", out.Bytes())
		}
	})

	base := "http://" + addr
	queries := map[string]string{
		"scrapes": "latlab_test_scrapes_total",
		"rate":    "rate(latlab_test_scrapes_total[3s])",
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var points []Point
	var errs []error
	for {
		// Wait for the first samples to reach both queries.
		points, errs = QueryRange(ctx, base, queries, start, time.Now(), time.Second)
		if promqlCount(points, "scrapes") >= 3 && promqlCount(points, "rate") >= 1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no data from prometheus at %s in time: %d points, errors %v", base, len(points), errs)
		case <-time.After(500 * time.Millisecond):
		}
	}
	end := time.Now()
	if len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
	last := -1.0
	for _, p := range points {
		if p.Probe != "prometheus" || p.T < 0 || p.T > end.Sub(start) {
			t.Errorf("point %+v: wrong probe or T outside the window 0…%s", p, end.Sub(start))
		}
		if p.Series != "scrapes" {
			continue
		}
		if p.Labels["job"] != "latlab" || p.Labels["instance"] != targetURL.Host || p.Labels["__name__"] != "latlab_test_scrapes_total" {
			t.Errorf("point labels %v, want job latlab, instance %s and the metric's name", p.Labels, targetURL.Host)
		}
		if p.Value < last {
			t.Errorf("counter went down from %v to %v", last, p.Value)
		}
		last = p.Value
	}
	if last < 1 {
		t.Errorf("the counter's last value is %v, want at least 1", last)
	}
}

// promqlCount returns how many points are of series.
func promqlCount(points []Point, series string) int {
	n := 0
	for _, p := range points {
		if p.Series == series {
			n++
		}
	}
	return n
}

// promqlFreeAddr returns a 127.0.0.1 address with a port nothing listened on a
// moment ago, for a server that takes its address as a flag.
func promqlFreeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
