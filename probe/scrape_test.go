package probe

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// histogramServer serves a registry holding one histogram, as a latlab graph
// node does, and remembers the Content-Type of its last answer. With text
// set it drops the Accept header, so client_golang falls back to the text
// format.
type histogramServer struct {
	*httptest.Server
	hist prometheus.Histogram

	mu          sync.Mutex
	contentType string
}

func newHistogramServer(t *testing.T, text bool) *histogramServer {
	t.Helper()
	reg := prometheus.NewRegistry()
	s := &histogramServer{hist: prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "latlab_test_duration_seconds",
		Help:    "Observations fed by the test.",
		Buckets: []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1},
	})}
	reg.MustRegister(s.hist)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if text {
			r.Header.Del("Accept")
		}
		h.ServeHTTP(w, r)
		s.mu.Lock()
		s.contentType = w.Header().Get("Content-Type")
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *histogramServer) observe(n int, v float64) {
	for range n {
		s.hist.Observe(v)
	}
}

func (s *histogramServer) lastContentType() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.contentType
}

func (s *histogramServer) instance() string {
	u, _ := url.Parse(s.URL)
	return u.Host
}

// TestScraperRegistry scrapes a real client_golang registry three times, 10 s
// apart on the window's clock, feeding it 98 observations in (1 ms, 2 ms] and
// two in (20 ms, 50 ms] between scrapes; over protobuf (what client_golang
// serves when asked) and over the text format.
func TestScraperRegistry(t *testing.T) {
	for _, tt := range []struct {
		name   string
		text   bool
		format string
	}{
		{"protobuf", false, "application/vnd.google.protobuf"},
		{"text", true, "text/plain"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newHistogramServer(t, tt.text)
			s := &Scraper{URLs: []string{srv.URL + "/metrics"}, Interval: 10 * time.Second}
			ctx := t.Context()
			const family = "latlab_test_duration_seconds"
			inst := srv.instance()

			first := pointMap(s.Scrape(ctx, 10*time.Second))
			if got := first[key("up", "instance", inst)]; got != 1 {
				t.Fatalf("up = %v, want 1; points %v", got, first)
			}
			if _, ok := first[key(family+":p99", "instance", inst)]; ok {
				t.Errorf("a quantile from a single scrape: %v", first)
			}
			srv.observe(98, 0.0015)
			srv.observe(2, 0.03)
			second := pointMap(s.Scrape(ctx, 20*time.Second))
			compare(t, second, map[string]float64{
				key(family+":p99", "instance", inst):  0.02 + 0.03*1/2, // rank 99: 1 of the 2 in (20 ms, 50 ms]
				key(family+":p100", "instance", inst): 0.05,
			})
			srv.observe(98, 0.0015)
			srv.observe(2, 0.03)
			third := pointMap(s.Scrape(ctx, 30*time.Second))
			// The window (−30 s, 30 s] holds all three scrapes; the counts
			// started at zero, so the rates are plain increases over 60 s:
			// 196 in (1 ms, 2 ms], 4 in (20 ms, 50 ms].
			compare(t, third, map[string]float64{
				key("up", "instance", inst):           1,
				key(family+":p50", "instance", inst):  0.001 + 0.001*100/196,
				key(family+":p90", "instance", inst):  0.001 + 0.001*180/196,
				key(family+":p99", "instance", inst):  0.02 + 0.03*2/4,
				key(family+":p100", "instance", inst): 0.05,
				key(family+":rate", "instance", inst): 200.0 / 60,
			})
			if ct := srv.lastContentType(); !strings.HasPrefix(ct, tt.format) {
				t.Errorf("served %q, want %s", ct, tt.format)
			}
		})
	}
}

