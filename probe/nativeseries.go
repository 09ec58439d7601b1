package probe

import (
	"cmp"
	"slices"

	dto "github.com/prometheus/client_model/go"
)

// nativeSeries is the native buckets of one histogram as scraped over time:
// a counter per bucket, like the classic bucket series, with a sample at
// every scrape (0 for a bucket the scrape did not list), so that all of them
// share count's sample times.
//
// A series keeps the lowest schema and the widest zero bucket it has been
// scraped with: when the target lowers its resolution (client_golang does
// once a histogram has too many buckets), the history is merged down to
// match; a scrape at a finer resolution is merged down on arrival.
type nativeSeries struct {
	schema        int32
	zeroThreshold float64
	count         []sample // observations; its times are every counter's
	zero          []sample
	pos, neg      []nativeCounter // by ascending index

	resets []int      // scratch: the scrapes at which the histogram was reset
	rated  nativeHist // the last evaluation's rates
}

// nativeCounter is the history of one native bucket.
type nativeCounter struct {
	index   int32
	samples []sample
}

// add records one scrape at t ms. It may modify h. A scrape older than the
// last is dropped; one at the same time is summed into it, as the classic
// buckets are.
func (n *nativeSeries) add(t int64, h *nativeHist) {
	last := len(n.count) - 1
	switch {
	case last < 0:
		n.schema, n.zeroThreshold = h.schema, h.zeroThreshold
	case n.count[last].t > t:
		return
	}
	if h.schema < n.schema {
		n.reduce(h.schema)
	} else {
		h.reduce(n.schema)
	}
	if h.zeroThreshold > n.zeroThreshold {
		n.widenZero(h.zeroThreshold)
	} else {
		h.widenZero(n.zeroThreshold)
	}
	if last < 0 || n.count[last].t < t {
		n.count = append(n.count, sample{t, 0})
		n.zero = append(n.zero, sample{t, 0})
		for i := range n.pos {
			n.pos[i].samples = append(n.pos[i].samples, sample{t, 0})
		}
		for i := range n.neg {
			n.neg[i].samples = append(n.neg[i].samples, sample{t, 0})
		}
	}
	last = len(n.count) - 1
	n.count[last].v += h.count
	n.zero[last].v += h.zeroCount
	n.pos = n.merge(n.pos, h.pos)
	n.neg = n.merge(n.neg, h.neg)
}

// merge adds one scrape's bucket counts to the last samples of counters,
// starting a counter that was 0 at every earlier scrape for a bucket seen
// for the first time.
func (n *nativeSeries) merge(counters []nativeCounter, buckets []nativeBucket) []nativeCounter {
	for _, b := range buckets {
		i, found := slices.BinarySearchFunc(counters, b.index, func(c nativeCounter, index int32) int {
			return cmp.Compare(c.index, index)
		})
		if !found {
			samples := make([]sample, len(n.count))
			for k, c := range n.count {
				samples[k].t = c.t
			}
			counters = slices.Insert(counters, i, nativeCounter{b.index, samples})
		}
		s := counters[i].samples
		s[len(s)-1].v += b.count
	}
	return counters
}

// reduce merges the history down to schema, below the series' own.
func (n *nativeSeries) reduce(schema int32) {
	d := n.schema - schema
	n.schema = schema
	n.pos = reduceCounters(n.pos, d)
	n.neg = reduceCounters(n.neg, d)
}

// reduceCounters maps counters d schemas down, in place, summing the samples
// of those that merge.
func reduceCounters(counters []nativeCounter, d int32) []nativeCounter {
	out := counters[:0]
	for _, c := range counters {
		c.index = reduceIndex(c.index, d)
		if k := len(out); k > 0 && out[k-1].index == c.index {
			addSamples(out[k-1].samples, c.samples)
			continue
		}
		out = append(out, c)
	}
	clear(counters[len(out):])
	return out
}

// addSamples adds the values of src to those of dst, sampled at the same
// times.
func addSamples(dst, src []sample) {
	for i := range min(len(dst), len(src)) {
		dst[i].v += src[i].v
	}
}

// widenZero raises the zero threshold to zt, above the series' own, and
// moves the history of the buckets wholly within it into the zero bucket.
func (n *nativeSeries) widenZero(zt float64) {
	n.zeroThreshold = zt
	n.pos = n.sweepZero(n.pos)
	n.neg = n.sweepZero(n.neg)
}

