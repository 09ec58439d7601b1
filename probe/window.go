package probe

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// windows keeps the recent cumulative bucket counts of every scraped
// histogram, and its native buckets when it has them, and evaluates, per
// family and group,
//
//	histogram_quantile(q, sum by (le, <by>) (rate(x_bucket[window])))
//
// or, when every histogram of the group has native buckets in the window,
//
//	histogram_quantile(q, sum by (<by>) (rate(x[window])))
//
// over those, plus p100 and sum by (<by>) (rate(x_count[window])). It is not
// safe for concurrent use; Scraper serializes calls.
type windows struct {
	window    int64    // milliseconds
	by        []string // labels to group by besides le; nil keeps all
	quantiles []float64
	series    map[string]*histSeries
	groups    map[string]*group
	keys      []string // scratch: live group keys, sorted
}

// histSeries is one histogram (a family and a label set without le) as
// scraped over time: one counter per bucket bound, its _count, and its
// native buckets if it has any.
type histSeries struct {
	group   *group
	bounds  []float64 // ascending
	buckets [][]sample
	count   []sample
	native  *nativeSeries
}

// group is what one output label set sums over.
type group struct {
	family string
	labels map[string]string
	names  []string // series names: one per quantile, then p100, then rate
	// bounds names the series of the classic bucket each quantile and the
	// p100 fell in: its lower, then its upper bound, in names' order.
	bounds [][2]string

	// Per evaluation.
	buckets []Bucket
	rate    float64
	hasRate bool
	inputs  int           // series with samples in the window
	natives []*nativeHist // the rated native buckets of its series
	native  nativeHist    // their sum
	ranges  []bucketRange // and its buckets with their bounds
}

func newWindows(window time.Duration, by []string, quantiles []float64) *windows {
	return &windows{
		window:    window.Milliseconds(),
		by:        by,
		quantiles: quantiles,
		series:    map[string]*histSeries{},
		groups:    map[string]*group{},
	}
}

// add records one scrape of one histogram at t ms. buckets are cumulative
// counts (a bound may repeat; repeats are summed); count < 0 means the
// histogram had no _count. Samples not later than the series' last are
// dropped, as Prometheus drops out-of-order samples.
func (w *windows) add(t int64, family string, labels map[string]string, buckets []Bucket, count float64) {
	s := w.seriesOf(family, labels)
	for _, b := range buckets {
		i, found := slices.BinarySearch(s.bounds, b.UpperBound)
		if !found {
			s.bounds = slices.Insert(s.bounds, i, b.UpperBound)
			s.buckets = slices.Insert(s.buckets, i, nil)
		}
		s.buckets[i] = appendSample(s.buckets[i], t, b.Count)
	}
	if count >= 0 {
		s.count = appendSample(s.count, t, count)
	}
}

// seriesOf returns the series of a histogram, adding it on first sight.
func (w *windows) seriesOf(family string, labels map[string]string) *histSeries {
	key := labelsKey(family, labels)
	s := w.series[key]
	if s == nil {
		s = &histSeries{group: w.group(family, labels)}
		w.series[key] = s
	}
	return s
}

// appendSample appends v at t, summing into a sample already at t (a bound
// that appears twice in one scrape) and dropping anything older.
func appendSample(s []sample, t int64, v float64) []sample {
	if n := len(s); n > 0 {
		switch last := &s[n-1]; {
		case last.t == t:
			last.v += v
			return s
		case last.t > t:
			return s
		}
	}
	return append(s, sample{t, v})
}

// group returns the output group of a histogram with these labels.
func (w *windows) group(family string, labels map[string]string) *group {
	kept := labels
	if w.by != nil {
		kept = map[string]string{}
		for _, name := range w.by {
			if v := labels[name]; v != "" {
				kept[name] = v
			}
		}
	}
	key := labelsKey(family, kept)
	if g := w.groups[key]; g != nil {
		return g
	}
	g := &group{family: family, labels: kept}
	for _, q := range w.quantiles {
		g.names = append(g.names, family+":"+quantileName(q))
	}
	g.names = append(g.names, family+":p100", family+":rate")
	for _, n := range g.names[:len(w.quantiles)+1] {
		g.bounds = append(g.bounds, [2]string{n + BucketLow, n + BucketHigh})
	}
	w.groups[key] = g
	return g
}

