package probe

import (
	"math"
	"testing"
	"time"
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
	w := newWindows(time.Minute, nil, []float64{0.5, 0.9, 0.99})
	labels := map[string]string{"instance": "127.0.0.1:9100", "route": "/busywork"}
	buckets := benchBuckets(0)
	t := int64(0)
	scrape := func() {
		t += 5000
		for i := range buckets {
			buckets[i].Count += float64(i + 1)
		}
		w.add(t, "latlab_server_request_duration_seconds", labels, buckets, buckets[29].Count)
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
