package record

import (
	"testing"
	"time"
)

// TestResolution pins the histograms' resolution: buckets 512 ns wide up
// to 1,048,576 ns, so 3 significant digits only from 512 µs; above that,
// each 1/2048 to 1/1024 of its values. A percentile is the top of its
// bucket, up to 511 ns above the sample below 1 ms.
func TestResolution(t *testing.T) {
	tests := []struct {
		sample, read int64 // ns
	}{
		{500, 1023},                         // below 1 µs: counted as 1 µs
		{1000, 1023},                        // 1 µs
		{56_000, 56_319},                    // 56 µs: +0.57%, at most +511 ns (0.91%)
		{100_000, 100_351},                  // 100 µs
		{524_287, 524_287},                  // top of a 512 ns bucket
		{524_288, 524_799},                  // 512 µs: +511 ns, 0.1%
		{1_048_576, 1_049_599},              // from here, 1,024 ns buckets
		{10_000_000, 10_002_431},            // 10 ms: 8,192 ns buckets
		{int64(time.Second), 1_000_341_503}, // 1 s: 524,288 ns buckets
	}
	for _, tt := range tests {
		h := NewHistogram()
		recordDuration(h, time.Duration(tt.sample))
		recordDuration(h, time.Duration(tt.sample))
		got, ok := Quantile(h, 0.5)
		if !ok || int64(got) != tt.read || h.Max() != tt.read {
			t.Errorf("p50 and max of two samples of %d ns = %d ns (%v) and %d ns; want %d ns", tt.sample, int64(got), ok, h.Max(), tt.read)
		}
	}
}
