package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/store"
)

func TestHops(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var points []store.ProbePoint
	add := func(probe, series, caller, callee string, values ...float64) {
		labels := map[string]string{"caller": caller, "callee": callee}
		for i, v := range values {
			points = append(points, store.ProbePoint{Probe: probe, Series: series, Labels: labels,
				Time: t0.Add(time.Duration(i) * time.Millisecond), Value: v})
		}
	}
	v := func(k int) float64 { return float64(k) * 1e-3 } // k ms
	ms := func(from, to int) []float64 {                  // from…to ms, shuffled by a stride
		var out []float64
		n := to - from + 1
		for i := range n {
			out = append(out, v(from+i*37%n))
		}
		return out
	}
	add("traces", "framework_seconds", "", "frontend", ms(1, 100)...) // the graph's entry
	add("traces", "network_seconds", "frontend", "backend", ms(1, 10)...)
	add("traces", "framework_seconds", "frontend", "backend", 0.004)
	add("traces", "network_seconds", "backend", "db", ms(1, 1000)...)
	add("traces", "span_seconds", "frontend", "backend", 1, 2, 3) // not a hop series
	add("process", "cpu_percent", "frontend", "backend", 50)      // not traces
	for _, x := range ms(1, 100) {                                // a server's filter
		points = append(points, store.ProbePoint{Probe: "traces", Series: "filter_seconds",
			Labels: map[string]string{"service": "apiserver", "span": "priorityandfairness"}, Time: t0, Value: x / 10})
	}
	nan := math.NaN()
	want := []HopStat{
		{Caller: "", Callee: "frontend", Kind: "framework", Count: 100, P50: v(50), P90: v(90), P99: v(99)},
		{Caller: "apiserver", Callee: "priorityandfairness", Kind: "filter", Count: 100, P50: v(50) / 10, P90: v(90) / 10, P99: v(99) / 10},
		{Caller: "backend", Callee: "db", Kind: "network", Count: 1000, P50: v(500), P90: v(900), P99: v(990)},
		// 10 samples: p99 needs 100; 1: p50 needs 2.
		{Caller: "frontend", Callee: "backend", Kind: "network", Count: 10, P50: v(5), P90: v(9), P99: nan},
		{Caller: "frontend", Callee: "backend", Kind: "framework", Count: 1, P50: nan, P90: nan, P99: nan},
	}
	if diff := cmp.Diff(want, Hops(points), nanEqual); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := Hops(nil); len(got) != 0 {
		t.Errorf("Hops(nil) = %v; want none", got)
	}
}

func TestOrphanSpans(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	point := func(probe, series, callee string, v float64) store.ProbePoint {
		return store.ProbePoint{Probe: probe, Series: series, Labels: map[string]string{"callee": callee}, Time: t0, Value: v}
	}
	tests := []struct {
		name   string
		points []store.ProbePoint
		want   int
	}{
		{"none", nil, 0},
		{"two runs and two callees", []store.ProbePoint{
			point("traces", "orphan_spans_total", "branch", 3),
			point("traces", "orphan_spans_total", "leaf", 2),
			point("traces", "orphan_spans_total", "branch", 1),
			point("traces", "framework_seconds", "leaf", 4), // a hop, not a count
			point("metrics", "orphan_spans_total", "leaf", 9),
		}, 6},
		{"not a count", []store.ProbePoint{
			point("traces", "orphan_spans_total", "leaf", math.NaN()),
			point("traces", "orphan_spans_total", "leaf", -1),
			point("traces", "orphan_spans_total", "leaf", math.Inf(1)),
			point("traces", "orphan_spans_total", "leaf", 1),
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OrphanSpans(tt.points); got != tt.want {
				t.Errorf("OrphanSpans = %d, want %d", got, tt.want)
			}
		})
	}
	// Orphans are no hop.
	if got := Hops([]store.ProbePoint{point("traces", "orphan_spans_total", "leaf", 1)}); len(got) != 0 {
		t.Errorf("Hops of an orphan count = %v, want none", got)
	}
}

func TestNearestRank(t *testing.T) {
	vs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		q    float64
		n    int
		want float64
	}{
		{0.5, 10, 5}, {0.9, 10, 9}, {0.95, 10, nan64()}, {0.5, 1, nan64()}, {0.5, 2, 1}, {0.5, 3, 2}, {0.9, 0, nan64()},
	} {
		got := nearestRank(vs[:tc.n], tc.q)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("q %v of %v = %v; want %v", tc.q, vs[:tc.n], got, tc.want)
		}
	}
}

func nan64() float64 { return math.NaN() }
