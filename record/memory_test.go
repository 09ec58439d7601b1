package record

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// keptBound is what the package doc says one kept interval costs at most,
// in a recorder of the given number of shards: the V2 compressed encodings
// of its two histograms, each as the allocator rounds it up to its size
// class, the Interval itself and each shard's 8 bytes of time in flight,
// the last two twice over, as the slices holding them grow by doubling.
func keptBound(in Interval, shards int) int {
	return allocated(in.Latency.Size()) + allocated(in.Service.Size()) + 2*(int(unsafe.Sizeof(in))+8*shards)
}

// allocated returns the bytes the allocator takes for a slice of n bytes:
// append rounds its capacity up to the size class it allocates.
func allocated(n int) int { return cap(append([]byte(nil), make([]byte, n)...)) }

// liveHeap returns the bytes the heap holds after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// secondValues returns the latencies of a second's requests spread over n
// buckets from 1 µs up, each bucket holding 1 to 40 of them, as drawn from
// a fixed seed: counts as irregular as a real run's, so that the encoding
// compresses them no better than it would those.
func secondValues(n int) []time.Duration {
	h := NewHistogram()
	rng := rand.New(rand.NewPCG(1, 2))
	var vs []time.Duration
	last := time.Duration(0)
	for v := time.Microsecond; n > 0; v += 100 {
		if last != 0 && h.ValuesAreEquivalent(int64(v), int64(last)) {
			continue
		}
		for range 1 + rng.IntN(40) {
			vs = append(vs, v)
		}
		last = v
		n--
	}
	return vs
}

// recordInterval records one request of each latency in vals, all sent at
// the start of r's current interval, and closes the interval.
func recordInterval(r *Recorder, vals []time.Duration) {
	fillInterval(r, vals)
	endInterval(r)
}

// fillInterval records one request of each latency in vals, all sent at
// the start of r's current interval.
func fillInterval(r *Recorder, vals []time.Duration) {
	at := r.ivStart
	var s Sample
	for i, v := range vals {
		s = Sample{Intended: at, Sent: at, Done: at + v, Code: 200}
		r.Sent()
		r.Record(i, &s)
	}
}

// endInterval closes r's current interval, 1 s after its start.
func endInterval(r *Recorder) {
	r.mu.Lock()
	r.closeInterval(r.ivStart + time.Second)
	r.mu.Unlock()
}

// TestIntervalMemory records a long run through the recorder, interval
// after interval, each filling 2,100 buckets of its latency and service
// histograms (3,000 connections against nginx on 127.0.0.1 fill 1,000 to
// 5,000), and holds the heap the run retains per interval to the bound the
// package doc states: the encodings it keeps, and nothing more. Histograms
// kept decoded, packed or dense, would not pass.
func TestIntervalMemory(t *testing.T) {
	const (
		warm    = 10  // intervals before measuring: the recorder's own histograms are allocated
		n       = 100 // intervals measured
		buckets = 2100
	)
	r := NewRecorder(time.Now(), Config{})
	vals := secondValues(buckets)
	run := func(intervals int) {
		for range intervals {
			recordInterval(r, vals)
		}
	}
	run(warm)
	before := liveHeap()
	run(n)
	after := liveHeap()
	res := r.Stop()
	if len(res.Intervals) < warm+n {
		t.Fatalf("%d intervals, want at least %d", len(res.Intervals), warm+n)
	}
	in := res.Intervals[warm]
	for _, k := range []Kept{in.Latency, in.Service} {
		h, err := k.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Populated(); got != buckets || h.TotalCount() != int64(len(vals)) {
			t.Fatalf("an interval's histogram holds %d samples in %d buckets, want %d in %d", h.TotalCount(), got, len(vals), buckets)
		}
	}
	per := (float64(after) - float64(before)) / n
	bound := keptBound(in, len(r.shards))
	t.Logf("%.0f bytes retained per interval, bound %d (encodings of %d and %d bytes for %d buckets each, %d shards)",
		per, bound, in.Latency.Size(), in.Service.Size(), buckets, len(r.shards))
	if per > float64(bound) {
		t.Errorf("the run retains %.0f bytes per interval, more than the %d the package doc allows", per, bound)
	}
	runtime.KeepAlive(r)
	runtime.KeepAlive(vals) // freed between the two measures, it would hide what the run keeps
}

// TestRecorderFootprint holds what a new recorder allocates to its dense
// histograms, 240 KB each: per shard the counters workers record into and
// the wait and read breakdown, one spare set of counters for all shards,
// the aggregate of the interval being closed, connect and TLS times and the
// run's three totals. A spare set per shard would cost three more
// histograms a shard and not pass.
func TestRecorderFootprint(t *testing.T) {
	h := NewHistogram()
	size := int(unsafe.Sizeof(*h)) + allocated(8*len(h.Export().Counts))
	before := liveHeap()
	r := NewRecorder(time.Now(), Config{})
	after := liveHeap()
	shards := len(r.shards)
	want := 3*shards + 2*shards + 3 + 3 + 2 + 3
	got := (float64(after) - float64(before)) / float64(size)
	t.Logf("a recorder of %d shards holds %.2f histograms' worth of heap, bound %d", shards, got, want+1)
	if got > float64(want+1) { // +1: the recorder's own small allocations
		t.Errorf("a recorder of %d shards holds %.2f histograms' worth of heap, more than the %d histograms it needs", shards, got, want)
	}
	runtime.KeepAlive(r)
}
