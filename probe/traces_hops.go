package probe

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"
)

// Hop is what one edge of the traced graph, Caller → Callee, adds to a
// request's latency, from the spans a TraceReceiver holds.
//
// Network is, for each CLIENT span of Caller whose child is a SERVER span
// of Callee, the client span's duration minus the server span's: the
// network, any proxy or sidecar between the two, and the client's own
// HTTP stack. It is not clamped, so it can come out a few microseconds
// below zero when the server ends its span after the caller has its
// answer; clamping would bias its median.
//
// Framework is, for each SERVER span of Callee, its duration minus the
// time covered by its direct INTERNAL children (work steps) and CLIENT
// children (downstream calls): the server's filters, routing and
// framework. Children that run in parallel count once, so with sequential
// children it is the duration minus their sum; it is never below zero.
//
// Caller is "" for server spans that name no parent: the graph's entry,
// called by the load generator, which sends no traceparent. Such a hop has
// no Network samples. A server span that names a parent the receiver does
// not hold (its export was lost, or came too late: see
// TraceReceiver.ParentWait) is an orphan: it is in no hop, and
// PointsBetween counts it. Server spans of /metrics, /healthz and
// /debug/pprof/ (their http.route), which latlab itself calls on graph
// nodes besides the load, are in no hop either.
type Hop struct {
	Caller, Callee string

	// Count is the number of SERVER spans of Callee called from Caller.
	Count int

	Network, Framework Durations
}

// Durations are the samples of one kind of time on a hop, with their
// percentiles (nearest rank: the smallest sample at or above that share
// of samples). Every percentile is zero when there are no samples; with
// fewer than 1/(1−q) samples percentile q is the largest sample.
type Durations struct {
	Samples            []time.Duration // ascending
	P50, P90, P99, Max time.Duration
}

// hopKey names a hop.
type hopKey struct{ caller, callee string }

// hopSample is one time on a hop and the start of the span it came from.
type hopSample struct {
	at time.Time
	d  time.Duration
}

// hopSamples are the samples of one hop.
type hopSamples struct {
	count              int
	network, framework []hopSample
}

// orphans counts one service's server spans whose parent never came.
type orphans struct {
	n    int
	last time.Time // the latest start among them
}

// hopSet is what hopsOf finds: the samples of every hop, the orphans of
// every service, and the lead times of every service's filter spans, by
// service (caller) and span name (callee).
type hopSet struct {
	hops    map[hopKey]*hopSamples
	orphans map[string]*orphans
	filters map[hopKey][]hopSample
}

// spanKey identifies a span across traces.
type spanKey struct {
	trace [16]byte
	span  [8]byte
}

// Hops returns the hops of every span held, ordered by caller and callee.
func (r *TraceReceiver) Hops() []Hop { return r.HopsBetween(time.Time{}, time.Time{}) }

// HopsBetween returns the hops of the spans that started in [start, end),
// ordered by caller and callee. A zero start or end leaves that side open.
// Server spans whose parent has not arrived are waited for first, for up
// to ParentWait after their arrival.
func (r *TraceReceiver) HopsBetween(start, end time.Time) []Hop {
	m := hopsOf(r.settled(start, end), start, end).hops
	hops := make([]Hop, 0, len(m))
	for k, s := range m {
		hops = append(hops, Hop{
			Caller:    k.caller,
			Callee:    k.callee,
			Count:     s.count,
			Network:   durationsOf(s.network),
			Framework: durationsOf(s.framework),
		})
	}
	slices.SortFunc(hops, func(a, b Hop) int {
		return cmp.Or(cmp.Compare(a.Caller, b.Caller), cmp.Compare(a.Callee, b.Callee))
	})
	return hops
}

// Points returns every hop sample of the spans that started at or after
// start, for storage: Probe "traces", Series "network_seconds" or
// "framework_seconds", Labels "caller" and "callee", T the start of the
// span the sample came from as an offset from start, Value the time in
// seconds. Each service with orphans (server spans left out of every hop
// because their parent never arrived; see Hop) adds a point of Series
// "orphan_spans_total", Labels "callee", Value their count and T the
// start of the last of them.
//
// Each INTERNAL span with children adds a point of Series "filter_seconds",
// Labels "service" and "span" (its name), Value the time from its start to
// its first child's start: for a server's filters traced as nested spans,
// each wrapping the rest of the request (kube-apiserver's audit,
// impersonation, priorityandfairness and authorization), the filter's own
// time before it handed the request on, exact per request; anything
// untraced between a filter and the next span counts as the filter's.
// INTERNAL spans without children, such as latlab's work steps, add none.
//
// Points are ordered by T. The points of one hop, or of one filter, share
// one Labels map; treat it as read-only. Like HopsBetween, it
// first waits up to ParentWait for missing parents.
func (r *TraceReceiver) Points(start time.Time) []Point { return r.PointsBetween(start, time.Time{}) }

