package probe

import (
	"fmt"
	"math"
	"testing"
	"time"
)

const sec = int64(1000) // milliseconds

func TestRate(t *testing.T) {
	tests := []struct {
		name     string
		samples  []sample
		end, rng int64
		want     float64
		ok       bool
	}{
		// 50 more over 50 s, extrapolated 10 s back to the window start (the
		// zero point is 100 s back, further): 60 over 60 s.
		{"extrapolated to start", []sample{{10 * sec, 100}, {60 * sec, 150}}, 60 * sec, 60 * sec, 1, true},
		// 10 → 20, reset, 5 → 15: increase 10 + 10 + 5 = 25 over 45 s,
		// extrapolated 15 s to the start: 25·60/45/60.
		{"counter reset", []sample{{15 * sec, 10}, {30 * sec, 20}, {45 * sec, 5}, {60 * sec, 15}}, 60 * sec, 60 * sec, 25.0 / 45, true},
		// Starting at 0: the counter was zero at the first sample, so no
		// extrapolation to the left: 10 over the 30 s window.
		{"from zero", []sample{{10 * sec, 0}, {20 * sec, 5}, {30 * sec, 10}}, 30 * sec, 30 * sec, 10.0 / 30, true},
		// Samples 25 s from both edges with 10 s between them: extrapolate
		// only half an interval each way: 10·20/10 over 60 s.
		{"far from edges", []sample{{25 * sec, 10}, {35 * sec, 20}}, 60 * sec, 60 * sec, 20.0 / 60, true},
		{"constant", []sample{{10 * sec, 7}, {20 * sec, 7}}, 20 * sec, 20 * sec, 0, true},
		{"one sample", []sample{{10 * sec, 7}}, 20 * sec, 20 * sec, 0, false},
		{"none", nil, 20 * sec, 20 * sec, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := rate(tt.samples, tt.end, tt.rng)
			if ok != tt.ok || !near(got, tt.want) {
				t.Errorf("rate = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestTrimLeftOpen(t *testing.T) {
	s := []sample{{0, 1}, {30 * sec, 2}, {60 * sec, 3}}
	got := trim(s, 0)
	if len(got) != 2 || got[0].t != 30*sec {
		t.Errorf("trim(…, 0) = %v, want the samples after 0 only", got)
	}
}

// pointMap indexes the points of one evaluation by series name and label set.
func pointMap(points []Point) map[string]float64 {
	m := map[string]float64{}
	for _, p := range points {
		m[p.Series+labelsKey("", p.Labels)] = p.Value
	}
	return m
}

func key(series string, labels ...string) string {
	l := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	return series + labelsKey("", l)
}

// load feeds w a histogram family the way a promqltest "load 5m" block
// defines it: bucket b has value start+step·i at i·every, for i in 0..n.
func load(w *windows, family string, labels map[string]string, bounds, steps []float64, every time.Duration, n int) {
	for i := 0; i <= n; i++ {
		b := make([]Bucket, len(bounds))
		for j := range b {
			b[j] = Bucket{bounds[j], steps[j] * float64(i)}
		}
		w.add(int64(i)*every.Milliseconds(), family, labels, b, -1)
	}
}

// TestWindowPrometheusHistogramsTest replays the rate-based
// histogram_quantile evaluations of Prometheus's
// promqltest/testdata/histograms.test through the windows and compares the
// results with what that file asserts Prometheus returns.
func TestWindowPrometheusHistogramsTest(t *testing.T) {
	t.Run("testhistogram rate 10m at 50m", func(t *testing.T) {
		w := newWindows(10*time.Minute, nil, []float64{0.2, 0.5, 0.8})
		load(w, "testhistogram", map[string]string{"start": "positive"}, []float64{0.1, 0.2, 1, inf}, []float64{5, 7, 11, 12}, 5*time.Minute, 10)
		load(w, "testhistogram", map[string]string{"start": "negative"}, []float64{-0.2, -0.1, 0.3, inf}, []float64{1, 2, 2, 3}, 5*time.Minute, 10)
		got := pointMap(w.evaluate(50 * 60 * sec))
		want := map[string]float64{
			key("testhistogram:p20", "start", "positive"): 0.048, key("testhistogram:p20", "start", "negative"): -0.2,
			key("testhistogram:p50", "start", "positive"): 0.15, key("testhistogram:p50", "start", "negative"): -0.15,
			key("testhistogram:p80", "start", "positive"): 0.72, key("testhistogram:p80", "start", "negative"): 0.3,
		}
		compare(t, got, want)
	})
	t.Run("testhistogram2 rate 15m at 47m", func(t *testing.T) {
		w := newWindows(15*time.Minute, nil, []float64{1. / 6., 0.5, 5. / 6.})
		// Only the samples up to 45m exist at 47m.
		load(w, "testhistogram2", map[string]string{}, []float64{0, 2, 4, 6, inf}, []float64{0, 1, 2, 3, 3}, 5*time.Minute, 9)
		got := pointMap(w.evaluate(47 * 60 * sec))
		want := map[string]float64{
			key("testhistogram2:" + quantileName(1./6.)): 1,
			key("testhistogram2:p50"):                    3,
			key("testhistogram2:" + quantileName(5./6.)): 5,
		}
		compare(t, got, want)
	})

	// request_duration_seconds: 2 jobs × 2 instances, summed in four ways.
	requestDuration := func(by []string) *windows {
		w := newWindows(10*time.Minute, by, []float64{0.3, 0.5})
		for _, h := range []struct {
			job, instance string
			steps         []float64
		}{
			{"job1", "ins1", []float64{1, 3, 4}},
			{"job1", "ins2", []float64{2, 5, 6}},
			{"job2", "ins1", []float64{3, 4, 6}},
			{"job2", "ins2", []float64{4, 7, 9}},
		} {
			load(w, "request_duration_seconds", map[string]string{"job": h.job, "instance": h.instance},
				[]float64{0.1, 0.2, inf}, h.steps, 5*time.Minute, 10)
		}
		return w
	}
	const rd = "request_duration_seconds"
	tests := []struct {
		by   []string
		want map[string]float64
	}{
		{[]string{}, map[string]float64{key(rd + ":p30"): 0.075, key(rd + ":p50"): 0.1277777777777778}},
		{[]string{"instance"}, map[string]float64{
			key(rd+":p30", "instance", "ins1"): 0.075, key(rd+":p30", "instance", "ins2"): 0.075,
			key(rd+":p50", "instance", "ins1"): 0.1333333333333333, key(rd+":p50", "instance", "ins2"): 0.125,
		}},
		{[]string{"job"}, map[string]float64{
			key(rd+":p30", "job", "job1"): 0.1, key(rd+":p30", "job", "job2"): 0.0642857142857143,
			key(rd+":p50", "job", "job1"): 0.14, key(rd+":p50", "job", "job2"): 0.1125,
		}},
		{nil, map[string]float64{
			key(rd+":p30", "instance", "ins1", "job", "job1"): 0.11, key(rd+":p30", "instance", "ins2", "job", "job1"): 0.09,
			key(rd+":p30", "instance", "ins1", "job", "job2"): 0.06, key(rd+":p30", "instance", "ins2", "job", "job2"): 0.0675,
			key(rd+":p50", "instance", "ins1", "job", "job1"): 0.15, key(rd+":p50", "instance", "ins2", "job", "job1"): 0.13333333333333333,
			key(rd+":p50", "instance", "ins1", "job", "job2"): 0.1, key(rd+":p50", "instance", "ins2", "job", "job2"): 0.11666666666666667,
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("request_duration_seconds by %v", tt.by), func(t *testing.T) {
			got := pointMap(requestDuration(tt.by).evaluate(50 * 60 * sec))
			compare(t, got, tt.want)
		})
	}

	t.Run("const histogram has no quantile", func(t *testing.T) {
		w := newWindows(5*time.Minute, nil, []float64{0.5})
		for i := range 6 {
			w.add(int64(i)*60*sec, "const_histogram", map[string]string{},
				[]Bucket{{0, 1}, {1, 1}, {2, 1}, {inf, 1}}, 1)
		}
		got := pointMap(w.evaluate(5 * 60 * sec))
		want := map[string]float64{key("const_histogram:rate"): 0}
		if len(got) != len(want) || got[key("const_histogram:rate")] != 0 {
			t.Errorf("got %v, want %v (NaN quantiles are left out)", got, want)
		}
	})
}

// compare checks that got has the keys of want with near values; the
// quantiles compared only to 1e-10, the precision histograms.test states.
func compare(t *testing.T, got, want map[string]float64) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("missing %q; got %v", k, got)
			continue
		}
		if math.Abs(g-w) > 1e-10*math.Max(1, math.Abs(w)) {
			t.Errorf("%q = %v, want %v", k, g, w)
		}
	}
}

// TestWindowByHand follows one histogram scraped every 10 s through a 60 s
// window: cumulative counts from a fresh process, so no extrapolation.
func TestWindowByHand(t *testing.T) {
	w := newWindows(time.Minute, nil, []float64{0.5, 0.9, 0.99})
	labels := map[string]string{"route": "/"}
	bounds := []float64{0.1, 0.2, 0.5, inf}
	// Cumulative counts at 10, 20, …, 60 s; by 60 s 90 ≤ 0.1, 99 ≤ 0.2, 100 ≤ 0.5.
	counts := [][]float64{
		{0, 0, 0, 0}, {18, 20, 20, 20}, {36, 40, 40, 40}, {54, 59, 60, 60}, {72, 79, 80, 80}, {90, 99, 100, 100},
	}
	for i, c := range counts {
		b := make([]Bucket, len(bounds))
		for j := range b {
			b[j] = Bucket{bounds[j], c[j]}
		}
		w.add(int64(i+1)*10*sec, "x", labels, b, c[3])
	}
	got := pointMap(w.evaluate(60 * sec))
	want := map[string]float64{
		key("x:p50", "route", "/"):  0.1 * 50 / 90, // rank 50 of the 90 in (0, 0.1]
		key("x:p90", "route", "/"):  0.1,           // rank 90: all of the lowest bucket
		key("x:p99", "route", "/"):  0.2,           // rank 99: all of (0.1, 0.2]
		key("x:p100", "route", "/"): 0.5,           // the highest bucket that grew
		key("x:rate", "route", "/"): 100.0 / 60,    // 100 in the 60 s window, from 0
		// The bucket each rank fell in.
		key("x:p50:bucket_lo", "route", "/"): 0, key("x:p50:bucket_hi", "route", "/"): 0.1,
		key("x:p90:bucket_lo", "route", "/"): 0, key("x:p90:bucket_hi", "route", "/"): 0.1,
		key("x:p99:bucket_lo", "route", "/"): 0.1, key("x:p99:bucket_hi", "route", "/"): 0.2,
		key("x:p100:bucket_lo", "route", "/"): 0.2, key("x:p100:bucket_hi", "route", "/"): 0.5,
	}
	compare(t, got, want)
	if len(got) != len(want) {
		t.Errorf("got %d points, want %d: %v", len(got), len(want), got)
	}

	// A minute later the window (70 s, 130 s] holds two unchanged scrapes:
	// the rates are zero, so there are no quantiles, and the rate is zero.
	for _, at := range []int64{70, 100, 130} {
		w.add(at*sec, "x", labels, []Bucket{{0.1, 90}, {0.2, 99}, {0.5, 100}, {inf, 100}}, 100)
	}
	got = pointMap(w.evaluate(130 * sec))
	if want := map[string]float64{key("x:rate", "route", "/"): 0}; len(got) != 1 || got[key("x:rate", "route", "/")] != 0 {
		t.Errorf("idle window: got %v, want %v", got, want)
	}

	// Once no sample is left in the window, the series is forgotten.
	if got := w.evaluate(300 * sec); len(got) != 0 || len(w.series) != 0 || len(w.groups) != 0 {
		t.Errorf("after the window passed: points %v, %d series, %d groups; want none", got, len(w.series), len(w.groups))
	}
}

// TestWindowCounterReset restarts the target inside the window: the counts
// drop, and the increase adds the value before the drop, as Prometheus does.
func TestWindowCounterReset(t *testing.T) {
	w := newWindows(40*time.Second, nil, []float64{0.5})
	labels := map[string]string{}
	for _, s := range []struct {
		t          int64
		le1, count float64
	}{
		{10 * sec, 10, 10},
		{20 * sec, 20, 20},
		{30 * sec, 5, 5}, // restarted
		{40 * sec, 5, 15},
	} {
		w.add(s.t, "x", labels, []Bucket{{1, s.le1}, {inf, s.count}}, s.count)
	}
	// The increase is last − first plus the value before each drop: le=1
	// 5−10+20 = 15, +Inf 15−10+20 = 25. Both are
	// extrapolated by the same 40/30 (zero points lie further back), so over
	// the 40 s window the rates are 15/30 and 25/30 per second.
	got := pointMap(w.evaluate(40 * sec))
	want := map[string]float64{
		key("x:p50"):  (0.5 * 25) / 15, // rank 12.5 of the 15 in (0, 1]
		key("x:p100"): 1,               // +Inf grew: the highest finite bound
		key("x:rate"): 25.0 / 30,
	}
	compare(t, got, want)
}

// TestBucketOf finds the bucket a quantile's rank falls in, the one
// Quantile interpolates in: a rank on a bucket's cumulative count is in
// that bucket, a rank past the last finite bound is in the +Inf bucket,
// whose upper bound is +Inf, and a lowest bound at or below zero is both
// bounds of the lowest bucket.
func TestBucketOf(t *testing.T) {
	b := []Bucket{{0.001, 10}, {0.003, 90}, {0.01, 95}, {inf, 100}}
	tests := []struct {
		q      float64
		lo, hi float64
	}{
		{0.05, 0, 0.001},
		{0.1, 0, 0.001}, // rank 10: the whole lowest bucket
		{0.5, 0.001, 0.003},
		{0.9, 0.001, 0.003},
		{0.95, 0.003, 0.01},
		{0.99, 0.01, inf},
		{1, 0.01, inf},
	}
	for _, tt := range tests {
		lo, hi, ok := bucketOf(tt.q, b)
		if !ok || lo != tt.lo || hi != tt.hi {
			t.Errorf("bucketOf(%v) = (%v, %v], %v; want (%v, %v]", tt.q, lo, hi, ok, tt.lo, tt.hi)
		}
		if v := quantileOf(tt.q, b); !(v >= tt.lo && (v <= tt.hi || v == 0.01)) {
			t.Errorf("quantileOf(%v) = %v, outside its bucket (%v, %v]", tt.q, v, tt.lo, tt.hi)
		}
	}
	if lo, hi, ok := bucketOf(0.5, []Bucket{{-1, 5}, {inf, 5}}); !ok || lo != -1 || hi != -1 {
		t.Errorf("a lowest bound of -1: (%v, %v], %v; want -1 both", lo, hi, ok)
	}
	if _, _, ok := bucketOf(0.5, []Bucket{{1, 0}, {inf, 0}}); ok {
		t.Error("no observations: a bucket was found")
	}

	// The window emits them, the +Inf bucket's upper bound left out.
	w := newWindows(time.Minute, nil, []float64{0.99})
	w.add(10*sec, "x", nil, []Bucket{{0.001, 0}, {0.003, 0}, {0.01, 0}, {inf, 0}}, 0)
	w.add(20*sec, "x", nil, b, 100)
	got := pointMap(w.evaluate(20 * sec))
	if lo, ok := got[key("x:p99:bucket_lo")]; !ok || lo != 0.01 {
		t.Errorf("x:p99:bucket_lo = %v, %v; want 0.01", lo, ok)
	}
	if hi, ok := got[key("x:p99:bucket_hi")]; ok {
		t.Errorf("x:p99:bucket_hi = %v; want none: the +Inf bucket", hi)
	}
}
