package probe

import (
	"math"
	"slices"
	"testing"
	"time"
)

// scrapeNative records one scrape of a native histogram, with its count
// and the classic buckets it carries beside its native ones (none if nil),
// as the scraper does.
func scrapeNative(w *windows, t int64, labels map[string]string, h nativeHist, classic []Bucket) {
	h.pos, h.neg = slices.Clone(h.pos), slices.Clone(h.neg)
	w.add(t, "x", labels, classic, h.count)
	w.addNative(t, "x", labels, &h)
}

// TestNativeWindowByHand follows one native histogram, schema 0, through
// three scrapes of a fresh process, 10 s apart, in a 1 m window: a bucket
// that appears at the last scrape counts from zero.
func TestNativeWindowByHand(t *testing.T) {
	w := newWindows(time.Minute, nil, []float64{0.1, 0.5, 0.9})
	labels := map[string]string{"route": "/"}
	scrapeNative(w, 10*sec, labels, nativeHist{zeroThreshold: 0.001}, nil)
	scrapeNative(w, 20*sec, labels, nativeHist{zeroThreshold: 0.001, count: 10, pos: []nativeBucket{{1, 10}}}, nil)
	scrapeNative(w, 30*sec, labels, nativeHist{zeroThreshold: 0.001, count: 20, zeroCount: 5, pos: []nativeBucket{{1, 10}, {3, 5}}}, nil)
	got := pointMap(w.evaluate(30 * sec))
	// Over the window: 5 in the zero bucket, 10 in (1, 2], 5 in (4, 8];
	// the counts start at 0, so 20 observations over 60 s.
	want := map[string]float64{
		key("x:p10", "route", "/"):  0.001 * 2 / 5,      // rank 2 of the 5 in [0, 0.001]
		key("x:p50", "route", "/"):  math.Sqrt2,         // 10 from the top: half way up (1, 2]
		key("x:p90", "route", "/"):  math.Exp2(2 + 0.6), // 2 from the top: 3/5 up (4, 8]
		key("x:p100", "route", "/"): 8,
		key("x:rate", "route", "/"): 20.0 / 60,
	}
	compare(t, got, want)
	if len(got) != len(want) {
		t.Errorf("got %d points, want %d: %v", len(got), len(want), got)
	}
	if got := w.evaluate(200 * sec); len(got) != 0 || len(w.series) != 0 {
		t.Errorf("after the window passed: points %v, %d series; want none", got, len(w.series))
	}
}

// TestNativeWindowSchemaChange lowers the schema in mid-window (as
// client_golang does when a histogram has too many buckets) and raises it
// again: the result is that of the same observations at the lower schema
// throughout.
func TestNativeWindowSchemaChange(t *testing.T) {
	// Buckets at schema 1, then merged pairwise into schema 0.
	fine := [][]nativeBucket{
		{{1, 1}, {2, 1}, {3, 1}},
		{{1, 2}, {2, 3}, {3, 1}, {4, 2}},
		{{1, 4}, {2, 5}, {3, 2}, {4, 3}},
	}
	coarse := [][]nativeBucket{
		{{1, 2}, {2, 1}},
		{{1, 5}, {2, 3}},
		{{1, 9}, {2, 5}},
	}
	run := func(schemas []int32) map[string]float64 {
		w := newWindows(time.Minute, nil, []float64{0.25, 0.5, 0.75})
		for i, s := range schemas {
			b := coarse[i]
			if s == 1 {
				b = fine[i]
			}
			var n float64
			for _, x := range b {
				n += x.count
			}
			scrapeNative(w, int64(i+1)*10*sec, map[string]string{}, nativeHist{schema: s, count: n, pos: b}, nil)
		}
		return pointMap(w.evaluate(30 * sec))
	}
	want := run([]int32{0, 0, 0})
	if len(want) != 5 {
		t.Fatalf("schema 0 throughout: %v, want 5 points", want)
	}
	for _, schemas := range [][]int32{{1, 1, 0}, {0, 1, 1}, {1, 0, 1}} {
		compare(t, run(schemas), want)
	}
}

