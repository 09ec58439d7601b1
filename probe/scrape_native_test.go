package probe

import (
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// nodeBuckets is the classic bucket layout of latlab's graph nodes: 25
// bounds from 10 µs to 10 s, four per decade, to four significant digits.
func nodeBuckets() []float64 {
	b := prometheus.ExponentialBucketsRange(10e-6, 10, 25)
	for i, v := range b {
		b[i], _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	}
	return b
}

// nodeHistogram is a histogram shaped as latlab's graph nodes declare
// theirs, classic buckets and native ones, but coarser: bucket factor 1.1
// (schema 3, buckets 9% wide) where the nodes' 1.03 makes schema 5 (2.2%).
func nodeHistogram(name string) prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: name, Help: "Observations fed by the test.", Buckets: nodeBuckets(),
		NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 160,
	})
}

// registryServer serves whichever registry was set last, over protobuf as
// client_golang does when asked, or, with text set, in the text format (it
// drops the Accept header). It remembers the Content-Type it answered with.
type registryServer struct {
	*httptest.Server
	mu          sync.Mutex
	handler     http.Handler
	contentType string
}

func newRegistryServer(t testing.TB, reg *prometheus.Registry, text bool) *registryServer {
	t.Helper()
	s := &registryServer{}
	s.set(reg)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if text {
			r.Header.Del("Accept")
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.handler.ServeHTTP(w, r)
		s.contentType = w.Header().Get("Content-Type")
	}))
	t.Cleanup(s.Close)
	return s
}

// set makes the server serve reg from now on, as a restarted target would.
func (s *registryServer) set(reg *prometheus.Registry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

func (s *registryServer) instance() string {
	u, _ := url.Parse(s.URL)
	return u.Host
}

func (s *registryServer) lastContentType() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.contentType
}

func observeN(h prometheus.Observer, n int, v float64) {
	for range n {
		h.Observe(v)
	}
}

// schema3 returns the bounds (lower, upper] of the schema-3 native bucket
// holding v > 0, computed here from the definition: bucket i ends at
// 2^(i/8).
func schema3(v float64) (lower, upper float64) {
	i := math.Ceil(8 * math.Log2(v))
	return math.Exp2((i - 1) / 8), math.Exp2(i / 8)
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / want }

// lerpLog interpolates the fraction f of the way from lo to hi on a
// logarithmic scale.
func lerpLog(lo, hi, f float64) float64 {
	return math.Exp2(math.Log2(lo) + (math.Log2(hi)-math.Log2(lo))*f)
}

// TestScraperNative scrapes a node-like histogram through both formats: 980
// observations of 50 µs and 20 of 1.01 s (a 1 s delay plus overhead) between
// two scrapes. Over protobuf the native buckets put p99 and p100 within the
// 9% of one native bucket of 1.01 s; from the classic buckets of the text
// format, both land inside the coarse (1 s, 1.778 s] bucket, far off.
func TestScraperNative(t *testing.T) {
	const family = "latlab_test_duration_seconds"
	reg := prometheus.NewRegistry()
	hist := nodeHistogram(family)
	reg.MustRegister(hist)
	proto, text := newRegistryServer(t, reg, false), newRegistryServer(t, reg, true)
	native := &Scraper{URLs: []string{proto.URL}, Interval: 10 * time.Second}
	classic := &Scraper{URLs: []string{text.URL}, Interval: 10 * time.Second}
	ctx := t.Context()
	native.Scrape(ctx, 10*time.Second)
	classic.Scrape(ctx, 10*time.Second)
	observeN(hist, 980, 50e-6)
	observeN(hist, 20, 1.01)
	gotNative := pointMap(native.Scrape(ctx, 20*time.Second))
	gotClassic := pointMap(classic.Scrape(ctx, 20*time.Second))
	if ct := proto.lastContentType(); !strings.HasPrefix(ct, "application/vnd.google.protobuf") {
		t.Fatalf("served %q, want protobuf", ct)
	}
	if ct := text.lastContentType(); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("served %q, want text", ct)
	}

	inst := proto.instance()
	slowLo, slowHi := schema3(1.01)
	fastLo, fastHi := schema3(50e-6)
	compare(t, gotNative, map[string]float64{
		key("up", "instance", inst): 1,
		// Counted from the top: rank 500 is 500 of the 980 in 50 µs's
		// bucket, rank 10 half of the 20 in 1.01 s's.
		key(family+":p50", "instance", inst):  lerpLog(fastLo, fastHi, 500./980),
		key(family+":p99", "instance", inst):  lerpLog(slowLo, slowHi, 0.5),
		key(family+":p100", "instance", inst): slowHi,
		key(family+":rate", "instance", inst): 1000.0 / 60,
	})
	for _, q := range []string{"p99", "p100"} {
		k := key(family+":"+q, "instance", inst)
		if e := relErr(gotNative[k], 1.01); e > 0.1 {
			t.Errorf("native %s = %v, %.0f%% off 1.01 s, want within 10%%", q, gotNative[k], 100*e)
		}
		k = key(family+":"+q, "instance", text.instance())
		if e := relErr(gotClassic[k], 1.01); e < 0.3 {
			t.Errorf("classic %s = %v, only %.0f%% off 1.01 s: the comparison shows nothing", q, gotClassic[k], 100*e)
		}
	}
	if e := relErr(gotNative[key(family+":p50", "instance", inst)], 50e-6); e > 0.1 {
		t.Errorf("native p50 %.0f%% off 50 µs, want within 10%%", 100*e)
	}
	compare(t, gotClassic, map[string]float64{
		key(family+":p100", "instance", text.instance()): 1.778,
		key(family+":rate", "instance", text.instance()): 1000.0 / 60,
	})
}

