package probe

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// classicText is a page in the classic text format, as a non-Go exporter
// writes it: a typed histogram, and an untyped one (no # TYPE line) whose
// x_bucket series Prometheus would still feed to histogram_quantile. n
// scales the counts.
func classicText(n int) string {
	return fmt.Sprintf(`# HELP old_seconds A histogram in the classic text format.
# TYPE old_seconds histogram
old_seconds_bucket{path="/a",instance="inner",le="0.5"} %d
old_seconds_bucket{path="/a",instance="inner",le="1"} %d
old_seconds_bucket{path="/a",instance="inner",le="+Inf"} %d
old_seconds_sum{path="/a",instance="inner"} 12.5
old_seconds_count{path="/a",instance="inner"} %d
loose_seconds_bucket{le="1"} %d
loose_seconds_bucket{le="+Inf"} %d
loose_seconds_count %d
`, 10*n, 10*n, 11*n, 11*n, 4*n, 4*n, 4*n)
}

func TestScraperClassicText(t *testing.T) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, classicText(n))
		n++
	}))
	defer srv.Close()
	s := &Scraper{URLs: []string{srv.URL}, Interval: 10 * time.Second}
	inst := strings.TrimPrefix(srv.URL, "http://")
	var got map[string]float64
	for i := 1; i <= 3; i++ {
		got = pointMap(s.Scrape(t.Context(), time.Duration(i)*10*time.Second))
	}
	old := []string{"instance", inst, "exported_instance", "inner", "path", "/a"}
	compare(t, got, map[string]float64{
		key("up", "instance", inst): 1,
		// rank 5.5 of the 10 in (0, 0.5]; one in (1, +Inf).
		key("old_seconds:p50", old...):  0.5 * 5.5 / 10,
		key("old_seconds:p100", old...): 1,
		key("old_seconds:rate", old...): 22.0 / 60,
		// rank 2 of the 4 in (0, 1].
		key("loose_seconds:p50", "instance", inst):  0.5,
		key("loose_seconds:p100", "instance", inst): 1,
		key("loose_seconds:rate", "instance", inst): 8.0 / 60,
	})
}

// pageServer answers each request with the next of its pages, as a target
// whose metrics change between scrapes; one scrape at a time.
type pageServer []string

func (p *pageServer) RoundTrip(r *http.Request) (*http.Response, error) {
	page := (*p)[0]
	*p = (*p)[1:]
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/plain; version=0.0.4"}},
		Body:       io.NopCloser(strings.NewReader(page)),
		Request:    r,
	}, nil
}

// FuzzScrapeText feeds arbitrary text-format pages through the decoder, the
// ingestion and the windows: whatever a target serves, the scraper must not
// panic.
func FuzzScrapeText(f *testing.F) {
	f.Add(classicText(1), classicText(2))
	f.Add("x_bucket{le=\"1\"} 1\nx_bucket{le=\"+Inf\"} 2\n", "x_bucket{le=\"1\"} 0\nx_bucket{le=\"+Inf\"} 5\n")
	f.Add("# TYPE h histogram\nh_bucket{le=\"NaN\"} 1\nh_count 1\n", "# TYPE h histogram\nh_bucket{le=\"-1\"} 3\nh_bucket{le=\"+Inf\"} 1\n")
	f.Fuzz(func(t *testing.T, page1, page2 string) {
		// The pages come from memory, not a server per input: the fuzzer
		// spends its time in the decoder, not in dialing.
		pages := pageServer{page1, page2, page1}
		client := &http.Client{Transport: &pages}
		s := &Scraper{URLs: []string{"http://target.invalid/metrics"}, Interval: time.Second, Client: client}
		for i := 1; i <= 3; i++ {
			for _, p := range s.Scrape(t.Context(), time.Duration(i)*time.Second) {
				if math.IsNaN(p.Value) {
					t.Fatalf("NaN point %+v", p)
				}
			}
		}
	})
}
