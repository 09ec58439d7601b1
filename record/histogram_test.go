package record

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// rankSample is the sample of rank r (1-based) in TestQuantileRank's runs:
// 1 ms × 1.002^r, each in a bucket of its own, since the histogram's are at
// most 0.1% wide above 0.5 ms.
func rankSample(r int) int64 {
	return int64(float64(time.Millisecond) * math.Pow(1.002, float64(r)))
}

// TestQuantileRank pins the rank rule every percentile is read with: of n
// samples, quantile q is the sample of rank ⌊q·n + ½⌋ (q·n rounded, a half
// up), reported as the top of its histogram bucket. Nearest-rank, ⌈q·n⌉, is
// one rank higher whenever q·n has a fraction below ½: p99.9 of 1,501 to
// 1,999 samples, p99 of 151 to 199. Each such p99.9 is marked low
// confidence (fewer than 10/(1−q) = 10,000 samples).
func TestQuantileRank(t *testing.T) {
	tests := []struct {
		n       int
		q       float64
		rank    int  // the rank read
		nearest int  // ⌈q·n⌉
		low     bool // low confidence, printed with ~
	}{
		{16, 0.9, 14, 15, true},
		{1000, 0.5, 500, 500, false},
		{1001, 0.5, 501, 501, false},
		{150, 0.99, 149, 149, true},
		{151, 0.99, 149, 150, true},
		{1000, 0.999, 999, 999, true},
		{1500, 0.999, 1499, 1499, true},
		{1501, 0.999, 1499, 1500, true},
		{1990, 0.999, 1988, 1989, true},
		{2000, 0.999, 1998, 1998, true},
		{2400, 0.999, 2398, 2398, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("q%g of %d", tt.q, tt.n), func(t *testing.T) {
			h := NewHistogram()
			for r := 1; r <= tt.n; r++ {
				h.RecordValue(rankSample(r))
			}
			got, ok := Quantile(h, tt.q)
			if !ok {
				t.Fatalf("Quantile(%g) of %d samples is n/a", tt.q, tt.n)
			}
			if !h.ValuesAreEquivalent(int64(got), rankSample(tt.rank)) {
				t.Errorf("Quantile(%g) = %s, want rank %d's %s (nearest-rank %d: %s)",
					tt.q, got, tt.rank, time.Duration(rankSample(tt.rank)), tt.nearest, time.Duration(rankSample(tt.nearest)))
			}
			if low := LowConfidence(int64(tt.n), tt.q); low != tt.low {
				t.Errorf("LowConfidence(%d, %g) = %v, want %v", tt.n, tt.q, low, tt.low)
			}
			if want := int(math.Ceil(tt.q*float64(tt.n) - 1e-9)); tt.nearest != want {
				t.Errorf("table: nearest-rank is %d, not %d", want, tt.nearest)
			}
		})
	}
}

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
