package probe

import (
	"math"
	"testing"
)

var inf = math.Inf(+1)

// near reports whether got matches want: both NaN, equal infinities, or
// within a relative 1e-12 (absolute near zero).
func near(got, want float64) bool {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return got == want
	}
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

func TestQuantileByHand(t *testing.T) {
	simple := []Bucket{{0.1, 10}, {0.2, 20}, {0.5, 30}, {inf, 40}}
	tests := []struct {
		name    string
		buckets []Bucket
		q, want float64
	}{
		// rank 0 lands in the lowest bucket, which interpolates from 0.
		{"q0", simple, 0, 0},
		// rank 10 = the whole lowest bucket: its upper bound.
		{"lowest bucket full", simple, 0.25, 0.1},
		// rank 12: 2 of the 10 observations in (0.1, 0.2].
		{"interpolated", simple, 0.3, 0.12},
		{"median", simple, 0.5, 0.2},
		// rank 36 is in the +Inf bucket: highest finite bound.
		{"in +Inf bucket", simple, 0.9, 0.5},
		{"q1", simple, 1, 0.5},
		{"q below 0", simple, -0.1, math.Inf(-1)},
		{"q above 1", simple, 1.01, math.Inf(+1)},
		{"q NaN", simple, math.NaN(), math.NaN()},
		// A lowest bucket with a bound ≤ 0 returns that bound.
		{"non-positive lowest", []Bucket{{-1, 5}, {1, 10}, {inf, 10}}, 0.2, -1},
		// rank 7.5: half of the 5 in (-1, 1].
		{"interpolated across 0", []Bucket{{-1, 5}, {1, 10}, {inf, 10}}, 0.75, 0},
		// Unsorted, and 0.2 twice: summed into 0.1:1 0.2:2 +Inf:4.
		{"unsorted and coalesced", []Bucket{{inf, 4}, {0.2, 1}, {0.1, 1}, {0.2, 1}}, 0.5, 0.2},
		{"no +Inf bucket", []Bucket{{0.1, 1}, {0.2, 2}}, 0.5, math.NaN()},
		{"only +Inf", []Bucket{{inf, 3}}, 0.5, math.NaN()},
		{"no observations", []Bucket{{0.1, 0}, {inf, 0}}, 0.5, math.NaN()},
		{"no buckets", nil, 0.5, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]Bucket(nil), tt.buckets...)
			if got := Quantile(tt.q, tt.buckets); !near(got, tt.want) {
				t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
			}
			for i := range in {
				if in[i] != tt.buckets[i] {
					t.Fatalf("Quantile modified its input: %v, was %v", tt.buckets, in)
				}
			}
		})
	}
}

func TestP100(t *testing.T) {
	tests := []struct {
		name    string
		buckets []Bucket
		want    float64
	}{
		{"highest finite bucket filled", []Bucket{{0.1, 3}, {0.2, 5}, {0.5, 5}, {inf, 5}}, 0.2},
		{"only lowest bucket", []Bucket{{0.1, 3}, {0.2, 3}, {inf, 3}}, 0.1},
		{"+Inf bucket filled", []Bucket{{0.1, 3}, {0.2, 5}, {inf, 6}}, 0.2},
		{"non-positive lowest", []Bucket{{-1, 2}, {1, 2}, {inf, 2}}, -1},
		// Noise below 1e-12 relative is not an observation.
		{"precision noise", []Bucket{{1, 10}, {2, 10.000000000001}, {inf, 10}}, 1},
		// A decrease is flattened, never a negative observation.
		{"non-monotonic", []Bucket{{1, 10}, {2, 8}, {4, 10}, {inf, 10}}, 1},
		{"empty window", []Bucket{{1, 0}, {inf, 0}}, math.NaN()},
		{"no +Inf", []Bucket{{1, 3}}, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := P100(tt.buckets); !near(got, tt.want) {
				t.Errorf("P100 = %v, want %v", got, tt.want)
			}
			// p100 is histogram_quantile(1, …) without interpolation's rounding.
			if got, q1 := P100(tt.buckets), Quantile(1, tt.buckets); !near(got, q1) {
				t.Errorf("P100 = %v, Quantile(1) = %v", got, q1)
			}
		})
	}
}

