package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// acceptHeader asks for the delimited protobuf format client_golang serves
// when asked (exact, and carries classic buckets beside native ones), then for
// the classic text format every exporter speaks; names may be UTF-8.
const acceptHeader = `application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=allow-utf-8;q=0.7,` +
	`text/plain;version=0.0.4;escaping=allow-utf-8;q=0.5,*/*;q=0.1`

// maxScrapeBytes bounds one scrape's body.
const maxScrapeBytes = 64 << 20

// Scraper scrapes Prometheus metrics endpoints and turns every histogram
// family into windowed quantiles. It asks for the protobuf exposition, which
// carries native histograms, and falls back to the text format when that is
// what the target serves.
//
// It computes them as Prometheus does, from native buckets where it can:
// the package documentation's section Scraper says how. Every label set
// scraped gets an instance label (the URL's host:port; an instance label
// already there becomes exported_instance, as Prometheus renames it).
//
// Per scrape a Scraper yields, with Probe "metrics":
//   - "up" per URL: 1, or 0 with Labels["error"] saying why;
//   - "<family>:p50", ":p90", ":p99" (one per entry of Quantiles), ":p100"
//     per group with observations in the window;
//   - "<family>:rate": observations per second, sum by (<By>) (rate(x_count));
//   - "<family>": a gauge's value per label set, for the gauges Families
//     names.
//
// The zero value needs URLs and is then ready; do not change the fields
// after the first Run or Scrape.
type Scraper struct {
	// URLs are the endpoints, such as http://127.0.0.1:9100/metrics.
	URLs []string
	// Interval between scrapes; zero means 5s.
	Interval time.Duration
	// Window is the range of the rates; zero means 1m. It should hold at
	// least two scrapes: a rate needs two samples.
	Window time.Duration
	// Timeout bounds one scrape of one URL; zero means Interval, at most 10s.
	Timeout time.Duration
	// By lists the labels to sum by besides le. Nil keeps every label (each
	// histogram is its own group); an empty, non-nil slice sums a whole
	// family into one group.
	By []string
	// Quantiles are the quantiles to compute besides p100; nil means 0.5,
	// 0.9 and 0.99.
	Quantiles []float64
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// Families, when not empty, limits what is read to the metric families
	// of these names (an API server exposes hundreds), and then a gauge
	// among them is read too: its value per label set at every scrape.
	Families []string

	mu      sync.Mutex // serializes Scrape; guards the fields below
	win     *windows
	targets []target
	scratch nativeHist // one histogram's native buckets while ingesting
}

// target is one URL to scrape and the instance label of what it returns.
type target struct {
	url, instance string
	err           error // the URL is unusable
}

// Validate reports what is wrong with the configuration, naming the field.
func (s *Scraper) Validate() error {
	if len(s.URLs) == 0 {
		return errors.New("scraper: no URLs")
	}
	for _, raw := range s.URLs {
		if _, err := parseTarget(raw); err != nil {
			return fmt.Errorf("scraper: URLs: %w", err)
		}
	}
	if s.Interval < 0 || s.Window < 0 || s.Timeout < 0 {
		return errors.New("scraper: Interval, Window and Timeout must not be negative")
	}
	if s.window() < 2*s.interval() {
		return fmt.Errorf("scraper: Window %v holds fewer than two scrapes %v apart", s.window(), s.interval())
	}
	for _, q := range s.Quantiles {
		if !(q >= 0 && q <= 1) {
			return fmt.Errorf("scraper: Quantiles: %v is not in [0, 1]", q)
		}
	}
	return nil
}

func (s *Scraper) interval() time.Duration { return orDefault(s.Interval, 5*time.Second) }
func (s *Scraper) window() time.Duration   { return orDefault(s.Window, time.Minute) }

func (s *Scraper) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return min(s.interval(), 10*time.Second)
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Run scrapes every Interval, starting at once, until ctx ends, and hands
// each scrape's points to emit, from the goroutine that called Run. T is
// measured from start, the start of the run. Run returns an error only for a
// bad configuration; failed scrapes are points.
func (s *Scraper) Run(ctx context.Context, start time.Time, emit func([]Point)) error {
	if err := s.Validate(); err != nil {
		return err
	}
	sampleEvery(ctx, s.interval(), start, false, func(at time.Duration) []Point { return s.Scrape(ctx, at) }, emit)
	return nil
}