// TestNativeWindowReset restarts the target between two scrapes: the count
// and bucket 1 drop, bucket 3 grows. As in Prometheus, the whole histogram
// was reset, so bucket 3's increase is its whole new count, 6, not 6 − 4.
func TestNativeWindowReset(t *testing.T) {
	w := newWindows(time.Minute, nil, []float64{0.5})
	scrapeNative(w, 10*sec, map[string]string{}, nativeHist{count: 14, pos: []nativeBucket{{1, 10}, {3, 4}}}, nil)
	scrapeNative(w, 20*sec, map[string]string{}, nativeHist{count: 7, pos: []nativeBucket{{1, 1}, {3, 6}}}, nil)
	got := pointMap(w.evaluate(20 * sec))
	compare(t, got, map[string]float64{
		// Increases 1 in (1, 2] and 6 in (4, 8]: rank 3.5 from the top is
		// 2.5/6 up (4, 8].
		key("x:p50"):  math.Exp2(2 + 2.5/6),
		key("x:p100"): 8,
	})
}

// TestNativeWindowGroups sums native histograms of different schemas and
// zero thresholds into one group, and falls back to the classic buckets
// for a group in which one histogram has none.
func TestNativeWindowGroups(t *testing.T) {
	w := newWindows(time.Minute, []string{"job"}, []float64{0.5})
	a := map[string]string{"job": "native", "instance": "a"}
	b := map[string]string{"job": "native", "instance": "b"}
	scrapeNative(w, 10*sec, a, nativeHist{schema: 1, zeroThreshold: 0.1}, nil)
	scrapeNative(w, 10*sec, b, nativeHist{schema: 0, zeroThreshold: 0.3}, nil)
	// a: 2 in schema 1's (1, √2], 2 in (2√2, 4] and 1 in its bucket -4,
	// (0.177, 0.25], which lies within b's wider zero bucket once at
	// schema 0, (0.125, 0.25]. b: 3 in (2, 4].
	scrapeNative(w, 20*sec, a, nativeHist{schema: 1, zeroThreshold: 0.1, count: 5, pos: []nativeBucket{{-4, 1}, {1, 2}, {4, 2}}}, nil)
	scrapeNative(w, 20*sec, b, nativeHist{schema: 0, zeroThreshold: 0.3, count: 3, pos: []nativeBucket{{2, 3}}}, nil)

	mixed := map[string]string{"job": "mixed"}
	classic := []Bucket{{1, 0}, {4, 0}, {inf, 0}}
	scrapeNative(w, 10*sec, mixed, nativeHist{}, classic)
	w.add(10*sec, "x", map[string]string{"job": "mixed", "instance": "text"}, classic, 0)
	classic = []Bucket{{1, 1}, {4, 3}, {inf, 3}}
	scrapeNative(w, 20*sec, mixed, nativeHist{count: 3, pos: []nativeBucket{{0, 1}, {2, 2}}}, classic)
	w.add(20*sec, "x", map[string]string{"job": "mixed", "instance": "text"}, classic, 3)

	got := pointMap(w.evaluate(20 * sec))
	compare(t, got, map[string]float64{
		// Summed at schema 0 with threshold 0.3: 1 in [0, 0.3], 2 in
		// (1, 2], 5 in (2, 4]. Rank 4 from the top is 1/5 up (2, 4].
		key("x:p50", "job", "native"):  math.Exp2(1 + 0.2),
		key("x:p100", "job", "native"): 4,
		// Classic: 2 ≤ 1 and 6 ≤ 4 of 6; rank 3 is 1/4 of (1, 4].
		key("x:p50", "job", "mixed"):  1 + 3*0.25,
		key("x:p100", "job", "mixed"): 4,
	})
}