// PointsBetween is Points for the spans that started in [start, end); a
// zero end leaves the window open.
func (r *TraceReceiver) PointsBetween(start, end time.Time) []Point {
	var points []Point
	set := hopsOf(r.settled(start, end), start, end)
	for svc, o := range set.orphans {
		points = append(points, Point{Probe: "traces", Series: "orphan_spans_total", Labels: map[string]string{"callee": svc},
			T: o.last.Sub(start), Value: float64(o.n)})
	}
	for k, s := range set.hops {
		labels := map[string]string{"caller": k.caller, "callee": k.callee}
		for _, x := range s.network {
			points = append(points, Point{Probe: "traces", Series: "network_seconds", Labels: labels, T: x.at.Sub(start), Value: x.d.Seconds()})
		}
		for _, x := range s.framework {
			points = append(points, Point{Probe: "traces", Series: "framework_seconds", Labels: labels, T: x.at.Sub(start), Value: x.d.Seconds()})
		}
	}
	for k, samples := range set.filters {
		labels := map[string]string{"service": k.caller, "span": k.callee}
		for _, x := range samples {
			points = append(points, Point{Probe: "traces", Series: "filter_seconds", Labels: labels, T: x.at.Sub(start), Value: x.d.Seconds()})
		}
	}
	slices.SortStableFunc(points, func(a, b Point) int {
		return cmp.Or(cmp.Compare(a.T, b.T), cmp.Compare(a.Series, b.Series),
			cmp.Compare(a.Labels["caller"], b.Labels["caller"]), cmp.Compare(a.Labels["callee"], b.Labels["callee"]),
			cmp.Compare(a.Labels["service"], b.Labels["service"]), cmp.Compare(a.Labels["span"], b.Labels["span"]))
	})
	return points
}

// hopsOf computes the samples of every hop among spans, and the orphans,
// keeping those whose span started in [start, end). A span sent twice (an
// exporter's retry) counts once.
func hopsOf(spans []Span, start, end time.Time) hopSet {
	t := newSpanTree(spans)
	set := hopSet{map[hopKey]*hopSamples{}, map[string]*orphans{}, map[hopKey][]hopSample{}}
	var busy [][2]time.Time // scratch: the children's intervals
	for i := range spans {
		s := &spans[i]
		if !t.unique(i) || !inWindow(s.Start, start, end) {
			continue
		}
		switch s.Kind {
		case SpanKindInternal:
			set.filter(t, i)
		case SpanKindClient:
			set.network(t, i)
		case SpanKindServer:
			busy = set.framework(t, i, busy)
		}
	}
	return set
}

// A spanTree links spans to their parents and children. Links are index+1,
// 0 for none: firstChild[p] and nextSibling[c] make each span's children a
// list, parent[c] is its parent, when it is here.
type spanTree struct {
	spans                           []Span
	index                           map[spanKey]int32
	firstChild, nextSibling, parent []int32
}

func newSpanTree(spans []Span) *spanTree {
	n := len(spans)
	t := &spanTree{spans: spans, index: make(map[spanKey]int32, n),
		firstChild: make([]int32, n), nextSibling: make([]int32, n), parent: make([]int32, n)}
	for i := range spans {
		t.index[spanKey{spans[i].TraceID, spans[i].SpanID}] = int32(i)
	}
	for i := range spans {
		if spans[i].ParentID == [8]byte{} || !t.unique(i) {
			continue
		}
		if p, ok := t.index[spanKey{spans[i].TraceID, spans[i].ParentID}]; ok {
			t.parent[i] = p + 1
			t.nextSibling[i] = t.firstChild[p]
			t.firstChild[p] = int32(i) + 1
		}
	}
	return t
}

// unique says whether span i is the one copy of its span the tree keeps.
func (t *spanTree) unique(i int) bool {
	return t.index[spanKey{t.spans[i].TraceID, t.spans[i].SpanID}] == int32(i)
}

// children calls f with each child of span i.
func (t *spanTree) children(i int, f func(child *Span)) {
	for c := t.firstChild[i]; c != 0; c = t.nextSibling[c-1] {
		f(&t.spans[c-1])
	}
}

// hop returns the samples of the hop from caller to callee, adding it.
func (set hopSet) hop(caller, callee string) *hopSamples {
	k := hopKey{caller, callee}
	h := set.hops[k]
	if h == nil {
		h = &hopSamples{}
		set.hops[k] = h
	}
	return h
}

