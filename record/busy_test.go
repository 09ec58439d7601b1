package record

import (
	"math"
	"testing"
	"time"
)

// TestInFlightTimeWeighted holds that the mean number of requests in flight
// is the time requests spent in flight over the window, per interval and
// for the run, with requests that straddle an interval edge split at it:
// exact, where sampling the count misses requests shorter than its period.
func TestInFlightTimeWeighted(t *testing.T) {
	const s = time.Second
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	// Started 3 s ago, never Started: no interval closes before Stop, which
	// closes [0,1s), [1s,2s), [2s,3s) and a short last one.
	r := NewRecorder(time.Now().Add(-3*s), Config{Interval: s})
	spans := [][2]time.Duration{
		{ms(200), ms(700)},   // 0.5 s in the first interval
		{ms(900), ms(1400)},  // 0.1 s in the first, 0.4 s in the second
		{ms(1500), ms(2500)}, // 0.5 s in the second, 0.5 s in the third
		{ms(2100), ms(2100)}, // no time at all
	}
	// A thousand 50 µs requests in the third interval: 0.05 s in all.
	for i := range 1000 {
		at := ms(2000) + time.Duration(i)*ms(1)/2
		spans = append(spans, [2]time.Duration{at, at + 50*time.Microsecond})
	}
	for i, sp := range spans {
		r.Sent()
		r.Record(i, &Sample{Intended: sp[0], Sent: sp[0], Done: sp[1], Code: 200})
	}
	res := r.Stop()
	if len(res.Intervals) < 3 {
		t.Fatalf("%d intervals, want at least 3", len(res.Intervals))
	}
	want := []float64{0.6, 0.9, 0.55}
	for k, w := range want {
		if got := res.Intervals[k].InFlightMean; math.Abs(got-w) > 1e-9 {
			t.Errorf("interval %d: in flight mean %g, want %g", k, got, w)
		}
	}
	for _, in := range res.Intervals[3:] {
		if in.InFlightMean != 0 {
			t.Errorf("interval %s–%s: in flight mean %g, want 0", in.Start, in.End, in.InFlightMean)
		}
	}
	span := res.Intervals[len(res.Intervals)-1].End - res.Intervals[0].Start
	wantRun := 2.05 / span.Seconds() // 2.05 s in flight over the run
	if got := res.InFlightMean(); math.Abs(got-wantRun) > 1e-9 {
		t.Errorf("run: in flight mean %g, want %g", got, wantRun)
	}
	if got := summarize(t, res).InFlight.Mean; math.Abs(got-wantRun) > 1e-9 {
		t.Errorf("JSON in_flight.mean %g, want %g", got, wantRun)
	}
}
