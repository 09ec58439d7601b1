package plot

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// labels returns the labels of ts.
func labels(ts []tick) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.label)
	}
	return out
}

func TestLogTicks(t *testing.T) {
	tests := []struct {
		name   string
		u      Unit
		lo, hi float64 // exponents
		d      int
		want   []string
	}{
		{"1-2-5 when there is room", Seconds, -4, -2, 6,
			[]string{"100µs", "200µs", "500µs", "1ms", "2ms", "5ms", "10ms"}},
		{"decades", Seconds, -4, -1, 4,
			[]string{"100µs", "1ms", "10ms", "100ms"}},
		{"every few decades", Plain, 0, 12, 4,
			[]string{"1", "1k", "1M", "1G", "1T"}},
		{"part of a decade", Plain, 1.301, 1.699, 4, // 20..50
			[]string{"20", "30", "40", "50"}},
		{"partial decades", Plain, 0.5, 2.5, 6,
			[]string{"5", "10", "20", "50", "100", "200"}},
		{"bytes in powers of 1000", Bytes, 3, 4, 4,
			[]string{"1 kB", "2 kB", "5 kB", "10 kB"}},
		{"bytes over many decades", Bytes, 3, 9, 4,
			[]string{"1 kB", "1 MB", "1 GB"}},
		{"rates whole from 100/s", PerSecond, 0, 4, 4,
			[]string{"1/s", "10/s", "100/s", "1000/s", "10000/s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, labels(logTicks(tt.u, tt.lo, tt.hi, tt.d))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPercentileAxis(t *testing.T) {
	tests := []struct {
		name   string
		ax     Axis
		qs     []float64
		d      int
		want   []string
		lo, hi float64
	}{
		{"up to the largest q", Axis{}, []float64{0, 0.5, 0.9, 0.99, 0.999}, 10,
			[]string{"0%", "90%", "99%", "99.9%"}, 0, 3},
		{"rounded up to the next nine", Axis{}, []float64{0.5, 0.9995}, 10,
			[]string{"0%", "90%", "99%", "99.9%", "99.99%"}, 0, 4},
		{"at least 90%", Axis{}, []float64{0.1, 0.5}, 10,
			[]string{"0%", "90%"}, 0, 1},
		{"no data", Axis{}, nil, 10,
			[]string{"0%", "90%", "99%"}, 0, 2},
		{"thinned", Axis{}, []float64{0.99999999}, 4,
			[]string{"0%", "99.9%", "99.9999%"}, 0, 8},
		{"fixed ends", Axis{Min: new(0.9), Max: new(0.99999)}, []float64{0.5}, 10,
			[]string{"90%", "99%", "99.9%", "99.99%", "99.999%"}, 1, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e extent
			for _, q := range tt.qs {
				s, ok := Percentile.forward(q)
				if !ok {
					t.Fatalf("Percentile cannot show %g", q)
				}
				e.add(s)
			}
			tt.ax.Scale = Percentile
			a := resolve(tt.ax, e, tt.d)
			if diff := cmp.Diff(tt.want, labels(a.ticks)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !approx(a.lo, tt.lo) || !approx(a.hi, tt.hi) {
				t.Errorf("range = %g..%g, want %g..%g", a.lo, a.hi, tt.lo, tt.hi)
			}
		})
	}
}

func TestScaleForward(t *testing.T) {
	tests := []struct {
		s    Scale
		v    float64
		want float64
		ok   bool
	}{
		{Linear, -3, -3, true},
		{Linear, nan, 0, false},
		{Linear, 1e301, 0, false},
		{Log, 1000, 3, true},
		{Log, 0, 0, false},
		{Log, -1, 0, false},
		{Percentile, 0, 0, true},
		{Percentile, 0.99, 2, true},
		{Percentile, 1, 0, false},
		{Percentile, -0.1, 0, false},
	}
	for _, tt := range tests {
		got, ok := tt.s.forward(tt.v)
		if ok != tt.ok || ok && !approx(got, tt.want) {
			t.Errorf("Scale(%d).forward(%g) = %g, %v; want %g, %v", tt.s, tt.v, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNines(t *testing.T) {
	var got []string
	for k := range 6 {
		got = append(got, nines(k))
	}
	want := []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLinearBelowResolution checks that values all finer than a unit's
// smallest step (a native histogram's zero bucket reads 1e-39 s) give an
// axis one step wide with distinct labels, not ticks that all read "0".
func TestLinearBelowResolution(t *testing.T) {
	for _, tc := range []struct {
		unit Unit
		hi   float64
	}{{Seconds, 1e-9}, {Bytes, 1}} {
		a := resolveLinear(Axis{Unit: tc.unit, ZeroBased: true}, extent{lo: 1e-40, hi: 3e-39, n: 4}, 5)
		if a.lo != 0 || math.Abs(a.hi-tc.hi) > 1e-9*tc.hi {
			t.Errorf("unit %v: axis %g..%g, want 0..%g", tc.unit, a.lo, a.hi, tc.hi)
		}
		seen := map[string]bool{}
		for _, tk := range a.ticks {
			if seen[tk.label] {
				t.Errorf("unit %v: tick label %q twice in %v", tc.unit, tk.label, a.ticks)
			}
			seen[tk.label] = true
		}
	}
}