// TestScraperNativeMixedFamilies scrapes a page holding a node-like
// histogram, a classic-only one, a native-only one, a counter and a gauge;
// then sums the node-like family over that target and a text-only one, a
// group with classic buckets only on one side, which is evaluated from the
// classic buckets of both.
func TestScraperNativeMixedFamilies(t *testing.T) {
	reg, other := prometheus.NewRegistry(), prometheus.NewRegistry()
	both, otherBoth := nodeHistogram("both_seconds"), nodeHistogram("both_seconds")
	classicOnly := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "classic_seconds", Help: "x", Buckets: []float64{0.001, 0.01, 0.1, 1}})
	nativeOnly := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "native_seconds", Help: "x", NativeHistogramBucketFactor: 1.1})
	counter := prometheus.NewCounter(prometheus.CounterOpts{Name: "requests_total", Help: "x"})
	gauge := prometheus.NewGauge(prometheus.GaugeOpts{Name: "in_flight", Help: "x"})
	reg.MustRegister(both, classicOnly, nativeOnly, counter, gauge)
	other.MustRegister(otherBoth)
	srv, textSrv := newRegistryServer(t, reg, false), newRegistryServer(t, other, true)

	one := &Scraper{URLs: []string{srv.URL}}
	summed := &Scraper{URLs: []string{srv.URL, textSrv.URL}, By: []string{}}
	ctx := t.Context()
	one.Scrape(ctx, 5*time.Second)
	summed.Scrape(ctx, 5*time.Second)
	observeN(both, 10, 1.01)
	observeN(otherBoth, 10, 1.01)
	observeN(classicOnly, 10, 0.005)
	observeN(nativeOnly, 10, 0.003)
	counter.Add(7)
	gauge.Set(3)
	gotOne := pointMap(one.Scrape(ctx, 10*time.Second))
	gotSummed := pointMap(summed.Scrape(ctx, 10*time.Second))

	inst := srv.instance()
	want := map[string]float64{key("up", "instance", inst): 1}
	// Ten observations in one bucket each: counted from the top, p50 is
	// half way up the bucket, p90 0.9 of the way, p99 0.99.
	for _, h := range []struct {
		family string
		bucket func(f float64) float64
	}{
		{"both_seconds", func(f float64) float64 { lo, hi := schema3(1.01); return lerpLog(lo, hi, f) }},
		{"native_seconds", func(f float64) float64 { lo, hi := schema3(0.003); return lerpLog(lo, hi, f) }},
		{"classic_seconds", func(f float64) float64 { return 0.001 + 0.009*f }},
	} {
		for _, q := range []float64{0.5, 0.9, 0.99, 1} {
			want[key(h.family+":"+quantileName(q), "instance", inst)] = h.bucket(q)
		}
		want[key(h.family+":rate", "instance", inst)] = 10.0 / 60
	}
	// The classic family's quantiles name their bucket, (1ms, 10ms]; the
	// native ones do not need to.
	for _, q := range []float64{0.5, 0.9, 0.99, 1} {
		want[key("classic_seconds:"+quantileName(q)+BucketLow, "instance", inst)] = 0.001
		want[key("classic_seconds:"+quantileName(q)+BucketHigh, "instance", inst)] = 0.01
	}
	compare(t, gotOne, want)
	if len(gotOne) != len(want) {
		t.Errorf("got %d points, want %d (no counter or gauge series): %v", len(gotOne), len(want), gotOne)
	}
	compare(t, gotSummed, map[string]float64{
		// 20 observations in the classic (1, 1.778] bucket: rank 10
		// is half way.
		key("both_seconds:p50"):     1 + 0.778*0.5,
		key("both_seconds:p100"):    1.778,
		key("both_seconds:rate"):    20.0 / 60,
		key("native_seconds:p100"):  want[key("native_seconds:p100", "instance", inst)],
		key("classic_seconds:p100"): 0.01,
	})
}

