package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

func TestQuantileCI(t *testing.T) {
	// 1 ms, 2 ms, …, n ms: the value of rank k is k ms, within the
	// histogram's 3 significant digits.
	ranks := func(n int) Histogram {
		h := record.NewHistogram()
		for i := 1; i <= n; i++ {
			_ = h.RecordValue(int64(i) * int64(time.Millisecond))
		}
		return h
	}
	tests := []struct {
		name           string
		h              Histogram
		q              float64
		lo, hi         time.Duration
		loOpen, hiOpen bool
	}{
		// The textbook interval of the median of 100: [x(40), x(61)].
		{"median of 100", ranks(100), 0.5, 40 * time.Millisecond, 61 * time.Millisecond, false, false},
		// Binomial(100, 0.9): P(B ≤ 83) ≤ 2.5% < P(B ≤ 84), P(B ≥ 96) ≤ 2.5%.
		// P(B ≥ 96) ≤ 2.5% < P(B ≥ 95).
		{"p90 of 100", ranks(100), 0.9, 84 * time.Millisecond, 96 * time.Millisecond, false, false},
		// 20 samples bound p50 from below at x(6): P(B < 6) = 2.07%.
		{"median of 20", ranks(20), 0.5, 6 * time.Millisecond, 15 * time.Millisecond, false, false},
		// Five samples bound no median at 95%: P(B = 0) = 3.1%.
		{"median of 5", ranks(5), 0.5, time.Millisecond, 5 * time.Millisecond, true, true},
		{"p99 of 100", ranks(100), 0.99, 97 * time.Millisecond, 100 * time.Millisecond, false, true},
		{"empty", record.NewHistogram(), 0.5, 0, 0, true, true},
		{"nil", nil, 0.5, 0, 0, true, true},
		{"max", ranks(10), 1, 0, 0, true, true},
	}
	near := func(got, want time.Duration) bool { return math.Abs(float64(got-want)) <= 0.001*float64(want) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi, loOpen, hiOpen := QuantileCI(tt.h, tt.q)
			if !near(lo, tt.lo) || !near(hi, tt.hi) || loOpen != tt.loOpen || hiOpen != tt.hiOpen {
				t.Errorf("QuantileCI = [%s, %s] open %v %v; want [%s, %s] open %v %v",
					lo, hi, loOpen, hiOpen, tt.lo, tt.hi, tt.loOpen, tt.hiOpen)
			}
		})
	}
}

func TestRatioCI(t *testing.T) {
	// Wilson score intervals at 95%: the examples of Newcombe (1998),
	// "Two-sided confidence intervals for the single proportion", method
	// 3, and 0, 5 and 10 of 10.
	tests := []struct {
		k, n   int64
		lo, hi float64
	}{
		{0, 10, 0, 0.2775},
		{5, 10, 0.2366, 0.7634},
		{10, 10, 0.7225, 1},
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 0, 0, 1},
	}
	for _, tt := range tests {
		lo, hi := RatioCI(tt.k, tt.n)
		if math.Abs(lo-tt.lo) > 5e-5 || math.Abs(hi-tt.hi) > 5e-5 || (tt.k == 0 && lo != 0) || (tt.k == tt.n && hi != 1) {
			t.Errorf("RatioCI(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
}