// TestQuantilePrometheusForcedMonotonicity replays the cases of Prometheus's
// promql/quantile_test.go TestBucketQuantile_ForcedMonotonicity: bucket sets
// with and without float noise, and the values Prometheus asserts for them.
func TestQuantilePrometheusForcedMonotonicity(t *testing.T) {
	realExample := []float64{1, 5, 10, 25, 50, 64, 80, 100, 250, 1000, inf}
	realExample2 := []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, inf}
	tests := []struct {
		name   string
		bounds []float64
		counts []float64
		want   map[float64]float64
	}{
		{"simple - monotonic", []float64{10, 15, 20, 30, inf}, []float64{10, 15, 15, 15, 15},
			map[float64]float64{1: 15, 0.99: 14.85, 0.9: 13.5, 0.5: 7.5}},
		{"simple - non-monotonic middle", []float64{10, 15, 20, 30, inf}, []float64{10, 15, 15.00000000001, 15, 15},
			map[float64]float64{1: 15, 0.99: 14.85, 0.9: 13.5, 0.5: 7.5}},
		{"real example - monotonic", realExample,
			[]float64{6454661.3014166197, 8339611.2001912938, 14118319.2444762159, 14130031.5272856522, 46001270.3030008152,
				46008473.8585563600, 46008473.8585563600, 46008473.8585563600, 46008473.8585563600, 46008473.8585563600, 46008473.8585563600},
			map[float64]float64{1: 64, 0.99: 49.64475715376406, 0.9: 46.39671690938454, 0.5: 31.96098248992002}},
		{"real example - non-monotonic", realExample,
			[]float64{6454661.3014166225, 8339611.2001912957, 14118319.2444762159, 14130031.5272856504, 46001270.3030008227,
				46008473.8585563824, 46008473.8585563898, 46008473.8585563824, 46008473.8585563824, 46008473.8585563898, 46008473.8585563824},
			map[float64]float64{1: 64, 0.99: 49.64475715376406, 0.9: 46.39671690938454, 0.5: 31.96098248992002}},
		{"real example 2 - monotonic", realExample2,
			[]float64{9.6, 9.688888889, 9.755555556, 9.844444444, 9.888888889, 9.888888889, 9.888888889, 9.888888889,
				9.888888889, 9.888888889, 9.888888889, 9.888888889, 9.888888889, 9.888888889, 9.888888889},
			map[float64]float64{1: 0.1, 0.99: 0.03468750000281261, 0.9: 0.00463541666671875, 0.5: 0.0025752314815104174}},
		{"real example 2 - non-monotonic", realExample2,
			[]float64{9.6, 9.688888889, 9.755555556, 9.844444444, 9.888888889, 9.888888889, 9.888888889, 9.888888889,
				9.888888889, 9.888888889, 9.888888889001, 9.888888889, 9.888888888999, 9.888888889, 9.888888889},
			map[float64]float64{1: 0.1, 0.99: 0.03468750000281261, 0.9: 0.00463541666671875, 0.5: 0.0025752314815104174}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := make([]Bucket, len(tt.bounds))
			for i := range b {
				b[i] = Bucket{tt.bounds[i], tt.counts[i]}
			}
			for q, want := range tt.want {
				if got := Quantile(q, b); !near(got, want) {
					t.Errorf("Quantile(%v) = %v, want %v", q, got, want)
				}
			}
			if got := P100(b); !near(got, tt.want[1]) {
				t.Errorf("P100 = %v, want %v", got, tt.want[1])
			}
		})
	}
}

// promBuckets builds a bucket set from the values at one instant of the
// series Prometheus's promqltest/testdata/histograms.test loads.
func promBuckets(bounds, counts []float64) []Bucket {
	b := make([]Bucket, len(bounds))
	for i := range b {
		b[i] = Bucket{bounds[i], counts[i]}
	}
	return b
}

