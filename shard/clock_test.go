package shard

import (
	"testing"
	"time"

	"github.com/latlab/latlab/remote"
)

func TestOffset(t *testing.T) {
	t0 := time.Unix(1e9, 0)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	// The shard's clock is 5 ms ahead. Each exchange reads it at some
	// point of the round trip; the shortest bounds it best.
	samples := []remote.ClockSample{
		{Sent: at(0), Received: at(10), Shard: at(0 + 8 + 5)},  // read late in a 10 ms trip
		{Sent: at(20), Received: at(21), Shard: at(20.5 + 5)},  // 1 ms trip, read at its middle
		{Sent: at(30), Received: at(34), Shard: at(31 + 5)},    // read early in a 4 ms trip
		{Sent: at(40), Received: at(39), Shard: at(40)},        // the clock went back: ignored
		{Sent: at(50), Received: at(50.2), Shard: time.Time{}}, // no reading: ignored
	}
	off, bound, ok := Offset(samples)
	if !ok || off != 5*time.Millisecond || bound != 500*time.Microsecond {
		t.Errorf("Offset = %s ± %s, %t; want 5ms ± 500µs", off, bound, ok)
	}
	if _, _, ok := Offset(samples[3:]); ok {
		t.Error("Offset of no usable exchange: ok")
	}
	for _, tc := range []struct {
		off, bound, max time.Duration
		want            bool
	}{
		{0, 0, time.Millisecond, false},
		{900 * time.Microsecond, 50 * time.Microsecond, time.Millisecond, false},
		{-900 * time.Microsecond, 200 * time.Microsecond, time.Millisecond, true},
		{0, 2 * time.Millisecond, time.Millisecond, true},
	} {
		if got := Skewed(tc.off, tc.bound, tc.max); got != tc.want {
			t.Errorf("Skewed(%s, %s, %s) = %t; want %t", tc.off, tc.bound, tc.max, got, tc.want)
		}
	}
}
