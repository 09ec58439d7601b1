package probe

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// benchBuckets returns 30 cumulative buckets (29 exponential bounds from
// 10 µs, then +Inf) holding n observations spread over them.
func benchBuckets(n float64) []Bucket {
	b := make([]Bucket, 30)
	for i := range b {
		b[i] = Bucket{1e-5 * math.Pow(1.6, float64(i)), n * float64(i+1) / 30}
	}
	b[29].UpperBound = math.Inf(+1)
	return b
}

// BenchmarkWindowQuantile is the per-scrape work for one histogram of 30
// buckets: record the scrape, then evaluate p50/p90/p99/p100 and the rate over
// a 1 m window of 5 s scrapes.
func BenchmarkWindowQuantile(b *testing.B) {
	buckets := benchBuckets(0)
	benchWindow(b, func(w *windows, t int64, labels map[string]string) {
		for i := range buckets {
			buckets[i].Count += float64(i + 1)
		}
		w.add(t, "latlab_server_request_duration_seconds", labels, buckets, buckets[29].Count)
	})
}

// benchWindow times one scrape, recorded by add at t in ms, and the
// evaluation of p50/p90/p99/p100 and the rate over a 1 m window already
// holding 12 scrapes 5 s apart.
func benchWindow(b *testing.B, add func(w *windows, t int64, labels map[string]string)) {
	w := newWindows(time.Minute, nil, []float64{0.5, 0.9, 0.99})
	labels := map[string]string{"instance": "127.0.0.1:9100", "route": "/busywork"}
	t := int64(0)
	scrape := func() {
		t += 5000
		add(w, t, labels)
	}
	for range 12 {
		scrape()
	}
	b.ReportAllocs()
	for b.Loop() {
		scrape()
		if points := w.evaluate(t); len(points) != 5 {
			b.Fatalf("%d points, want 5", len(points))
		}
	}
}

// BenchmarkQuantile is histogram_quantile over 30 buckets.
func BenchmarkQuantile(b *testing.B) {
	buckets := benchBuckets(1000)
	b.ReportAllocs()
	for b.Loop() {
		if v := Quantile(0.99, buckets); math.IsNaN(v) {
			b.Fatal("NaN")
		}
	}
}

// spread returns n values spread log-uniformly over 20 µs … 2 s, about 130
// buckets of schema 3.
func spread(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 20e-6 * math.Pow(1e5, (float64(i)+0.5)/float64(n))
	}
	return v
}

// BenchmarkWindowNative is BenchmarkWindowQuantile for a native histogram
// with about 130 populated buckets of schema 3: record the scrape, then
// evaluate p50/p90/p99/p100 and the rate over a 1 m window of 5 s scrapes.
func BenchmarkWindowNative(b *testing.B) {
	h := nativeHist{schema: 3, zeroThreshold: 0x1p-128}
	for _, v := range spread(130) {
		i := int32(math.Ceil(8 * math.Log2(v)))
		if n := len(h.pos); n == 0 || h.pos[n-1].index != i {
			h.pos = append(h.pos, nativeBucket{i, 0})
		}
	}
	var scratch nativeHist
	benchWindow(b, func(w *windows, t int64, labels map[string]string) {
		for i := range h.pos {
			h.pos[i].count += float64(i%7 + 1)
			h.count += float64(i%7 + 1)
		}
		scratch = h
		scratch.pos = append(scratch.pos[:0], h.pos...)
		w.add(t, "latlab_server_request_duration_seconds", labels, nil, h.count)
		w.addNative(t, "latlab_server_request_duration_seconds", labels, &scratch)
	})
}

// BenchmarkScrape is one Scrape of a target on 127.0.0.1 serving 8
// node-like histograms (25 classic buckets, about 130 native ones each, of
// schema 3: coarser than the nodes' schema 5), with a few new observations
// per scrape: HTTP, decoding, recording and evaluating a 1 m window of 5 s
// scrapes. "native" reads the protobuf exposition and its native buckets,
// "text" the text format and its classic buckets.
func BenchmarkScrape(b *testing.B) {
	for _, text := range []bool{false, true} {
		name := "native"
		if text {
			name = "text"
		}
		b.Run(name, func(b *testing.B) {
			reg := prometheus.NewRegistry()
			vec := prometheus.NewHistogramVec(prometheus.HistogramOpts{
				Name: "latlab_server_request_duration_seconds", Help: "x", Buckets: nodeBuckets(),
				NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 160,
			}, []string{"route"})
			reg.MustRegister(vec)
			values := spread(1000)
			for r := range 8 {
				for _, v := range values {
					vec.WithLabelValues(strconv.Itoa(r)).Observe(v)
				}
			}
			srv := newRegistryServer(b, reg, text)
			s := &Scraper{URLs: []string{srv.URL}}
			ctx := b.Context()
			at, k := time.Duration(0), 0
			scrape := func() []Point {
				for r := range 8 {
					for range 4 {
						vec.WithLabelValues(strconv.Itoa(r)).Observe(values[k%len(values)])
						k += 7
					}
				}
				at += 5 * time.Second
				return s.Scrape(ctx, at)
			}
			for range 12 {
				scrape()
			}
			b.ReportAllocs()
			for b.Loop() {
				if points := scrape(); len(points) != 1+8*5 {
					b.Fatalf("%d points, want 41", len(points))
				}
			}
		})
	}
}