// TestScraperNativeCounterReset restarts the target between two scrapes:
// before, 100 observations of 50 µs and 4 of 1.01 s; after, 10 and 6. The
// count fell, so the whole histogram was reset, and the window holds 10 and
// 6, the 1.01 s bucket's 6 included although it grew from 4.
func TestScraperNativeCounterReset(t *testing.T) {
	const family = "latlab_test_duration_seconds"
	before := prometheus.NewRegistry()
	hist := nodeHistogram(family)
	before.MustRegister(hist)
	observeN(hist, 100, 50e-6)
	observeN(hist, 4, 1.01)
	srv := newRegistryServer(t, before, false)
	s := &Scraper{URLs: []string{srv.URL}, Interval: 10 * time.Second, Quantiles: []float64{0.5, 0.7}}
	s.Scrape(t.Context(), 10*time.Second)

	after := prometheus.NewRegistry()
	hist = nodeHistogram(family)
	after.MustRegister(hist)
	observeN(hist, 10, 50e-6)
	observeN(hist, 6, 1.01)
	srv.set(after)
	got := pointMap(s.Scrape(t.Context(), 20*time.Second))

	inst := srv.instance()
	fastLo, fastHi := schema3(50e-6)
	slowLo, slowHi := schema3(1.01)
	compare(t, got, map[string]float64{
		// From the top, rank 8 of 16 is 8 of the 10 fast ones; rank
		// 4.8 is 1.2 of the 6 slow ones, 1/5 up their bucket.
		key(family+":p50", "instance", inst):  lerpLog(fastLo, fastHi, 0.8),
		key(family+":p70", "instance", inst):  lerpLog(slowLo, slowHi, 0.2),
		key(family+":p100", "instance", inst): slowHi,
		// Increase 16 over 10 s, extrapolated 5 s back (half an interval:
		// the window starts 50 s before the first scrape) over 60 s.
		key(family+":rate", "instance", inst): 16 * 1.5 / 60,
	})
}

// TestScraperNativeResolutionDrop lets client_golang lower a histogram's
// schema between two scrapes, as it does once a histogram has more buckets
// than allowed: the window merges the first scrape down and p100 is the
// upper bound of the lower schema's bucket holding the largest observation.
func TestScraperNativeResolutionDrop(t *testing.T) {
	const family = "spread_seconds"
	reg := prometheus.NewRegistry()
	hist := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: family, Help: "x", NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 8,
	})
	reg.MustRegister(hist)
	srv := newRegistryServer(t, reg, false)
	s := &Scraper{URLs: []string{srv.URL}, Interval: 10 * time.Second}
	observeN(hist, 5, 0.01)
	s.Scrape(t.Context(), 10*time.Second)
	const largest = 3.0
	for v := 0.001; v <= largest; v *= 1.5 {
		hist.Observe(v)
	}
	hist.Observe(largest)
	got := pointMap(s.Scrape(t.Context(), 20*time.Second))

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	schema := families[0].GetMetric()[0].GetHistogram().GetSchema()
	if schema >= 3 {
		t.Fatalf("client_golang kept schema %d; the test needs it lowered", schema)
	}
	// The bucket of schema s holding v ends at the next power of
	// 2^(2^-s) at or above it.
	width := math.Exp2(-float64(schema))
	wantP100 := math.Exp2(math.Ceil(math.Log2(largest)/width) * width)
	k := key(family+":p100", "instance", srv.instance())
	if g, ok := got[k]; !ok || relErr(g, wantP100) > 1e-12 {
		t.Errorf("p100 at schema %d = %v (present %v), want %v; points %v", schema, g, ok, wantP100, got)
	}
}

// TestScraperFamilies reads only the families named, a gauge among them as
// its value, from a page in either format.
func TestScraperFamilies(t *testing.T) {
	reg := prometheus.NewRegistry()
	kept, dropped := nodeHistogram("kept_seconds"), nodeHistogram("dropped_seconds")
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "in_flight", Help: "x"}, []string{"kind"})
	other := prometheus.NewGauge(prometheus.GaugeOpts{Name: "other_gauge", Help: "x"})
	reg.MustRegister(kept, dropped, gauge, other)
	for _, text := range []bool{false, true} {
		srv := newRegistryServer(t, reg, text)
		s := &Scraper{URLs: []string{srv.URL}, Families: []string{"kept_seconds", "in_flight", "absent"}}
		ctx := t.Context()
		s.Scrape(ctx, 5*time.Second)
		observeN(kept, 10, 1.01)
		observeN(dropped, 10, 1.01)
		gauge.WithLabelValues("mutating").Set(3)
		other.Set(9)
		got := pointMap(s.Scrape(ctx, 10*time.Second))
		inst := srv.instance()
		for _, k := range []string{key("up", "instance", inst), key("kept_seconds:p99", "instance", inst), key("in_flight", "instance", inst, "kind", "mutating")} {
			if _, ok := got[k]; !ok {
				t.Errorf("text %v: no %s in %v", text, k, got)
			}
		}
		if v := got[key("in_flight", "instance", inst, "kind", "mutating")]; v != 3 {
			t.Errorf("text %v: in_flight = %v, want 3", text, v)
		}
		for k := range got {
			if strings.HasPrefix(k, "dropped_seconds") || strings.HasPrefix(k, "other_gauge") {
				t.Errorf("text %v: %s read, though not named", text, k)
			}
		}
	}
}