// TestQuantilePrometheusHistogramsTest checks the instant histogram_quantile
// evaluations of Prometheus's histograms.test (values at 50m and 7m of its
// load blocks) against the results that file asserts.
func TestQuantilePrometheusHistogramsTest(t *testing.T) {
	var (
		// testhistogram_bucket at 50m: 0+5x10, 0+7x10, 0+11x10, 0+12x10, …
		positive = promBuckets([]float64{0.1, 0.2, 1, inf}, []float64{50, 70, 110, 120})
		negative = promBuckets([]float64{-0.2, -0.1, 0.3, inf}, []float64{10, 20, 20, 30})
		// testhistogram3_bucket at 50m.
		positive3 = promBuckets([]float64{0, 0.1, 0.2, 1, inf}, []float64{0, 50, 70, 110, 110})
		negative3 = promBuckets([]float64{-0.25, -0.2, -0.1, 0.3, inf}, []float64{0, 10, 20, 20, 20})
		// testhistogram2_bucket at 7m (the sample at 5m).
		middle = promBuckets([]float64{0, 2, 4, 6, inf}, []float64{0, 1, 2, 3, 3})
		// nonmonotonic_bucket at 50m.
		nonmonotonic = promBuckets([]float64{0.1, 1, 10, 100, 1000, inf}, []float64{20, 10, 50, 40, 90, 80})
	)
	tests := []struct {
		name    string
		buckets []Bucket
		q, want float64
	}{
		{"testhistogram positive q-0.1", positive, -0.1, math.Inf(-1)},
		{"testhistogram negative q-0.1", negative, -0.1, math.Inf(-1)},
		{"testhistogram positive q1.01", positive, 1.01, math.Inf(+1)},
		{"testhistogram positive qNaN", positive, math.NaN(), math.NaN()},
		{"testhistogram positive q0", positive, 0, 0},
		{"testhistogram negative q0", negative, 0, -0.2},
		{"testhistogram positive q1", positive, 1, 1},
		{"testhistogram negative q1", negative, 1, 0.3},
		{"testhistogram positive q0.2", positive, 0.2, 0.048},
		{"testhistogram negative q0.2", negative, 0.2, -0.2},
		{"testhistogram positive q0.5", positive, 0.5, 0.15},
		{"testhistogram negative q0.5", negative, 0.5, -0.15},
		{"testhistogram positive q0.8", positive, 0.8, 0.72},
		{"testhistogram negative q0.8", negative, 0.8, 0.3},
		{"testhistogram3 positive q0", positive3, 0, 0},
		{"testhistogram3 negative q0", negative3, 0, -0.25},
		{"testhistogram3 positive q0.25", positive3, 0.25, 0.055},
		{"testhistogram3 negative q0.25", negative3, 0.25, -0.225},
		{"testhistogram3 positive q0.5", positive3, 0.5, 0.125},
		{"testhistogram3 negative q0.5", negative3, 0.5, -0.2},
		{"testhistogram3 positive q0.75", positive3, 0.75, 0.45},
		{"testhistogram3 negative q0.75", negative3, 0.75, -0.15},
		{"testhistogram3 positive q1", positive3, 1, 1},
		{"testhistogram3 negative q1", negative3, 1, -0.1},
		{"testhistogram2 q1/6", middle, 1. / 6., 1},
		{"testhistogram2 q0.5", middle, 0.5, 3},
		{"testhistogram2 q5/6", middle, 5. / 6., 5},
		{"nonmonotonic q0.01", nonmonotonic, 0.01, 0.0045},
		{"nonmonotonic q0.5", nonmonotonic, 0.5, 8.5},
		{"nonmonotonic q0.99", nonmonotonic, 0.99, 979.75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quantile(tt.q, tt.buckets); !near(got, tt.want) {
				t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}

func TestQuantileName(t *testing.T) {
	for q, want := range map[float64]string{0.5: "p50", 0.9: "p90", 0.99: "p99", 0.999: "p99.9", 1: "p100", 0: "p0"} {
		if got := quantileName(q); got != want {
			t.Errorf("quantileName(%v) = %q, want %q", q, got, want)
		}
	}
}

// FuzzQuantile checks invariants on arbitrary bucket sets: quantiles never
// decrease with q, stay within the buckets' finite bounds, and P100 is
// Quantile(1).
func FuzzQuantile(f *testing.F) {
	f.Add(0.1, 5.0, 0.2, 7.0, 1.0, 11.0, 12.0)
	f.Add(-0.2, 1.0, -0.1, 2.0, 0.3, 2.0, 3.0)
	f.Add(1.0, 20.0, 10.0, 10.0, 100.0, 50.0, 40.0)
	f.Fuzz(func(t *testing.T, u1, c1, u2, c2, u3, c3, cInf float64) {
		for _, v := range []float64{u1, c1, u2, c2, u3, c3, cInf} {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e12 {
				t.Skip()
			}
		}
		b := []Bucket{{u1, math.Abs(c1)}, {u2, math.Abs(c2)}, {u3, math.Abs(c3)}, {inf, math.Abs(cInf)}}
		lo, hi := math.Min(u1, math.Min(u2, u3)), math.Max(u1, math.Max(u2, u3))
		prev := math.Inf(-1)
		for _, q := range []float64{0, 0.1, 0.5, 0.9, 0.99, 1} {
			got := Quantile(q, b)
			if math.IsNaN(got) {
				return
			}
			if got < prev-1e-9*math.Max(1, math.Abs(prev)) {
				t.Fatalf("Quantile(%v) = %v below a lower quantile %v; buckets %v", q, got, prev, b)
			}
			// Interpolation may round past a bound by an ulp, in Prometheus too.
			if slack := 1e-9 * math.Max(1, math.Max(math.Abs(hi), math.Abs(lo))); got > hi+slack || got < math.Min(lo, 0)-slack {
				t.Fatalf("Quantile(%v) = %v outside [%v, %v]; buckets %v", q, got, math.Min(lo, 0), hi, b)
			}
			prev = got
		}
		if p, q1 := P100(b), Quantile(1, b); math.Abs(p-q1) > 1e-9*math.Max(1, math.Abs(p)) {
			t.Fatalf("P100 = %v, Quantile(1) = %v; buckets %v", p, q1, b)
		}
	})
}
