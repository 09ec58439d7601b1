package probe

import (
	"sync"
	"time"
)

// Defaults of TraceReceiver's limits.
const (
	defaultMaxTraceBody = 16 << 20
	defaultMaxSpans     = 1_000_000
)

// SpanKind is the role of a span in a call, numbered as in OTLP.
type SpanKind int8

// The kinds of span. latlab's graph nodes make a SpanKindServer span per
// request, a SpanKindClient span per downstream call and a
// SpanKindInternal span per work step.
const (
	SpanKindUnspecified SpanKind = iota
	SpanKindInternal
	SpanKindServer
	SpanKindClient
	SpanKindProducer
	SpanKindConsumer
)

// Span is what a TraceReceiver keeps of one received span. ParentID is all
// zeros for a root span; Service is the resource's service.name, or
// "unknown_service" when the sender did not set one; Route is the span's
// http.route attribute, "" when it has none; Received is when the
// receiver got it.
type Span struct {
	TraceID          [16]byte
	SpanID, ParentID [8]byte
	Service, Name    string
	Route            string
	Kind             SpanKind
	Start, End       time.Time
	Received         time.Time
}

// Duration returns End − Start.
func (s *Span) Duration() time.Duration { return s.End.Sub(s.Start) }

// TraceReceiver is an OTLP/HTTP trace collector: it serves POST /v1/traces
// (protobuf or JSON, plain or gzip), keeps the spans it is sent and turns
// them into per-hop times with Hops and Points. Set its limits before it
// serves; its methods are safe to call concurrently. The zero value is
// ready to use.
type TraceReceiver struct {
	// MaxBodyBytes caps a request body both as sent and after gzip
	// decompression; a larger one is refused with 413. 0 means 16 MiB.
	MaxBodyBytes int64

	// MaxSpans caps the spans kept; beyond it spans are refused, reported
	// to the sender as rejected and counted by Rejected. 0 means 1,000,000.
	MaxSpans int

	// ParentWait is how long HopsBetween and PointsBetween wait, from a
	// server span's arrival, for the parent it names when the receiver
	// does not hold that parent yet: a parent ends after its children, so
	// it often comes in its service's next export. 0 means one second,
	// five times the 200 ms export interval latlab gives graph nodes; a
	// negative value means not to wait.
	ParentWait time.Duration

	mu       sync.Mutex
	spans    []Span // appended to only: snapshots of it stay valid
	epoch    int    // counts Forget calls, which replace spans
	arrived  chan struct{}
	rejected int
	names    map[string]string // interned service, span and route names
}

// NewTraceReceiver returns a receiver with the default limits.
func NewTraceReceiver() *TraceReceiver { return &TraceReceiver{} }

func (r *TraceReceiver) maxSpans() int {
	if r.MaxSpans <= 0 {
		return defaultMaxSpans
	}
	return r.MaxSpans
}

// add keeps as many of spans as the limit allows and returns how many;
// invalid counts the spans of the same request that were not valid.
func (r *TraceReceiver) add(spans []Span, invalid int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	room := max(0, r.maxSpans()-len(r.spans))
	kept := min(room, len(spans))
	r.rejected += invalid + len(spans) - kept
	if r.names == nil {
		r.names = map[string]string{}
	}
	now := time.Now()
	for _, s := range spans[:kept] {
		// Interning: a run has a few names but up to a million spans.
		s.Service, s.Name, s.Route = r.intern(s.Service), r.intern(s.Name), r.intern(s.Route)
		s.Received = now
		r.spans = append(r.spans, s)
	}
	if kept > 0 && r.arrived != nil {
		close(r.arrived) // wakes whoever waits for a parent
		r.arrived = nil
	}
	return kept
}

func (r *TraceReceiver) intern(s string) string {
	if v, ok := r.names[s]; ok {
		return v
	}
	if len(r.names) < 10_000 { // names are bounded in latlab; others' may not be
		r.names[s] = s
	}
	return s
}

// snapshot returns the spans kept so far. The slice is never written
// again: add only appends beyond it and Forget makes a new one.
func (r *TraceReceiver) snapshot() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spans[:len(r.spans):len(r.spans)]
}

// watch returns the spans kept so far, the count of Forget calls, and a
// channel closed when more spans arrive.
func (r *TraceReceiver) watch() ([]Span, int, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.arrived == nil {
		r.arrived = make(chan struct{})
	}
	return r.spans[:len(r.spans):len(r.spans)], r.epoch, r.arrived
}

// Spans returns a copy of the spans kept so far, in order of arrival.
func (r *TraceReceiver) Spans() []Span {
	s := r.snapshot()
	return append([]Span(nil), s...)
}

// Rejected returns how many spans the receiver refused: invalid ones and
// those beyond MaxSpans.
func (r *TraceReceiver) Rejected() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rejected
}

// Forget drops the spans that started before t, so that a receiver kept
// for a whole experiment holds only what is still to be read.
func (r *TraceReceiver) Forget(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var kept []Span
	for _, s := range r.spans {
		if !s.Start.Before(t) {
			kept = append(kept, s)
		}
	}
	r.spans = kept
	r.epoch++
}