// TestScraperFailures: every way a scrape fails is an up=0 point naming the
// URL, and the healthy target beside them is still scraped.
func TestScraperFailures(t *testing.T) {
	good := newHistogramServer(t, false)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	status := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer status.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, "this is { not metrics\n")
	}))
	defer garbage.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer slow.Close()

	tests := []struct {
		name, url, want string
	}{
		{"refused", closed.URL + "/metrics", "refused"},
		{"status", status.URL + "/metrics", "500 Internal Server Error"},
		{"garbage", garbage.URL + "/metrics", "decoding"},
		{"timeout", slow.URL + "/metrics", "deadline exceeded"},
		{"not a URL", "ftp://nowhere/metrics", "not an http(s) URL"},
	}
	// The healthy target is scraped with the default timeout (10 s), which
	// no busy machine outlasts; only the one that never answers gets a
	// timeout short enough to wait for.
	urls := []string{good.URL + "/metrics"}
	for _, tt := range tests {
		if tt.url != slow.URL+"/metrics" {
			urls = append(urls, tt.url)
		}
	}
	s := &Scraper{URLs: urls, Interval: 10 * time.Second}
	points := s.Scrape(t.Context(), time.Second)
	timed := &Scraper{URLs: []string{slow.URL + "/metrics"}, Interval: 10 * time.Second, Timeout: 200 * time.Millisecond}
	points = append(points, timed.Scrape(t.Context(), time.Second)...)
	ups := map[string]Point{}
	for _, p := range points {
		if p.Series == "up" {
			ups[p.Labels["instance"]] = p
		}
	}
	if p := ups[good.instance()]; p.Value != 1 || p.Labels["error"] != "" {
		t.Errorf("healthy target: %+v, want up 1 without error", p)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, _ := url.Parse(tt.url)
			p, ok := ups[u.Host]
			if !ok {
				p, ok = ups[tt.url] // an unusable URL is its own instance
			}
			if !ok {
				t.Fatalf("no up point for %s in %v", tt.url, points)
			}
			if p.Value != 0 || !strings.Contains(p.Labels["error"], tt.want) || !strings.Contains(p.Labels["error"], tt.url) {
				t.Errorf("up = %v, error %q; want 0 and an error naming %s and %q", p.Value, p.Labels["error"], tt.url, tt.want)
			}
		})
	}
}

// TestScraperBy sums two targets' histograms into one group with By empty,
// and keeps them apart by instance by default.
func TestScraperBy(t *testing.T) {
	fast, slow := newHistogramServer(t, false), newHistogramServer(t, false)
	urls := []string{fast.URL, slow.URL}
	all, merged := &Scraper{URLs: urls}, &Scraper{URLs: urls, By: []string{}}
	const family = "latlab_test_duration_seconds"
	for i := 1; i <= 2; i++ {
		all.Scrape(t.Context(), time.Duration(i)*5*time.Second)
		merged.Scrape(t.Context(), time.Duration(i)*5*time.Second)
		fast.observe(10, 0.0015)
		slow.observe(10, 0.03)
	}
	gotAll := pointMap(all.Scrape(t.Context(), 15*time.Second))
	gotMerged := pointMap(merged.Scrape(t.Context(), 15*time.Second))
	compare(t, gotAll, map[string]float64{
		key(family+":p100", "instance", fast.instance()): 0.002,
		key(family+":p100", "instance", slow.instance()): 0.05,
	})
	compare(t, gotMerged, map[string]float64{
		key(family + ":p50"):  0.002, // rank 20 of 40: the last of the 20 fast ones
		key(family + ":p100"): 0.05,
	})
}

func TestScraperRun(t *testing.T) {
	srv := newHistogramServer(t, false)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// The window holds every scrape however late a busy machine makes
	// them (its quantiles need two), and the timeout, which would be the
	// interval, lets every scrape finish however slowly.
	s := &Scraper{URLs: []string{srv.URL}, Interval: 10 * time.Millisecond, Window: time.Hour, Timeout: time.Minute}
	var batches [][]Point
	err := s.Run(ctx, time.Now(), func(points []Point) {
		batches = append(batches, points)
		srv.observe(5, 0.004)
		if len(batches) == 4 {
			cancel()
		}
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(batches) != 4 {
		t.Fatalf("got %d batches, want 4", len(batches))
	}
	for i := 1; i < len(batches); i++ {
		if batches[i][0].T <= batches[i-1][0].T {
			t.Errorf("batch %d at %v, not after %v", i, batches[i][0].T, batches[i-1][0].T)
		}
	}
	last := pointMap(batches[3])
	if got := last[key("latlab_test_duration_seconds:p100", "instance", srv.instance())]; got != 0.005 {
		t.Errorf("p100 = %v, want 0.005 (all in (2 ms, 5 ms]); points %v", got, last)
	}
}

func TestScraperValidate(t *testing.T) {
	tests := []struct {
		name string
		s    *Scraper
		want string // "" means valid
	}{
		{"defaults", &Scraper{URLs: []string{"http://127.0.0.1:1/metrics"}}, ""},
		{"no URLs", &Scraper{}, "no URLs"},
		{"bad URL", &Scraper{URLs: []string{"127.0.0.1:1/metrics"}}, "URLs"},
		{"window too short", &Scraper{URLs: []string{"http://h/"}, Interval: time.Minute}, "fewer than two scrapes"},
		{"negative", &Scraper{URLs: []string{"http://h/"}, Timeout: -1}, "negative"},
		{"quantile", &Scraper{URLs: []string{"http://h/"}, Quantiles: []float64{1.5}}, "Quantiles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
			if tt.want != "" {
				if err := tt.s.Run(t.Context(), time.Now(), func([]Point) {}); err == nil {
					t.Error("Run accepted an invalid Scraper")
				}
			}
		})
	}
}
