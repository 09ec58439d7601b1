package record

import (
	"runtime"
	"testing"
	"time"
)

// keptBound is what the package doc says one kept interval costs at most:
// 1 KB, plus 1.25·(4 + w) bytes per populated bucket of each of its two
// histograms, w the byte width of the histogram's counts.
func keptBound(in Interval) float64 {
	b := 1024.0
	for _, h := range []interface {
		Populated() int32
		CountWidth() int
	}{in.Latency, in.Service} {
		b += 1.25 * float64(4+h.CountWidth()) * float64(h.Populated())
	}
	return b
}

// liveHeap returns the bytes the heap holds after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// distinctValues returns n latencies from 1 µs up, each in a bucket of its
// own.
func distinctValues(n int) []time.Duration {
	h := NewHistogram()
	vs := []time.Duration{time.Microsecond}
	for v := time.Microsecond; len(vs) < n; v += 100 {
		if !h.ValuesAreEquivalent(int64(v), int64(vs[len(vs)-1])) {
			vs = append(vs, v)
		}
	}
	return vs
}

// recordInterval records one request of each latency in vals, all sent at
// the start of r's current interval, and closes the interval.
func recordInterval(r *Recorder, vals []time.Duration) {
	at := r.ivStart
	var s Sample
	for i, v := range vals {
		s = Sample{Intended: at, Sent: at, Done: at + v, Code: 200}
		r.Sent()
		r.Record(i, &s)
	}
	r.mu.Lock()
	r.closeInterval(at + time.Second)
	r.mu.Unlock()
}

// TestIntervalMemory records a long run through the recorder, interval
// after interval, each filling 2,100 buckets of its latency and service
// histograms (3,000 connections against nginx on 127.0.0.1 fill 1,000 to
// 5,000), and holds the heap the run retains per interval to the bound the
// package doc states. Spare capacity left from packing, up to as much again
// as the counts, would pass it; so would counts kept wider than they need.
func TestIntervalMemory(t *testing.T) {
	const (
		warm    = 10  // intervals before measuring: the recorder's own histograms are allocated
		n       = 150 // intervals measured
		buckets = 2100
	)
	r := NewRecorder(time.Now(), Config{})
	vals := distinctValues(buckets)
	run := func(intervals int) {
		for range intervals {
			recordInterval(r, vals)
		}
	}
	// A first interval whose counts pass 255 widens the packer's scratch
	// histogram; the intervals after it need 1-byte counts again.
	for range 300 {
		r.Sent()
		r.Record(0, &Sample{Done: time.Millisecond, Code: 200})
	}
	run(warm)
	if w := r.res.Intervals[0].Latency.CountWidth(); w != 2 {
		t.Fatalf("the first interval keeps %d-byte counts, want 2 (a count of 301)", w)
	}
	before := liveHeap()
	run(n)
	after := liveHeap()
	res := r.Stop()
	if len(res.Intervals) < warm+n {
		t.Fatalf("%d intervals, want at least %d", len(res.Intervals), warm+n)
	}
	in := res.Intervals[warm]
	if got := in.Latency.Populated(); got != buckets || in.Service.Populated() != buckets {
		t.Fatalf("an interval populates %d latency and %d service buckets, want %d each", got, in.Service.Populated(), buckets)
	}
	if w := in.Latency.CountWidth(); w != 1 || in.Service.CountWidth() != 1 {
		t.Errorf("counts below 256 kept %d and %d bytes wide, want 1", w, in.Service.CountWidth())
	}
	per := (float64(after) - float64(before)) / n
	bound := keptBound(in)
	t.Logf("%.0f bytes retained per interval, bound %.0f (%d buckets per histogram, %d-byte counts)", per, bound, buckets, in.Latency.CountWidth())
	if per > bound {
		t.Errorf("the run retains %.0f bytes per interval, more than the %.0f the package doc allows", per, bound)
	}
	runtime.KeepAlive(r)
}
