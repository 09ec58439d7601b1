package record

import "time"

// busyTime adds up, per interval of the run, the time requests spent in
// flight within it: each request from its send to its completion, split at
// the interval edges it straddles. By Little's law, an interval's total over
// its length is its time-weighted mean number of requests in flight, exact
// where sampling the count would miss requests shorter than the sampling
// period. Intervals are the run's: interval k spans [k·I, (k+1)·I).
type busyTime struct {
	ns     []int64       // per interval, nanoseconds in flight
	lo, hi time.Duration // bounds of the interval last added to; empty at first
	cur    *int64        // its total, in ns
}

// add counts a request in flight from sent to done, intervals of length
// every. Most requests fall within the interval of the one before, which
// costs two comparisons.
func (b *busyTime) add(sent, done, every time.Duration) {
	if sent >= b.lo && done <= b.hi && sent < done {
		*b.cur += int64(done - sent)
		return
	}
	b.split(sent, done, every)
}

// split is add for a request outside the interval of the one before: it
// may straddle edges, and the intervals may need to grow.
func (b *busyTime) split(sent, done, every time.Duration) {
	sent = max(sent, 0)
	if done <= sent {
		return
	}
	k0, k1 := int(sent/every), int((done-1)/every)
	if n := k1 + 1; n > len(b.ns) {
		b.ns = append(b.ns, make([]int64, n-len(b.ns))...)
	}
	for k := k0; k <= k1; k++ {
		lo := time.Duration(k) * every
		hi := lo + every
		b.ns[k] += int64(min(done, hi) - max(sent, lo))
		b.lo, b.hi, b.cur = lo, hi, &b.ns[k]
	}
}

// inFlightMeans sets each interval's mean number of requests in flight from
// the shards' busy time. It runs when every request has been recorded; the
// caller holds r.mu. Time past the last interval (clocks a few nanoseconds
// apart) counts in the last.
func (r *Recorder) inFlightMeans() {
	ivs := r.res.Intervals
	if len(ivs) == 0 {
		return
	}
	total := make([]int64, len(ivs))
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		for k, ns := range sh.busy.ns {
			total[min(k, len(ivs)-1)] += ns
		}
		sh.mu.Unlock()
	}
	for k := range ivs {
		if d := ivs[k].End - ivs[k].Start; d > 0 {
			ivs[k].InFlightMean = float64(total[k]) / float64(d)
		} else if k > 0 { // a last interval of no length: its time is the one before's
			total[k-1] += total[k]
			ivs[k-1].InFlightMean = float64(total[k-1]) / float64(ivs[k-1].End-ivs[k-1].Start)
		}
	}
}