// evaluate computes the window ending at t ms (Prometheus's range (t−window,
// t]) and returns its points, sorted by group. A group whose series all have
// native buckets in the window, at least two scrapes of each, is evaluated
// from those (see nativeQuantile); any other from the classic buckets (see
// Quantile). Series with no sample left in the window are forgotten.
func (w *windows) evaluate(t int64) []Point {
	start := t - w.window
	for _, g := range w.groups {
		g.buckets, g.hasRate, g.rate, g.inputs, g.natives = g.buckets[:0], false, 0, 0, g.natives[:0]
	}
	for key, s := range w.series {
		empty := true
		for i := range s.buckets {
			s.buckets[i] = trim(s.buckets[i], start)
			empty = empty && len(s.buckets[i]) == 0
			if r, ok := rate(s.buckets[i], t, w.window); ok {
				s.group.buckets = append(s.group.buckets, Bucket{s.bounds[i], r})
			}
		}
		s.count = trim(s.count, start)
		if r, ok := rate(s.count, t, w.window); ok {
			s.group.rate += r
			s.group.hasRate = true
		}
		if s.native != nil && !s.native.trim(start) {
			s.native = nil
		}
		if empty && len(s.count) == 0 && s.native == nil {
			delete(w.series, key)
			continue
		}
		s.group.inputs++
		if s.native != nil && s.native.rates(t, w.window) {
			s.group.natives = append(s.group.natives, &s.native.rated)
		}
	}
	w.keys = w.keys[:0]
	for key, g := range w.groups {
		if g.inputs > 0 {
			w.keys = append(w.keys, key)
		} else {
			delete(w.groups, key)
		}
	}
	sort.Strings(w.keys)
	at := time.Duration(t) * time.Millisecond
	var points []Point
	for _, key := range w.keys {
		g := w.groups[key]
		if len(g.natives) == g.inputs {
			points = w.appendNative(points, g, at)
		} else if b, ok := normalize(g.buckets); ok {
			for i, q := range w.quantiles {
				points = appendValue(points, g, g.names[i], at, quantileOf(q, b))
				points = appendBucket(points, g, i, at, b, q)
			}
			points = appendValue(points, g, g.names[len(w.quantiles)], at, p100Of(b))
			points = appendBucket(points, g, len(w.quantiles), at, b, 1)
		}
		if g.hasRate {
			points = appendValue(points, g, g.names[len(w.quantiles)+1], at, g.rate)
		}
	}
	return points
}

// appendNative appends the quantiles and p100 of g's native buckets.
func (w *windows) appendNative(points []Point, g *group, at time.Duration) []Point {
	g.native.sum(g.natives)
	g.ranges = g.native.ranges(g.ranges[:0])
	for i, q := range w.quantiles {
		points = appendValue(points, g, g.names[i], at, nativeQuantile(q, g.ranges, g.native.count))
	}
	return appendValue(points, g, g.names[len(w.quantiles)], at, nativeP100(g.ranges))
}

// appendValue appends a metrics point unless v is NaN: a window without
// observations has no quantile, and a NaN would only mislead downstream.
func appendValue(points []Point, g *group, series string, at time.Duration, v float64) []Point {
	if math.IsNaN(v) {
		return points
	}
	return append(points, Point{Probe: "metrics", Series: series, Labels: g.labels, T: at, Value: v})
}

// appendBucket appends the bounds of the classic bucket that the rank of
// quantile q of b falls in, as the i-th of g's bucket series: the quantile
// is somewhere in it, and the buckets say no more. A quantile in the +Inf
// bucket has only its lower bound.
func appendBucket(points []Point, g *group, i int, at time.Duration, b []Bucket, q float64) []Point {
	lo, hi, ok := bucketOf(q, b)
	if !ok {
		return points
	}
	points = appendValue(points, g, g.bounds[i][0], at, lo)
	if math.IsInf(hi, +1) {
		return points
	}
	return appendValue(points, g, g.bounds[i][1], at, hi)
}

// labelsKey identifies a family and label set.
func labelsKey(family string, labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for name := range labels {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(family)
	for _, name := range names {
		b.WriteByte(0xff)
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(labels[name])
	}
	return b.String()
}