// Scrape scrapes every URL once, in parallel, records the histograms as
// sampled at offset at, and returns the up points and the quantiles of the
// window ending at at. A URL whose scrape ctx cut short yields nothing.
// Calls are serialized; at should grow from call to call.
func (s *Scraper) Scrape(ctx context.Context, at time.Duration) []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setup()
	type result struct {
		families []*dto.MetricFamily
		err      error
	}
	results := make([]result, len(s.targets))
	var wg sync.WaitGroup
	for i, tg := range s.targets {
		if tg.err != nil {
			results[i].err = tg.err
			continue
		}
		wg.Go(func() {
			results[i].families, results[i].err = s.fetch(ctx, tg.url)
		})
	}
	wg.Wait()

	t := at.Milliseconds()
	var points []Point
	for i, tg := range s.targets {
		r := results[i]
		if r.err != nil && ctx.Err() != nil {
			continue // cut short by the caller: not the target's fault
		}
		up := Point{Probe: "metrics", Series: "up", Labels: map[string]string{"instance": tg.instance}, T: at, Value: 1}
		if r.err != nil {
			up.Value = 0
			up.Labels["error"] = r.err.Error()
		}
		points = append(points, up)
		families := s.keep(r.families)
		if len(s.Families) > 0 {
			points = append(points, gauges(at, tg.instance, families)...)
		}
		s.ingest(t, tg.instance, families)
		s.ingestNative(t, tg.instance, families)
	}
	return append(points, s.win.evaluate(t)...)
}

// keep returns the families Families names, all of them when it is empty.
// An untyped family (text format without # TYPE) is named by its series:
// x_bucket, x_count and x_sum are kept for x.
func (s *Scraper) keep(families []*dto.MetricFamily) []*dto.MetricFamily {
	if len(s.Families) == 0 {
		return families
	}
	var kept []*dto.MetricFamily
	for _, mf := range families {
		name := mf.GetName()
		if mf.GetType() == dto.MetricType_UNTYPED {
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				if base, ok := strings.CutSuffix(name, suffix); ok && slices.Contains(s.Families, base) {
					name = base
				}
			}
		}
		if slices.Contains(s.Families, name) {
			kept = append(kept, mf)
		}
	}
	return kept
}

// gauges returns a point per label set of every gauge in families. Scrape
// asks it only of families chosen by name: all of a target's gauges would
// be too many.
func gauges(at time.Duration, instance string, families []*dto.MetricFamily) []Point {
	var points []Point
	for _, mf := range families {
		if mf.GetType() != dto.MetricType_GAUGE {
			continue
		}
		for _, m := range mf.GetMetric() {
			points = append(points, Point{Probe: "metrics", Series: mf.GetName(), T: at,
				Labels: targetLabels(m.GetLabel(), instance, ""), Value: m.GetGauge().GetValue()})
		}
	}
	return points
}

// setup prepares the windows and targets on first use.
func (s *Scraper) setup() {
	if s.win != nil {
		return
	}
	quantiles := s.Quantiles
	if quantiles == nil {
		quantiles = []float64{0.5, 0.9, 0.99}
	}
	s.win = newWindows(s.window(), s.By, quantiles)
	hosts := map[string]int{}
	for _, raw := range s.URLs {
		if u, err := parseTarget(raw); err == nil {
			hosts[u.Host]++
		}
	}
	for _, raw := range s.URLs {
		tg := target{url: raw, instance: raw}
		u, err := parseTarget(raw)
		switch {
		case err != nil:
			tg.err = err
		case hosts[u.Host] == 1:
			tg.instance = u.Host
		}
		s.targets = append(s.targets, tg)
	}
}

func parseTarget(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL with a host", raw)
	}
	return u, nil
}

// fetch scrapes one URL and decodes whichever format the server chose.
func (s *Scraper) fetch(ctx context.Context, target string) ([]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", target, err)
	}
	req.Header.Set("Accept", acceptHeader)
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // it repeats the URL
		}
		return nil, fmt.Errorf("scraping %s: %w", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scraping %s: %s", target, resp.Status)
	}
	format := expfmt.Format(resp.Header.Get("Content-Type"))
	if format == "" {
		format = expfmt.FmtText
	}
	dec := expfmt.NewDecoder(io.LimitReader(resp.Body, maxScrapeBytes), format)
	var families []*dto.MetricFamily
	for {
		mf := &dto.MetricFamily{}
		err := dec.Decode(mf)
		if errors.Is(err, io.EOF) {
			return families, nil
		}
		if err != nil {
			return nil, fmt.Errorf("scraping %s: decoding %s: %w", target, strings.TrimSpace(string(format)), err)
		}
		families = append(families, mf)
	}
}