// filter adds the lead time of filter span i, an internal span: the time
// before its first child started.
func (set hopSet) filter(t *spanTree, i int) {
	s := &t.spans[i]
	if t.firstChild[i] == 0 {
		return
	}
	first := s.End
	t.children(i, func(c *Span) {
		if c.Start.Before(first) {
			first = c.Start
		}
	})
	k := hopKey{s.Service, s.Name}
	set.filters[k] = append(set.filters[k], hopSample{s.Start, max(0, first.Sub(s.Start))})
}

// network adds the network time of each call client span i made to
// another service: the client's duration less the server's.
func (set hopSet) network(t *spanTree, i int) {
	s := &t.spans[i]
	t.children(i, func(c *Span) {
		if c.Kind == SpanKindServer && c.Service != s.Service && !observerRoute(c.Route) {
			h := set.hop(s.Service, c.Service)
			h.network = append(h.network, hopSample{s.Start, s.Duration() - c.Duration()})
		}
	})
}

// framework adds the framework time of server span i, its duration less
// what its filter and client children cover, to the hop from its caller,
// or counts it an orphan when its parent never came. busy is scratch
// space, returned for the next call.
func (set hopSet) framework(t *spanTree, i int, busy [][2]time.Time) [][2]time.Time {
	s := &t.spans[i]
	if observerRoute(s.Route) {
		return busy
	}
	caller := "" // no parent named: called by the load generator
	switch {
	case t.parent[i] != 0:
		caller = t.spans[t.parent[i]-1].Service
	case s.ParentID != [8]byte{}:
		// The parent exists but is not here: whoever called, it was not
		// the load generator.
		o := set.orphans[s.Service]
		if o == nil {
			o = &orphans{}
			set.orphans[s.Service] = o
		}
		o.n++
		if s.Start.After(o.last) {
			o.last = s.Start
		}
		return busy
	}
	busy = busy[:0]
	t.children(i, func(c *Span) {
		if c.Kind == SpanKindInternal || c.Kind == SpanKindClient {
			busy = append(busy, [2]time.Time{c.Start, c.End})
		}
	})
	h := set.hop(caller, s.Service)
	h.count++
	h.framework = append(h.framework, hopSample{s.Start, max(0, s.Duration()-covered(busy, s.Start, s.End))})
	return busy
}

// inWindow says whether t is in [start, end), a zero start or end leaving
// that side open.
func inWindow(t, start, end time.Time) bool {
	return (start.IsZero() || !t.Before(start)) && (end.IsZero() || t.Before(end))
}

// covered returns how much of [from, to] the intervals cover, each
// overlap counted once. It sorts intervals.
func covered(intervals [][2]time.Time, from, to time.Time) time.Duration {
	slices.SortFunc(intervals, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	var total time.Duration
	var cur [2]time.Time
	open := false
	for _, iv := range intervals {
		// Clip to the parent: a child's clock cannot make it bigger.
		if iv[0].Before(from) {
			iv[0] = from
		}
		if iv[1].After(to) {
			iv[1] = to
		}
		if !iv[1].After(iv[0]) {
			continue
		}
		switch {
		case !open:
			cur, open = iv, true
		case iv[0].After(cur[1]):
			total += cur[1].Sub(cur[0])
			cur = iv
		case iv[1].After(cur[1]):
			cur[1] = iv[1]
		}
	}
	if open {
		total += cur[1].Sub(cur[0])
	}
	return total
}

// durationsOf sorts the samples' times and reads their percentiles.
func durationsOf(samples []hopSample) Durations {
	if len(samples) == 0 {
		return Durations{}
	}
	d := make([]time.Duration, len(samples))
	for i, s := range samples {
		d[i] = s.d
	}
	slices.Sort(d)
	return Durations{Samples: d, P50: rank(d, 0.50), P90: rank(d, 0.90), P99: rank(d, 0.99), Max: d[len(d)-1]}
}

// rank returns the nearest-rank q-quantile of sorted, which is not empty.
func rank(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// TraceFlush is how long to wait, after an attack, for the nodes' last
// spans: they export every 200 ms.
const TraceFlush = 400 * time.Millisecond

// Take waits flush for the last spans of an attack that ran from start to
// end, or until ctx ends, and returns the hops of the spans that started
// between the two, as points timed from start (see PointsBetween). It then
// forgets the spans that started before end: no later attack's window
// holds them. err is ctx's if ctx cut the wait short; the spans already
// in count.
func (r *TraceReceiver) Take(ctx context.Context, start, end time.Time, flush time.Duration) ([]Point, error) {
	flushed := time.NewTimer(flush)
	defer flushed.Stop()
	var err error
	select {
	case <-flushed.C:
	case <-ctx.Done():
		err = ctx.Err()
	}
	points := r.PointsBetween(start, end)
	r.Forget(end)
	return points, err
}