func (n *nativeSeries) sweepZero(counters []nativeCounter) []nativeCounter {
	i := 0
	for i < len(counters) && nativeBound(counters[i].index, n.schema) <= n.zeroThreshold {
		addSamples(n.zero, counters[i].samples)
		i++
	}
	out := append(counters[:0], counters[i:]...)
	clear(counters[len(out):])
	return out
}

// trim drops the samples at or before start and the counters that stayed at
// 0 all through what is left, and reports whether any sample is left.
func (n *nativeSeries) trim(start int64) bool {
	n.count = trim(n.count, start)
	n.zero = trim(n.zero, start)
	n.pos = trimCounters(n.pos, start)
	n.neg = trimCounters(n.neg, start)
	return len(n.count) > 0
}

func trimCounters(counters []nativeCounter, start int64) []nativeCounter {
	out := counters[:0]
	for _, c := range counters {
		c.samples = trim(c.samples, start)
		if slices.ContainsFunc(c.samples, func(s sample) bool { return s.v != 0 }) {
			out = append(out, c)
		}
	}
	clear(counters[len(out):])
	return out
}

// rates sets n.rated to the rate of every bucket over the window (end-rng,
// end] and reports false when there are fewer than two scrapes in it. It
// follows Prometheus's rate of a native histogram: the histogram was reset
// at a scrape where its count or any bucket went down, and then the
// increase of every bucket gains the value it had before; all buckets are
// extrapolated by the one factor the count's samples give.
func (n *nativeSeries) rates(end, rng int64) bool {
	k := len(n.count)
	if k < 2 {
		return false
	}
	n.resets = n.resets[:0]
	for i := 1; i < k; i++ {
		if n.count[i].v < n.count[i-1].v || n.zero[i].v < n.zero[i-1].v ||
			decreasedAt(n.pos, i) || decreasedAt(n.neg, i) {
			n.resets = append(n.resets, i)
		}
	}
	r := &n.rated
	r.schema, r.zeroThreshold = n.schema, n.zeroThreshold
	inc := n.increase(n.count)
	factor := extrapolation(n.count, inc, end, rng)
	r.count = inc * factor
	r.zeroCount = n.increase(n.zero) * factor
	r.pos = n.appendRates(r.pos[:0], n.pos, factor)
	r.neg = n.appendRates(r.neg[:0], n.neg, factor)
	return true
}

// decreasedAt reports whether any counter went down at scrape i.
func decreasedAt(counters []nativeCounter, i int) bool {
	for _, c := range counters {
		if c.samples[i].v < c.samples[i-1].v {
			return true
		}
	}
	return false
}

// increase returns last − first plus, at every reset of the histogram, the
// value before it. It is not negative: between resets no counter goes down.
func (n *nativeSeries) increase(s []sample) float64 {
	result := s[len(s)-1].v - s[0].v
	for _, i := range n.resets {
		result += s[i-1].v
	}
	return result
}

// appendRates appends the buckets that grew, with their rates.
func (n *nativeSeries) appendRates(dst []nativeBucket, counters []nativeCounter, factor float64) []nativeBucket {
	for _, c := range counters {
		if inc := n.increase(c.samples); inc > 0 {
			dst = append(dst, nativeBucket{c.index, inc * factor})
		}
	}
	return dst
}

// addNative records the native buckets of one scrape of a histogram.
func (w *windows) addNative(t int64, family string, labels map[string]string, h *nativeHist) {
	s := w.seriesOf(family, labels)
	if s.native == nil {
		s.native = &nativeSeries{}
	}
	s.native.add(t, h)
}

// ingestNative adds the native buckets of the scrape's histograms to their
// series, beside the classic buckets and counts ingest recorded.
func (s *Scraper) ingestNative(t int64, instance string, families []*dto.MetricFamily) {
	for _, mf := range families {
		if mf.GetType() != dto.MetricType_HISTOGRAM {
			continue
		}
		for _, m := range mf.GetMetric() {
			if decodeNative(m.GetHistogram(), &s.scratch) {
				s.win.addNative(t, mf.GetName(), targetLabels(m.GetLabel(), instance, ""), &s.scratch)
			}
		}
	}
}
